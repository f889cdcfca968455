# ctl-helpers.sh - shared by the memprof-ctl test drivers (sourced after
# common.sh, with $ctl naming memprof-ctl).

# wait_for_line FILE TEXT - until FILE holds TEXT (30 s at most).
wait_for_line() {
	for i in $(seq 300); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "$1 never said '$2'"
}

# expect STATUS TEXT COMMAND... - runs memprof-ctl; requires the exit
# status and TEXT on stdout or stderr.
expect() {
	want=$1 text=$2
	shift 2
	"$ctl" "$@" >ctl.out 2>&1
	status=$?
	[ "$status" = "$want" ] ||
		fail "memprof-ctl $*: status $status, not $want: $(cat ctl.out)"
	grep -q -- "$text" ctl.out ||
		fail "memprof-ctl $*: no '$text' in: $(cat ctl.out)"
}
