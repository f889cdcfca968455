#!/bin/sh
# undisturbed.sh - the profiled program notices nothing, and nothing the
# runtime recorded is lost: descriptors, file size limits, a full disk, a
# removed directory, exec, and SIGKILL (see undisturbed.c).
. "$(dirname "$0")/common.sh"

prog=$integ_bin/undisturbed
report=$abs_top_builddir/src/memprof-report
export SPPROF_SAMPLING_RATE=1

# same_as_bare NAME ARGS... - runs the program bare and under the runtime
# (profile pattern in $SPPROF_OUTPUT), each in a directory of its own, and
# requires the same exit status and standard output.
same_as_bare() {
	name=$1
	shift
	mkdir -p "$scratch/$name.bare" "$scratch/$name"
	(cd "$scratch/$name.bare" && SPPROF_OUTPUT= "$prog" "$@" >stdout)
	bare_status=$?
	(cd "$scratch/$name" &&
		watched 120 under_runtime "$prog" "$@" >stdout 2>stderr)
	status=$?
	[ "$status" = "$bare_status" ] ||
		fail "$name: exit status $status under the runtime, $bare_status bare"
	cmp -s "$scratch/$name.bare/stdout" "$scratch/$name/stdout" ||
		fail "$name: output differs: $(diff "$scratch/$name.bare/stdout" \
			"$scratch/$name/stdout")"
}

# Descriptors: the program's first open() gets 3, it sees no descriptor
# of ours, and after it closes all of them the profile is still complete
# and its own file holds only its own data.
export SPPROF_OUTPUT=$scratch/fds/fds.mlyze
same_as_bare fds fds
grep -qx 'first open: 3' "$scratch/fds/stdout" ||
	fail "fds: $(head -1 "$scratch/fds/stdout")"
check_profile --complete --min-allocs=200000 "$SPPROF_OUTPUT"

# A file size limit (in blocks of 512 bytes) far below the profile's size:
# no SIGXFSZ, one message, and the streamed file holds what fitted.
export SPPROF_OUTPUT=$scratch/limit/limit.mlyze
(ulimit -f 16 && same_as_bare limit churn 100000) || exit 1
[ "$(grep -c 'libspprof-alloc: cannot write the profile' \
	"$scratch/limit/stderr")" = 1 ] ||
	fail "limit: expected one message, got: $(cat "$scratch/limit/stderr")"
check_profile --streamed --min-allocs=50 "$SPPROF_OUTPUT.part"

# The directory of the profile is removed while the program runs.
mkdir -p "$scratch/vanish/out" "$scratch/vanish.bare/out"
export SPPROF_OUTPUT=$scratch/vanish/out/vanish.mlyze
same_as_bare vanish vanish out 100000
test ! -e "$scratch/vanish/out" || fail "vanish: the directory came back"

# A full disk, where this test may mount a small file system.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir -p "$scratch/full.mnt"
	export SPPROF_OUTPUT=$scratch/full.mnt/full.mlyze
	unshare -m sh -ec "
		mount -t tmpfs -o size=256k none '$scratch/full.mnt'
		cd '$scratch' && mkdir -p full.bare full
		(cd full.bare && '$prog' churn 100000 >stdout)
		(cd full && env LD_PRELOAD='$runtime_so' '$prog' churn 100000 \
			>stdout 2>stderr)
		cmp full.bare/stdout full/stdout
		grep -q 'cannot write the profile.*No space left' full/stderr
		'$integ_bin/mlyze-check' --streamed --min-allocs=100 \
			'$scratch/full.mnt/full.mlyze.part' >/dev/null" ||
		fail "full disk: $(cat "$scratch/full/stderr" 2>/dev/null)"
	# Room for the streamed file, not for the final one beside it:
	# memprof-wrap says so, and the streamed file holds every event.
	mkdir -p "$scratch/unwritten.mnt"
	unshare -m sh -ec "
		mount -t tmpfs -o size=4m none '$scratch/unwritten.mnt'
		cd '$scratch/unwritten.mnt'
		'$abs_top_builddir/src/memprof-wrap' -r 1 -o w.mlyze \
			'$prog' churn 100000 >'$scratch/unwritten.stdout' \
			2>'$scratch/unwritten.stderr'
		grep -q '# not finalised: the final file could not be written (No space left on device)' \
			'$scratch/unwritten.stderr'
		'$integ_bin/mlyze-check' --streamed --min-allocs=100000 \
			w.mlyze.part >/dev/null" ||
		fail "final file on a full disk: $(cat "$scratch/unwritten.stderr")"
else
	echo "full disk: skipped (needs root and mount namespaces)"
fi

# exec: the replaced image leaves a finished profile with what it held,
# marked as replaced; the new image writes its own.
export SPPROF_OUTPUT=$scratch/exec/exec.%p.mlyze
same_as_bare exec exec echo replaced
set -- "$scratch"/exec/exec.*.mlyze
[ $# = 2 ] || fail "exec: expected two profiles, got: $*"
first=$(ls "$scratch"/exec/exec.[0-9]*.mlyze | grep -v '\.[0-9]*\.[0-9]*\.mlyze$')
check_profile --complete --size=1048576 --min-allocs=8 "$first"
grep -aq '"ended_by":"exec","exec_program":"echo"' "$first" ||
	fail "exec: $first is not marked as replaced by exec of echo"

# SIGKILL: everything recorded before the kill is in the streamed file.
mkdir -p "$scratch/kill"
SPPROF_OUTPUT=$scratch/kill/kill.mlyze \
	start_under_runtime "$prog" hold 48 >"$scratch/kill/stdout"
pid=$started_pid
wait_for $pid 30 grep -q ready "$scratch/kill/stdout" ||
	{ kill -9 $pid; fail "kill: never ready"; }
kill -9 $pid
wait $pid
check_profile --streamed --size=1048576 --min-allocs=48 \
	"$scratch/kill/kill.mlyze.part"
live=$("$report" --json --at end "$scratch/kill/kill.mlyze.part" \
	2>"$scratch/kill/report.stderr" | sed -n '/"end": {/{n;s/[^0-9]//gp;q}')
! grep -v 'not finalised' "$scratch/kill/report.stderr" ||
	fail "kill: the streamed file does not read cleanly"
[ "${live:-0}" -ge $((48 << 20)) ] ||
	fail "kill: the report shows ${live:-no} live bytes, not 48 MiB"

# SIGKILL at any moment (inside an event, or while the final file is
# written at exit) leaves only files that read: the streamed file, or the
# finished profile, and nothing half made beside them.
mkdir -p "$scratch/kills"
for i in $(seq 40); do
	SPPROF_OUTPUT=$scratch/kills/k$i.mlyze \
		start_under_runtime "$prog" churn 400000 >/dev/null
	pid=$started_pid
	sleep "$(awk -v i="$i" 'BEGIN { srand(i); printf "%.3f", rand() * 0.15 }')"
	kill -9 $pid 2>/dev/null
	wait $pid
done
for f in "$scratch"/kills/*; do
	case $f in
	*.mlyze | *.mlyze.part) ;;
	*) fail "kills: $f left behind" ;;
	esac
	"$report" "$f" >/dev/null 2>"$scratch/kills.stderr" ||
		fail "kills: $f does not read: $(cat "$scratch/kills.stderr")"
done

pass
