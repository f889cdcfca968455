#!/bin/sh
# attach.sh - memprof-ctl attach and detach on programs started without
# the runtime: a C program allocating on every thread, which frees its
# earlier blocks (4 KiB-aligned ones among them) after the attach, also
# with jemalloc preloaded; Debian's python3 running a script; a C++
# program built with -O2; a program that loads a plugin after the attach;
# hold-program; Debian's redis-server (jemalloc).
# Each keeps its output and exit status; each report names its functions
# and says that blocks from before the attach are unknown.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

ctl=$abs_top_builddir/src/memprof-ctl
report=$abs_top_builddir/src/memprof-report
export XDG_RUNTIME_DIR=$scratch/xdg
export SPPROF_SAMPLING_RATE=65536
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"

skipped_under_emulation "memprof-ctl attach" \
	"gdb's ptrace reaches the emulator's process, not the program it runs" &&
	skip "under an emulator"
command -v gdb >/dev/null || skip "gdb is not installed (apt-get install gdb)"
sleep 30 &
sleeper=$!
gdb -p $sleeper -batch -nx -ex 'call (int)getpid()' >probe.out 2>&1
kill $sleeper
if grep -q "ptrace: Operation not permitted" probe.out; then
	skip "ptrace is not permitted here: $(grep ptrace probe.out)"
fi
# gdb 13 sizes the register area it writes back after a call from the
# features it knows; on a processor with AMX the kernel wants the whole
# area and refuses the write, so gdb can call nothing in a process here.
if grep -q "Couldn't write extended state" probe.out; then
	# memprof-ctl must find that out before it stops the program.
	sleep 3 &
	sleeper=$!
	"$ctl" attach $sleeper -o left.%p.mlyze >left.out 2>&1 &&
		fail "attach succeeded where gdb cannot call: $(cat left.out)"
	grep -q "was left alone" left.out || fail "attach: $(cat left.out)"
	wait $sleeper || fail "the process refused was disturbed: status $?"
	skip "gdb $(gdb --version | sed -n '1s/.* //p') cannot call a function" \
		"in a process on this processor: $(grep -m1 "Couldn't write" probe.out)"
fi

# attached_report PROFILE FUNCTION - the report of an attached profile
# names FUNCTION and says what it cannot know.
attached_report() {
	"$report" --all "$1" >"$1.txt" 2>&1 || fail "$1: no report: $(cat "$1.txt")"
	grep -q "started by memprof-ctl attach" "$1.txt" ||
		fail "$1: not labelled as attached: $(cat "$1.txt")"
	grep -q "blocks allocated before it are unknown" "$1.txt" ||
		fail "$1: does not say what it cannot know"
	grep -q "$2" "$1.txt" || fail "$1: $2 not named: $(cat "$1.txt")"
}

# finish NAME PID EXPECTED - the program ends with status 0 and the output
# it has without the runtime.
finish() {
	touch "$1.stop"
	wait "$2" || fail "$1: exit status $?: $(cat "$1.err")"
	printf "$3" >"$1.expected"
	cmp -s "$1.out" "$1.expected" || fail "$1: output changed: $(cat "$1.out")"
	[ ! -s "$1.err" ] || fail "$1: said on stderr: $(cat "$1.err")"
}

# attach_run NAME READY EXPECTED FUNCTION COMMAND... - runs COMMAND bare
# until it says READY, attaches, lets it go on (NAME.go) and end
# (NAME.stop): EXPECTED is its whole output; the report names FUNCTION.
attach_run() {
	name=$1 ready=$2 expected=$3 function=$4
	shift 4
	"$@" >"$name.out" 2>"$name.err" &
	pid=$!
	programs="$programs $pid"
	wait_for_line "$name.out" "$ready"
	expect 0 "process $pid: recording to" attach $pid -o "$name.%p.mlyze"
	touch "$name.go"
	sleep 1
	finish "$name" $pid "$expected"
	attached_report "$name.$pid.mlyze" "$function"
}

programs=""
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
if [ -n "$jemalloc" ]; then
	attach_run je ready "ready\ngave back 55 early blocks\ndone\n" \
		hold_after_attach env LD_PRELOAD="$jemalloc" \
		"$integ_bin/attach-program" "$scratch/je.go" "$scratch/je.stop"
else
	echo "libjemalloc2 not installed: attach to a program using it not tested"
fi
pass 2>/dev/null || exit 0
