#!/bin/sh
# deepbind.sh - blocks the program allocated and a library opened with
# RTLD_DEEPBIND frees (with the C library's free()), and the other way
# round, run under memprof-wrap as bare, at the default rate (where the
# large blocks are all but surely sampled) and with every block sampled;
# and those frees reach the profile: no block is left live at the end
# but what the program never freed (see deepbind.c).  With every block
# sampled, blocks freed by the C library's free() itself, past the
# runtime, leave no record behind to clash with the next block at their
# address.
. "$(dirname "$0")/common.sh"

prog=$integ_bin/deepbind
plugin=$integ_bin/.libs/libdeepbind-plugin.so
wrap=$abs_top_builddir/src/memprof-wrap
report=$abs_top_builddir/src/memprof-report

# Each run: the rate, then the program's arguments past the plugin.
for run in "512K" "1" "1 past"; do
	set -- $run
	rate=$1 name=$(echo "$run" | tr ' ' -)
	shift
	"$prog" "$plugin" "$@" >"$scratch/bare.out" ||
		fail "bare run failed: $?"
	mkdir "$scratch/$name"
	watched 300 "$wrap" -q -r "$rate" -o "$scratch/$name/p.mlyze" \
		"$prog" "$plugin" "$@" >"$scratch/$name/out" \
		2>"$scratch/$name/err" ||
		fail "$name: exit status $? under memprof-wrap: $(cat "$scratch/$name/err")"
	cmp -s "$scratch/bare.out" "$scratch/$name/out" ||
		fail "$name: output differs"
	check_profile "$scratch/$name/p.mlyze"
	"$report" --at end --format json "$scratch/$name/p.mlyze" \
		>"$scratch/$name/end.json" 2>"$scratch/$name/report.err" ||
		fail "$name: the report failed: $(cat "$scratch/$name/report.err")"
	! grep -q 'already live' "$scratch/$name/report.err" ||
		fail "$name: $(cat "$scratch/$name/report.err")"
done
pass
