#!/bin/sh
# titles.sh - a program that rewrites its arguments to show what it does
# (retitle.c): its profile keeps the command line it started with, and
# the new title apart, in the metadata and in memprof-report's reports.
. "$(dirname "$0")/common.sh"

skipped_under_emulation "titles" \
	"its /proc/self/cmdline shows the arguments passed, not as rewritten" &&
	exit 77

report=$abs_top_builddir/src/memprof-report

SPPROF_OUTPUT=$scratch/title.mlyze SPPROF_SAMPLING_RATE=4096
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE
run_preloaded 60 "$integ_bin/retitle" "retitle: worker" \
	first-argument second-argument
unset SPPROF_OUTPUT SPPROF_SAMPLING_RATE

"$report" --format=json --top=1 "$scratch/title.mlyze" >"$scratch/json" ||
	fail "memprof-report cannot read the profile"
/usr/bin/python3 - "$scratch/json" "$integ_bin/retitle" <<'PYTHON' ||
import json, sys
profile = json.load(open(sys.argv[1]))["profiles"][0]
started = [sys.argv[2], "retitle: worker", "first-argument", "second-argument"]
if profile["command_line"] != started:
    sys.exit("command line %r, not %r" % (profile["command_line"], started))
if profile["title"] != "retitle: worker":
    sys.exit("title %r" % (profile["title"],))
PYTHON
	fail "the profile does not keep the command line apart from the title"

"$report" --top=1 "$scratch/title.mlyze" >"$scratch/text" ||
	fail "memprof-report cannot read the profile"
grep -q "^  title *retitle: worker\$" "$scratch/text" ||
	fail "no title in the text report: $(cat "$scratch/text")"
grep -q "^  command .*retitle 'retitle: worker' first-argument second-argument\$" \
	"$scratch/text" || fail "not the command line of the start: $(cat "$scratch/text")"

# A program that leaves its arguments alone has no title.
SPPROF_OUTPUT=$scratch/plain.mlyze
export SPPROF_OUTPUT
run_preloaded 60 "$integ_bin/undisturbed" churn 1000 >/dev/null
unset SPPROF_OUTPUT
"$report" --format=json --top=1 "$scratch/plain.mlyze" >"$scratch/json" ||
	fail "memprof-report cannot read the profile"
grep -q '"title": null' "$scratch/json" || fail "a title without a change"
pass
