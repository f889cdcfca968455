#!/bin/sh
# static.sh - a statically linked program ignores LD_PRELOAD: it runs as
# usual under the runtime's settings and leaves no profile.
. "$(dirname "$0")/common.sh"

SPPROF_OUTPUT=$scratch/static.mlyze SPPROF_SAMPLING_RATE=4096
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE
run_preloaded 30 "$integ_bin/forker-static" leaf
test -z "$(files_in "$scratch")" || fail "a static program left a profile"
pass
