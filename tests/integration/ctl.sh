#!/bin/sh
# ctl.sh - memprof-ctl on running processes: list, status, snapshot, start
# and stop windows of a dormant runtime, and the errors it explains (see
# hold-program.c, which holds a known live heap while its threads churn).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

ctl=$abs_top_builddir/src/memprof-ctl
report=$abs_top_builddir/src/memprof-report
wrap=$abs_top_builddir/src/memprof-wrap
hold=$integ_bin/hold-program
held_kib=8192
export XDG_RUNTIME_DIR=$scratch/xdg
export SPPROF_SAMPLING_RATE=65536
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"

# live_within FILE - the live heap at the end of a profile is the held one
# within twice its 95 % interval (a chance of about 1e-4 to be outside).
live_within() {
	"$report" --format json "$1" >"$1.json" || fail "$1: no report"
	/usr/bin/python3 - "$1.json" $((held_kib * 1024)) <<'PY' ||
import json, sys
end = json.load(open(sys.argv[1]))["end"]
truth = int(sys.argv[2])
bytes, error = end["bytes"], end["bytes_ci95"]
sys.exit(0 if abs(bytes - truth) <= 2 * error + 65536 else 1)
PY
		fail "$1: live heap not within the interval of $((held_kib))KiB: $(cat "$1.json" | head -c 600)"
}

# growth_within FILE - top's row of leak_steadily (which leaks 512 KiB a
# second by the clock) has enough samples and a growth within twice its
# 95 % interval of that rate, plus one second's discreteness; status 2
# while too few samples are in.
growth_within() {
	/usr/bin/python3 - "$1" $((512 * 1024)) <<'PY'
import re, sys
units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
size = r"([-+]?[\d.]+) (B|KiB|MiB|GiB)"
row = re.compile(r"^[ ~] *%s +%s +%s +%s +[\d.]+%% +(\d+) .* leak_steadily$"
                 % (size, size, size, size))
value = lambda m, i: float(m.group(i)) * units[m.group(i + 1)]
for line in open(sys.argv[1]):
    m = row.match(line.rstrip("\n"))
    if m:
        if int(m.group(9)) < 40:
            sys.exit(2)
        growth, error, truth = value(m, 5), value(m, 7), int(sys.argv[2])
        sys.exit(0 if abs(growth - truth) <= 2 * error + truth / 16 else 1)
sys.exit(1)
PY
}

# A process whose leak_steadily() leaks at a known rate, for top.
SPPROF_OUTPUT=$scratch/leak.%p.mlyze start_hold leak leak
leak=$pid

# ---- a recording process: list, status, snapshots ----
SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_hold rec
rec=$pid
expect 0 "^$rec *recording .*hold-program" list
expect 0 "rec.$rec.mlyze.part" list
expect 0 "samples: " status $rec
expect 0 "snap1.mlyze" snapshot $rec -o snap1.mlyze
expect 0 "snap2.mlyze" snapshot $rec -o "$scratch/snap2.mlyze"
expect 1 "snap1.mlyze exists already" snapshot $rec -o snap1.mlyze
grep -aq '"complete":true' snap1.mlyze || fail "snapshot not finalised"
grep -aq '"ended_by":"snapshot"' snap1.mlyze || fail "snapshot not labelled"
live_within snap1.mlyze
"$report" --leaks snap2.mlyze >/dev/null 2>&1 || fail "--leaks on a snapshot"
"$report" --base snap1.mlyze snap2.mlyze >/dev/null 2>&1 ||
	fail "--base between two snapshots"

