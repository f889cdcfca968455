#!/bin/sh
# deepbind.sh - blocks the program allocated and a library opened with
# RTLD_DEEPBIND frees (with the C library's free()), and the other way
# round, run under memprof-wrap as bare, at the default rate (where the
# large blocks are all but surely sampled) and with every block sampled;
# and those frees reach the profile: no block is left live at the end
# but what the program never freed (see deepbind.c).
. "$(dirname "$0")/common.sh"

prog=$integ_bin/deepbind
plugin=$integ_bin/.libs/libdeepbind-plugin.so
wrap=$abs_top_builddir/src/memprof-wrap
report=$abs_top_builddir/src/memprof-report

"$prog" "$plugin" >"$scratch/bare.out" || fail "bare run failed: $?"
for rate in 512K 1; do
	mkdir "$scratch/$rate"
	timeout 300 "$wrap" -q -r "$rate" -o "$scratch/$rate/p.mlyze" \
		"$prog" "$plugin" >"$scratch/$rate/out" 2>"$scratch/$rate/err" ||
		fail "rate $rate: exit status $? under memprof-wrap: $(cat "$scratch/$rate/err")"
	cmp -s "$scratch/bare.out" "$scratch/$rate/out" ||
		fail "rate $rate: output differs"
	check_profile "$scratch/$rate/p.mlyze"
	"$report" --at end --format json "$scratch/$rate/p.mlyze" \
		>"$scratch/$rate/end.json" 2>"$scratch/$rate/report.err" ||
		fail "rate $rate: the report failed: $(cat "$scratch/$rate/report.err")"
	! grep -q 'already live' "$scratch/$rate/report.err" ||
		fail "rate $rate: $(cat "$scratch/$rate/report.err")"
done
pass
