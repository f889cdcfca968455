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
	wait_for_line $pid "$name.out" "$ready"
	expect 0 "process $pid: recording to" attach $pid -o "$name.%p.mlyze"
	touch "$name.go"
	sleep 1
	finish "$name" $pid "$expected"
	attached_report "$name.$pid.mlyze" "$function"
}

# ---- threads allocating at the attach; earlier blocks freed after it;
# detach, then attach again ----
"$integ_bin/attach-program" "$scratch/mt.go" "$scratch/mt.stop" \
	>mt.out 2>mt.err &
mt=$!
programs="$programs $mt"
wait_for_line $mt mt.out ready
# No process has registered yet: the directory is not there, and status
# points to attach all the same.
expect 1 "process $mt is not running the profiler's runtime (load it into the running process with memprof-ctl attach $mt" \
	status $mt
expect 0 "process $mt: recording to $scratch/mt1.$mt.mlyze$" \
	attach $mt -o mt1.%p.mlyze
expect 0 "^$mt *recording" list
touch mt.go
sleep 1
expect 0 "mt1.$mt.mlyze" detach $mt
expect 0 "^$mt *dormant" list
attached_report "mt1.$mt.mlyze" hold_after_attach
expect 0 "process $mt: recording to $scratch/mt2.$mt.mlyze" \
	attach $mt -o mt2.$mt.mlyze
sleep 0.5
finish mt $mt "ready\ngave back 55 early blocks\ndone\n"
attached_report "mt2.$mt.mlyze" churn
grep -q "ended by exit" "mt2.$mt.mlyze.txt" || fail "second window not ended by exit"

# ---- Debian's python3 running a script: Python frames ----
cat >script.py <<'PY'
import os, sys, time
def build_table(n):
    return [str(i) * 20 for i in range(n)]
kept = [build_table(1000)]
print("ready", flush=True)
while not os.path.exists(sys.argv[1]):
    kept.append(build_table(1000))
    del kept[0]
    time.sleep(0.001)
print("done")
PY
attach_run py ready "ready\ndone\n" build_table \
	/usr/bin/python3 script.py "$scratch/py.stop"

# ---- Python frames in a window started later, on request ----
rm -f dpy.stop
SPPROF_RUNTIME=$runtime_so "$abs_top_builddir/src/memprof-wrap" -q --dormant \
	-o "$scratch/dpy.%p.mlyze" -- /usr/bin/python3 script.py \
	"$scratch/dpy.stop" >dpy.out 2>dpy.err &
wrapper=$!
programs="$programs $wrapper"
wait_for_line $wrapper dpy.out ready
dpy=$(sed -n 's/^\([0-9][0-9]*\) *dormant .*script.py.*/\1/p' \
	"$( "$ctl" list >list.out; echo list.out)")
[ -n "$dpy" ] || fail "dormant python3 not listed: $(cat list.out)"
expect 0 "recording to" start $dpy -o dpy-window.mlyze
sleep 1
expect 0 "dpy-window.mlyze" stop $dpy
finish dpy $wrapper "ready\ndone\n"
"$report" --all dpy-window.mlyze >dpy-window.txt 2>&1 &&
	grep -q build_table dpy-window.txt ||
	fail "no Python frames in a window started later: $(cat dpy-window.txt)"

# ---- a C++ program built -O2, full RELRO ----
attach_run cxx ready "ready\nholding 20000 entries\ndone\n" grow_catalogue \
	"$integ_bin/attach-cxx" "$scratch/cxx.go" "$scratch/cxx.stop"

# ---- a plugin loaded after the attach, found by the program's run path:
# its allocations are sampled, and blocks the runtime sampled may be freed
# by it ----
attach_run dl ready "ready\nloaded\ndone\n" plugin_hold_blocks \
	"$integ_bin/attach-dlopen" "$scratch/dl.go" "$scratch/dl.stop"

# ---- a program bound to two allocators is refused, its slots untouched
"$integ_bin/attach-deepbind" \
	"$integ_bin/.libs/libattach-deepbind-plugin.so" "$scratch/deep.stop" \
	>deep.out 2>deep.err &
deep=$!
programs="$programs $deep"
wait_for_line $deep deep.out ready
expect 1 "process $deep loaded the runtime, which records nothing: the program allocates with .*libc.so.6 and with .*libattach-deepbind-plugin.so" \
	attach $deep
expect 1 "process $deep cannot be recorded: the program allocates with" \
	status $deep
touch deep.stop
wait $deep || fail "deep: exit status $?: $(cat deep.err)"
[ "$(cat deep.out)" = "$(printf "ready\ndone")" ] || fail "deep: $(cat deep.out)"
grep -q "libspprof-alloc: loaded late, the program allocates with" deep.err ||
	fail "deep: the runtime did not say why: $(cat deep.err)"

# ---- hold-program, bare ----
attach_run hold holding "holding 4194304 bytes\ndone\n" churn \
	"$integ_bin/hold-program" 4096 "$scratch/hold.stop"

# ---- errors ----
"$integ_bin/hold-program" 64 "$scratch/err.stop" >err.out 2>err.err &
victim=$!
programs="$programs $victim"
wait_for_line $victim err.out holding
PATH=/nonexistent "$ctl" attach $victim >ctl.out 2>&1 &&
	fail "attach without gdb succeeded"