# The program sees nothing of ours: descriptors, threads, handlers (but
# in /proc the one of SIGURG, which brings requests to a process that does
# not allocate; its sigaction() reads its own: ctl-quiet.sh).
fds() { ls "/proc/$1/fd" | wc -l; }
urg_bit=$((1 << 22)) # SIGURG, 23 on Linux
caught() {
	printf '%x\n' $((0x$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status") & ~urg_bit))
}
LD_PRELOAD= "$hold" $held_kib "$scratch/bare.stop" >bare.out &
bare=$!
wait_for_line $bare bare.out holding
[ "$(fds $rec)" = "$(fds $bare)" ] || fail "descriptors: $(ls -l /proc/$rec/fd)"
[ "$(caught $rec)" = "$(caught $bare)" ] || fail "signal handlers differ"
[ "$(ls /proc/$rec/task | wc -l)" = "$(ls /proc/$bare/task | wc -l)" ] ||
	fail "threads differ"
end_hold bare $bare

# top: redrawn in a terminal until q; written once elsewhere; the growth
# of the leaking site is its known rate.
for i in $(seq 120); do
	"$ctl" top $leak -d 1 >top.out 2>&1 ||
		fail "top without a terminal: $(cat top.out)"
	growth_within top.out
	growth=$?
	[ $growth = 2 ] || break
	sleep 0.5
done
grep -q "Live at end" top.out || fail "top without a terminal: $(cat top.out)"
# Its stream is not finalised because it still runs, not because it ended.
grep -q "recording (the process is running)" top.out ||
	fail "top does not say the process is running: $(cat top.out)"
! grep -q "not finalised\|ended by ?" top.out ||
	fail "top calls a running process ended: $(cat top.out)"
! grep -q "$(printf '\033')" top.out || fail "screen codes without a terminal"
[ $growth = 0 ] || fail "leak_steadily does not grow by 512 KiB/s: $(cat top.out)"
if command -v tmux >/dev/null; then
	tmux -S tmux.sock new-session -d -x 160 -y 50 \
		"XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR '$ctl' top $leak -d 1; echo top-ended \$?; sleep 600"
	# read_screen: the terminal as it is now, kept in pane.txt (the last one
	# read stays there); in_tmux_fail WHAT: fails with it.
	read_screen() {
		tmux -S tmux.sock capture-pane -p >pane.new && mv pane.new pane.txt
	}
	in_tmux_fail() {
		tmux -S tmux.sock kill-server
		fail "$1: $(cat pane.txt)"
	}
	# As long as top runs, however slowly a loaded machine starts it.
	for i in $(seq 3000); do
		read_screen
		grep -q " leak_steadily$\|^top-ended" pane.txt && break
		sleep 0.2
	done
	grep -q "memprof-ctl top: process $leak, every 1 s; q quits" pane.txt &&
		grep -q "GROWTH/s" pane.txt &&
		grep -q " leak_steadily$" pane.txt ||
		in_tmux_fail "top in tmux"
	tmux -S tmux.sock send-keys q
	for i in $(seq 3000); do
		read_screen
		grep -q "^top-ended" pane.txt && break
		sleep 0.2
	done
	grep -q "top-ended 0" pane.txt || in_tmux_fail "q did not end top"
	tmux -S tmux.sock kill-server
else
	echo "tmux not installed: top in a terminal not tested"
fi
end_hold leak $leak

# top on a stream memprof-report cannot read: no empty report, but an
# error.
start_unreadable_hold bad
expect 1 "could not report on .*bad.$pid.mlyze.part" top $pid
end_hold bad $pid

expect 0 "rec.$rec.mlyze" stop $rec
grep -aq '"ended_by":"stop"' "rec.$rec.mlyze" || fail "stop not labelled"
expect 0 "^$rec *dormant" list
expect 1 "not recording" snapshot $rec
end_hold rec $rec
[ ! -e "$XDG_RUNTIME_DIR/spprof/$rec" ] || fail "entry left behind"

# ---- a dormant runtime: recording windows on request ----
SPPROF_RUNTIME=$runtime_so "$wrap" -q --dormant -o "$scratch/win.%p.mlyze" \
	-- "$hold" $held_kib "$scratch/dorm.stop" >dorm.out 2>dorm.err &
wrapper=$!
wait_for_line $wrapper dorm.out holding
dorm=$(sed -n 's/^\([0-9][0-9]*\) *dormant .*hold-program.*/\1/p' \
	"$( "$ctl" list >list.out; echo list.out)")
[ -n "$dorm" ] || fail "dormant process not listed: $(cat list.out)"
expect 1 "not recording" stop $dorm
# The name given is the profile's, %p filled in.
expect 0 "recording to $scratch/win.$dorm.mlyze$" start $dorm
expect 1 "already recording" start $dorm
expect 0 "win.$dorm.mlyze" stop $dorm
expect 0 "recording to $scratch/second.mlyze" start $dorm -o second.mlyze
expect 0 "$scratch/second.mlyze" stop $dorm
grep -aq '"started_by":"memprof-ctl start"' "win.$dorm.mlyze" ||
	fail "window not labelled"
grep -aq '"ended_by":"stop"' second.mlyze || fail "window end not labelled"
"$report" "win.$dorm.mlyze" >win.report 2>&1 || fail "no report of a window"
grep -q "window *started by memprof-ctl start, ended by stop" win.report ||
	fail "the report does not say how the window came to be"
grep -q "blocks allocated before it are unknown" win.report ||
	fail "the report does not say what a window cannot know"
end_hold dorm $wrapper

# ---- a forked child has an entry of its own ----
rm -f fork.stop
start_under_runtime /usr/bin/python3 -c '
import os, sys, time
child = os.fork()
print(os.getpid(), flush=True)
while not os.path.exists(sys.argv[1]):
    blocks = [bytearray(4096) for _ in range(64)]
    time.sleep(0.001)
if child:
    os.waitpid(child, 0)
' "$scratch/fork.stop" >fork.out
forker=$started_pid
wait_for $forker 30 eval '[ "$(wc -l <fork.out)" = 2 ]' ||
	fail "the parent and the child did not both say their pid: $(cat fork.out)"
for p in $(cat fork.out); do
	expect 0 "^$p *dormant" list
	expect 0 "pid: *$p" status $p
done
touch fork.stop
wait $forker || fail "the forking program failed"
for p in $(cat fork.out); do
	[ ! -e "$XDG_RUNTIME_DIR/spprof/$p" ] || fail "entry of $p left behind"
done

# ---- errors ----
expect 2 "give one PID" status
expect 2 "is not a process id" status abc
expect 2 "unknown command" frobnicate
# Every option of serve is in the help.
for option in listen web-config-file max-connections max-per-client \
	timeout top-sites growth-window service-variable; do
	expect 0 "^  --$option=" --help
done
# And its paths, a service's by name and the discovery of targets.
expect 0 "heap?pid=N|service=NAME" --help
expect 0 "/targets" --help
expect 1 "no process 999999999" status 999999999
sleep 30 &
other=$!
expect 1 "is not running the profiler's runtime" status $other
expect 1 "memprof-ctl attach $other" status $other
kill $other

SPPROF_OUTPUT=$scratch/idle.%p.mlyze start_hold idle idle
idle=$pid
# One that allocates nothing answers all the same (ctl-quiet.sh tests more).
expect 0 "recording" status $idle
# A pid reused: an entry whose process started at another time.
/usr/bin/python3 - "$XDG_RUNTIME_DIR/spprof/$idle" "$XDG_RUNTIME_DIR/spprof/$$" $$ <<'PY'
import struct, sys
page = bytearray(open(sys.argv[1], "rb").read())
page[8:16] = struct.pack("<q", int(sys.argv[3]))
open(sys.argv[2], "wb").write(page)
PY
expect 1 "its pid now names another process" status $$
[ ! -e "$XDG_RUNTIME_DIR/spprof/$$" ] || fail "stale entry kept"
sleep 30 &
other=$!
mv "$XDG_RUNTIME_DIR/spprof" "$XDG_RUNTIME_DIR/moved"
expect 1 "registry directory .* is gone" status $idle
# Without the directory (as on a host where no process has registered
# yet), a process without the runtime is still pointed to attach.
expect 1 "not running the profiler's runtime .*memprof-ctl attach $other.*; no process has registered in $XDG_RUNTIME_DIR/spprof" \
	status $other
mv "$XDG_RUNTIME_DIR/moved" "$XDG_RUNTIME_DIR/spprof"
kill $other
kill -9 $idle
wait $idle 2>/dev/null
expect 1 "process $idle has exited" status $idle
[ ! -e "$XDG_RUNTIME_DIR/spprof/$idle" ] || fail "entry of a killed process kept"

pass
