#!/bin/sh
# ctl-quiet.sh - memprof-ctl on processes that stopped allocating (see
# quiet-program.c): every request is answered all the same, brought by
# the control signal, and a program that handles SIGURG itself sees its
# own action and its own signals, never the requests.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

ctl=$abs_top_builddir/src/memprof-ctl
quiet=$integ_bin/quiet-program
export XDG_RUNTIME_DIR=$scratch/xdg
export SPPROF_SAMPLING_RATE=65536
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"

# start_quiet NAME [own|block] - $quiet under the runtime with the SPPROF_*
# settings exported, reading the fifo NAME.in (held open on descriptor 3
# until end_quiet); its pid in $pid, listed in $programs.
start_quiet() {
	rm -f "$1.in"
	mkfifo "$1.in" || fail "no fifo"
	LD_PRELOAD=$runtime_so "$quiet" 2048 $2 <"$1.in" >"$1.out" 2>"$1.err" &
	pid=$!
	programs="$programs $pid"
	exec 3>"$1.in"
	wait_for_line $pid "$1.out" "holding"
}

# end_quiet NAME PID URGENT - ends its input: it must exit 0, having seen
# SIGURG URGENT times.
end_quiet() {
	exec 3>&-
	wait "$2" || fail "$1: exit status $?: $(cat "$1.err")"
	grep -qx "SIGURG $3" "$1.out" ||
		fail "$1: its handler did not run $3 times: $(cat "$1.out")"
}

# ---- recording from its start: every request, while it allocates nothing ----
SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_quiet rec
rec=$pid
expect 0 "recording" status $rec
expect 0 "rec.$rec.snap1" snapshot $rec -o "$scratch/rec.$rec.snap1.mlyze"
[ -s "rec.$rec.snap1.mlyze" ] || fail "no snapshot of a quiet process"
expect 1 "already recording" start $rec
expect 0 "rec.$rec.mlyze" stop $rec
expect 0 "dormant" status $rec
expect 0 "again.$rec.mlyze" start $rec -o "$scratch/again.%p.mlyze"
expect 0 "recording" status $rec
expect 0 "again.$rec.mlyze" detach $rec
end_quiet rec $rec 0

# ---- dormant, with a SIGURG handler of its own ----
SPPROF_DORMANT=1 SPPROF_OUTPUT=$scratch/own.%p.mlyze start_quiet own own
own=$pid
expect 0 "dormant" status $own
expect 0 "own.$own.mlyze" start $own
kill -URG $own
expect 0 "own.$own.snap" snapshot $own -o "$scratch/own.$own.snap.mlyze"
kill -URG $own
expect 0 "own.$own.mlyze" stop $own
kill -URG $own
expect 0 "dormant" status $own
end_quiet own $own 3

# ---- one that blocks SIGURG: the request is withdrawn, and says why ----
SPPROF_OUTPUT=$scratch/blocked.%p.mlyze start_quiet blocked block
blocked=$pid
expect 1 "brought by SIGURG [0-9]* times: the process blocks SIGURG" \
	status $blocked
end_quiet blocked $blocked 0

# ---- recording, then allocating nothing for seconds: top's duration and
# the growth of its site run to now, not to its last event, so that a
# site that stopped growing is not shown growing for ever ----
# top_now PID - the duration in top's report ($duration, s) and the growth
# of main ($growth, B/s).
top_now() {
	"$ctl" top $1 </dev/null >top.out 2>&1 || fail "top $1: $(cat top.out)"
	/usr/bin/python3 - top.out >top.now <<'PY' || fail "top $1: $(cat top.out)"
import re, sys
text = open(sys.argv[1]).read()
duration = re.search(r"^  duration +([0-9.]+) s$", text, re.M).group(1)
row = re.search(r"^ *\S+ \S+ +\S+ \S+ +([-+][0-9.]+) (B|KiB|MiB|GiB) .* main$",
                text, re.M)
scale = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[row.group(2)]
print(duration, float(row.group(1)) * scale)
PY
	read duration growth <top.now
}
started=$(date +%s.%N)
SPPROF_OUTPUT=$scratch/flat.%p.mlyze start_quiet flat
flat=$pid
sleep 1
top_now $flat
age=$(/usr/bin/python3 -c "print($(date +%s.%N) - $started)")
first=$growth
# Until it has lived three times as long.
sleep "$(/usr/bin/python3 -c "print(2 * $age)")"
top_now $flat
/usr/bin/python3 -c "import sys; sys.exit(not $duration >= 2 * $age)" ||
	fail "top: a duration of $duration s for a process that has recorded for more than $(/usr/bin/python3 -c "print(2 * $age)") s: $(cat top.out)"
/usr/bin/python3 -c "import sys; sys.exit(not 0 < $growth < $first / 2)" ||
	fail "top: main grew by $first B/s at $age s, by $growth B/s three times as late: $(cat top.out)"
end_quiet flat $flat 0

# ---- recording, before its first sample: top agrees with status ----
SPPROF_SAMPLING_RATE=1099511627776 SPPROF_OUTPUT=$scratch/none.%p.mlyze \
	start_quiet none
none=$pid
expect 0 "recording" status $none
expect 0 "process $none is recording, and has taken no sample yet" top $none
end_quiet none $none 0

pass
