# blocks-common.sh - sourced by blocks.sh and bench/blocks-coverage.sh:
# runs of blocks-program under the runtime, each with the reports whose
# coverage tests/report/blocks-coverage.py measures.

# The options of each report a run gets.
blocks_options() {
	case $1 in
	temporary) echo --temporary=1s --all ;;
	threads) echo --group-by thread ;;
	sizes) echo --histogram ;;
	site-sizes) echo --histogram --site churn_main ;;
	esac
}

# blocks_runs RUNTIME PROGRAM REPORT DIR RUNS SCALE [RATE]: runs 1 to RUNS,
# seeded by their number, into DIR (runN.truth.json and runN.KIND.json),
# sampled once per RATE bytes (default: the runtime's, 512 KiB).
blocks_runs() {
	_run=1
	while [ "$_run" -le "$5" ]; do
		LD_PRELOAD=$1 SPPROF_OUTPUT=$4/run$_run.mlyze SPPROF_SEED=$_run \
			SPPROF_SAMPLING_RATE=${7:-524288} \
			"$2" "$6" >"$4/run$_run.truth.json" || return 1
		for _kind in temporary threads sizes site-sizes; do
			# shellcheck disable=SC2046 # the options are words
			"$3" --format json $(blocks_options $_kind) \
				"$4/run$_run.mlyze" >"$4/run$_run.$_kind.json" ||
				return 1
		done
		_run=$((_run + 1))
	done
}
