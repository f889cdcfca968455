# ctl-helpers.sh - shared by the memprof-ctl test drivers (sourced after
# common.sh, with $ctl naming memprof-ctl).

# wait_for_line PID FILE TEXT - until FILE holds TEXT, which process PID
# writes; fails when PID ends first or makes no progress for 30 s (see
# wait_for).
wait_for_line() {
	wait_for "$1" 30 grep -qs "$3" "$2" ||
		fail "$2 never said '$3'"
}

# What a test that ends, failed or not, leaves running: the server, and
# the stop files of the hold-programs it started.  A test that failed
# also kills the programs it listed in $programs, which may be waiting
# for a file it never made: left running, they would hold on to what the
# next tests need (an emulated system's lock, a port).
server=
hold_stops=
programs=
at_exit '[ -z "$server" ] || kill -KILL $server 2>/dev/null
	for stop in $hold_stops; do touch "$stop"; done
	[ $exit_status -eq 0 ] || [ -z "$programs" ] || kill -KILL $programs 2>/dev/null'

# open_the_way DIR - lets every user reach DIR until the test ends: a
# build tree may lie in a private directory (mktemp -d makes them 0700,
# and a package is built in one), where the second user of a test could
# reach neither its own scratch directory nor the programs that the
# server runs as that user.  Each directory above DIR that lacks it gets
# search permission for others (not the right to list it), and its mode
# back at the end.
open_the_way() {
	above=$1
	while [ "$above" != / ]; do
		above=$(dirname "$above")
		mode=$(stat -c %a "$above") || return 1
		[ $((0$mode & 1)) -eq 0 ] || continue
		chmod o+x "$above" || return 1
		at_exit "chmod $mode '$above'"
	done
}

# start_hold NAME [idle|leak] - $hold ($held_kib KiB) in the background under the
# runtime with the SPPROF_* settings exported; its pid in $pid.  It ends
# when the test does.
start_hold() {
	rm -f "$1.stop"
	hold_stops="$hold_stops $scratch/$1.stop"
	start_under_runtime "$hold" $held_kib "$scratch/$1.stop" $2 \
		>"$1.out" 2>"$1.err"
	pid=$started_pid
	wait_for_line $pid "$1.out" "holding"
}

# start_unreadable_hold NAME - start_hold, then the start of its streamed
# file overwritten, so that memprof-report cannot read it.
start_unreadable_hold() {
	SPPROF_OUTPUT=$scratch/$1.%p.mlyze start_hold "$1"
	printf 'not a profile' | dd of="$scratch/$1.$pid.mlyze.part" \
		conv=notrunc 2>/dev/null
}

# end_hold NAME PID - asks it to end; it must exit 0 with its own output.
end_hold() {
	touch "$1.stop"
	wait "$2" || fail "$1: exit status $?"
	printf 'holding %s bytes\ndone\n' $((held_kib * 1024)) >"$1.expected"
	cmp -s "$1.out" "$1.expected" || fail "$1: output changed: $(cat "$1.out")"
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

# start_serve [OPTIONS] - memprof-ctl serve on a free port of 127.0.0.1 in
# the background; its pid in $server, its address in $url.  A test that
# fails leaves no server behind.
start_serve() {
	# A server started before wrote its port there: not the one to read.
	rm -f serve.out serve.err
	"$ctl" serve --listen 127.0.0.1:0 "$@" >serve.out 2>serve.err &
	server=$!
	wait_for_line $server serve.out "serving on port"
	url=http://127.0.0.1:$(sed -n 's/.*serving on port //p' serve.out)
}

# stop_serve - SIGTERM: the server must exit 0 at once.
stop_serve() {
	kill -TERM $server
	wait $server || fail "serve: exit status $? on SIGTERM: $(cat serve.err)"
	server=
}
