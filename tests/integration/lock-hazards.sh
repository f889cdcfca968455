#!/bin/sh
# lock-hazards.sh - every block sampled, programs allocate and free while
# they hold a lock of the C library or of the dynamic loader (see
# lock-hazards.c): the runtime's sampled path never waits for such a lock,
# nor for one of its own that a thread waiting for such a lock holds.
# Each case must finish (a deadlock is a timeout) and leave its profile.
. "$(dirname "$0")/common.sh"

# Copies of one library, each loaded at an address of its own.
plugins=
for i in $(seq 0 63); do
	cp "$integ_bin/.libs/liblock-hazards-plugin.so" "$scratch/plugin$i.so"
	plugins="$plugins $scratch/plugin$i.so"
done
export SPPROF_SAMPLING_RATE=1

# run_case CASE RUNS ARGS... - the runs a case needs to meet its hazard
# nearly every time on a runtime that has it (the window of the loader's
# lock is narrow).
run_case() {
	case=$1 runs=$2
	shift 2
	for run in $(seq "$runs"); do
		dir=$scratch/$case/$run
		mkdir -p "$dir"
		export SPPROF_OUTPUT=$dir/%p.mlyze
		run_preloaded 30 "$integ_bin/lock-hazards" "$case" "$@" \
			>"$dir/out" 2>"$dir/err" || fail "$case, run $run"
		grep -qx done "$dir/err" || fail "$case: $(cat "$dir/err")"
		ls "$dir"/*.mlyze >/dev/null 2>&1 || fail "$case: no profile"
	done
}

run_case getattr 1
# shellcheck disable=SC2086 # one argument per library
run_case dlopen 30 $plugins
run_case fork 5
run_case environ 1
run_case stdio 1
pass