grep -q "attach needs gdb, which is not on PATH: install it (Debian, Ubuntu: apt-get install gdb" ctl.out ||
	fail "no gdb: $(cat ctl.out)"
expect 1 "no process 999999999" attach 999999999
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# nobody runs a copy: the build tree may be in a private directory.
	as_nobody=$(mktemp -d /tmp/memprof-attach.XXXXXX) || exit 99
	chmod 755 "$as_nobody"
	cp "$abs_top_builddir/src/.libs/memprof-ctl" \
		"$abs_top_builddir/src/mlyze/.libs/libmlyze.so.0" \
		"$runtime_so" "$as_nobody/"
	chmod 755 "$as_nobody"/*
	# refused_as_nobody PID TEXT - attach as nobody fails saying TEXT.
	refused_as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env XDG_RUNTIME_DIR="$scratch/nobody" \
			LD_LIBRARY_PATH="$as_nobody" \
			SPPROF_RUNTIME="$as_nobody/libspprof-alloc.so.0" \
			"$as_nobody/memprof-ctl" attach $1 >ctl.out 2>&1 &&
			fail "attach as nobody to $1 succeeded"
		grep -q "$2" ctl.out || fail "attach as nobody: $(cat ctl.out)"
	}
	refused_as_nobody $victim \
		"process $victim belongs to user 0: run memprof-ctl as that user or as root"
	# nobody's own processes: one that made itself undumpable, and one
	# whose real and effective users differ, as a set-user-ID program's.
	cat >"$as_nobody/wait.py" <<'PY'
import ctypes, os, sys, time
if sys.argv[2] == "undumpable":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
print("ready", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
PY
	for kind in undumpable setuid; do
		ids=--reuid=65534
		[ $kind = setuid ] && ids="--ruid=65534 --euid=1"
		(cd "$as_nobody" && exec setpriv $ids --regid=65534 \
			--clear-groups /usr/bin/python3 wait.py \
			"$as_nobody/$kind.stop" $kind) >$kind.out 2>&1 &
		target=$!
		programs="$programs $target"
		wait_for_line $target $kind.out ready
		refused_as_nobody $target "process $target runs a set-user-ID or set-group-ID program, or made itself undumpable: the kernel lets only a process with CAP_SYS_PTRACE attach; run memprof-ctl as root"
		touch "$as_nobody/$kind.stop"
		wait $target || fail "$kind: exit status $?: $(cat $kind.out)"
	done
	rm -rf "$as_nobody"
	# root without CAP_SYS_PTRACE (as in a container), on a process of
	# root's, which has it: the kernel refuses what memprof-ctl allows.
	setpriv --bounding-set=-sys_ptrace "$ctl" attach $victim >ctl.out 2>&1 &&
		fail "attach without CAP_SYS_PTRACE succeeded"
	grep -q "the kernel refused ptrace on process $victim (in a container: it needs CAP_SYS_PTRACE, e.g. docker run --cap-add=SYS_PTRACE" ctl.out ||
		fail "no CAP_SYS_PTRACE: $(cat ctl.out)"
else
	echo "not root: refusals for other users' processes not tested"
fi
finish err $victim "holding 65536 bytes\ndone\n"

# ---- programs that allocate with another allocator than the C
# library's: every call goes on to it, and the blocks from before the
# attach go back to it (given to the C library's, they crash the program)
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
if [ -n "$jemalloc" ]; then
	attach_run je ready "ready\ngave back 55 early blocks\ndone\n" \
		hold_after_attach env LD_PRELOAD="$jemalloc" \
		"$integ_bin/attach-program" "$scratch/je.go" "$scratch/je.stop"
else
	echo "libjemalloc2 not installed: attach to a program using it not tested"
fi
# Debian's redis-server, linked with jemalloc: keys set before the attach
# are deleted after it.
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
	sockets=$(mktemp -d /tmp/memprof-redis.XXXXXX) || exit 99
	redis_cli() { redis-cli -s "$sockets/redis.sock" "$@"; }
	redis-server --port 0 --unixsocket "$sockets/redis.sock" --save "" \
		--appendonly no --dir "$scratch" >redis.out 2>redis.err &
	redis=$!
	programs="$programs $redis"
	wait_for $redis 30 eval 'redis_cli ping 2>/dev/null | grep -q PONG' ||
		fail "redis-server does not answer: $(cat redis.err)"
	fill="for i=1,ARGV[2] do redis.call('set',ARGV[1]..i,string.rep('x',100)) end"
	redis_cli eval "$fill" 0 early 20000 >/dev/null
	expect 0 "process $redis: recording to" attach $redis -o redis.%p.mlyze
	redis_cli eval "$fill" 0 key 100000 >/dev/null
	redis_cli eval "for i=1,20000 do redis.call('del','early'..i) end" 0 \
		>/dev/null
	keys=$(redis_cli dbsize)
	redis_cli shutdown nosave >/dev/null 2>&1
	wait $redis || fail "redis-server: exit status $?: $(tail -5 redis.out)"
	rm -rf "$sockets"
	[ "$keys" = 100000 ] || fail "redis-server holds $keys keys, not 100000"
	attached_report "redis.$redis.mlyze" _sdsnewlen
else
	echo "redis-server not installed: attach to it not tested"
fi
[ -z "$(ls "$XDG_RUNTIME_DIR/spprof")" ] ||
	fail "entries left behind: $(ls "$XDG_RUNTIME_DIR/spprof")"
pass
