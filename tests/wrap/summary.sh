#!/bin/sh
# The list of profiles printed at the end, read from the manifest that the
# runtime fills (here the fake runtime, which follows the same protocol):
# one memprof-report command per profile, shell-quoted, partial profiles
# marked, nothing with --quiet, a warning when no profile was written.
. "${srcdir:-.}/tests/wrap/common.sh"

report="memprof-report --top 20"

run 0 "$wrap" -o one.mlyze "$helpers/print-argv" x
expect_in "$work/err" "memprof-wrap: 1 profile written; read it with:"
expect_in "$work/err" "  $report one.mlyze"
[ -f one.mlyze ] || fail "one.mlyze not written"

# Names are shown relative to the current directory when inside it, and
# quoted for the shell when they need it.
mkdir "odd dir"
run 0 "$wrap" -o "odd dir/it's.%p.mlyze" sh -c 'echo $$'
pid=$(cat "$work/out")
expect_in "$work/err" "  $report 'odd dir/it'\\''s.$pid.mlyze"
run 0 "$wrap" -o "$work/-dash.mlyze" "$helpers/print-argv"
expect_in "$work/err" "  $report ./-dash.mlyze"
mkdir elsewhere && cd elsewhere || exit 99
run 0 "$wrap" -o "$work/away.mlyze" "$helpers/print-argv"
expect_in "$work/err" "  $report $work/away.mlyze"
cd "$work" || exit 99

# Several processes, one killed before finalising: it is listed after the
# others, although it started before one of them.  (The fake finalises at
# exit(), which sh skips: sh hands over to a program that calls it.)
run 0 "$wrap" -o 'tree.%p.mlyze' sh -c \
	"sh -c 'kill -KILL \$\$'; $helpers/print-argv; echo \$\$; exec $helpers/print-argv"
pid=$(cat "$work/out")
expect_in "$work/err" "memprof-wrap: 3 profiles written; read them with:"
expect_in "$work/err" "  $report tree.$pid.mlyze"
[ "$(grep -c "^  $report tree\.[0-9]*\.mlyze\$" "$work/err")" -eq 2 ] ||
	fail "finalised profiles not listed"
tail -n 1 "$work/err" | grep -q "^  $report tree\.[0-9]*\.mlyze\.part   # partial: its process ended before finalising\$" ||
	fail "partial profile not listed last, as such"

# A process that outlives COMMAND is still in the making (memprof-wrap
# adopts it, as the subreaper of the command's processes).
if ! skipped_under_emulation "a process that outlives the command" \
	"no PR_SET_CHILD_SUBREAPER"; then
	run 0 "$wrap" -o 'late.%p.mlyze' sh -c "sleep 2 & echo \$!"
	expect_in "$work/err" \
		"# not finalised: its process still runs or was killed"
	expect_in "$work/err" "some processes started by the command still run"
	sleep_pid=$(cat "$work/out")
	kill "$sleep_pid" 2>/dev/null
fi

# --quiet lists nothing.
run 0 "$wrap" -q -o quiet.mlyze "$helpers/print-argv"
[ -s "$work/err" ] && fail "--quiet still printed: $(cat "$work/err")"
[ -f quiet.mlyze ] || fail "quiet.mlyze not written"

# No profile at all (the runtime never loaded): said even with --quiet.
run 0 env FAKE_RUNTIME_INERT=1 "$wrap" -q "$helpers/print-argv"
expect_in "$work/err" "memprof-wrap: no profile was written"
exit 0
