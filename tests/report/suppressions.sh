#!/bin/sh
# --suppressions: LeakSanitizer's "leak:PATTERN" lines take the stacks
# they match out of --at end and --leaks, by function, source file or
# module, with '*', '^' and '$' as LeakSanitizer reads them; the note says
# what each pattern took; a file that is not of that format, or the option
# where nothing is a leak, is refused naming the problem (exit status 2).
# The profile is profiles/peak-end.txt: load_config (/srv/batch.py:20)
# holds 1 MiB to the end, build_index and render free theirs.
set -u
. "${srcdir:-.}/tests/report/common.sh"

"$gen" compile "$here/profiles/peak-end.txt" "$scratch/p.mlyze" || exit 99

# suppressed NAME STACKS PATTERNS... - with a file of these lines,
# load_config is gone from the table of --at end, and the note says that
# the first took STACKS stacks, 1 MiB of them live at the end.
suppressed() {
	name=$1 stacks=$2
	shift 2
	printf '%s\n' "# a comment" "" "$@" >"$scratch/$name.supp"
	"$report" --at end --suppressions "$scratch/$name.supp" \
		"$scratch/p.mlyze" >"$scratch/$name.out" 2>&1
	status=$?
	! grep -q "load_config (/srv" "$scratch/$name.out" &&
		grep -qF "Suppressed by $scratch/$name.supp: $1 ($stacks, 1.0 MiB ± 0 B live at the end)" \
			"$scratch/$name.out" && [ "$status" -eq 0 ]
	verdict "$name" $? "(status $status): $(cat "$scratch/$name.out")"
}

suppressed function "1 stack" "leak:load_config"
suppressed substring "1 stack" "leak:ad_con"
suppressed wildcard "1 stack" "leak:load*fig"
suppressed anchored "1 stack" "leak:^load_config\$"
suppressed file "3 stacks" "leak:/srv/batch.py"
suppressed first-of-two "1 stack" "leak:config" "leak:load"

# An anchor that does not hold takes nothing, and says so.
printf 'leak:^config\nleak:load$\n' >"$scratch/none.supp"
"$report" --at end --suppressions "$scratch/none.supp" "$scratch/p.mlyze" \
	>"$scratch/none.out" 2>&1
grep -q "load_config (/srv" "$scratch/none.out" &&
	grep -q "Suppressed by $scratch/none.supp: nothing (no stack matched its 2 patterns)." \
		"$scratch/none.out"
verdict anchors-that-fail $? "$(cat "$scratch/none.out")"

printf 'leak:load_config\nleak:nowhere\n' >"$scratch/unused.supp"
"$report" --at end --suppressions "$scratch/unused.supp" "$scratch/p.mlyze" \
	>"$scratch/unused.out" 2>&1
grep -q "; 1 pattern matched nothing." "$scratch/unused.out"
verdict unused-pattern $? "$(cat "$scratch/unused.out")"

"$report" --leaks --suppressions "$scratch/function.supp" \
	"$scratch/p.mlyze" >"$scratch/leaks.out" 2>&1 &&
	grep -q "Suppressed by" "$scratch/leaks.out"
verdict with-leaks $? "$(cat "$scratch/leaks.out")"

# refused FILE-LINES MESSAGE [OPTIONS] - exit status 2 and MESSAGE.
refused() {
	printf '%s\n' "$1" >"$scratch/bad.supp"
	"$report" ${3:---at end} --suppressions "$scratch/bad.supp" \
		"$scratch/p.mlyze" >"$scratch/bad.out" 2>&1
	status=$?
	[ "$status" -eq 2 ] && grep -qF -e "$2" "$scratch/bad.out"
	verdict "refused: $1 ${3:-}" $? "(status $status): $(cat "$scratch/bad.out")"
}
refused "race:foo" "bad.supp:1: only leak: suppressions apply to a heap profile, not 'race:foo'"
refused "leak:" "bad.supp:1: leak: with no pattern"
refused "leak:x" "--suppressions applies to what was never freed: give --at end or --leaks" "--at peak"
"$report" --at end --suppressions "$scratch/missing.supp" "$scratch/p.mlyze" \
	>"$scratch/missing.out" 2>&1
[ $? -eq 2 ] && grep -q "missing.supp: No such file or directory" "$scratch/missing.out"
verdict missing-file $? "$(cat "$scratch/missing.out")"

[ "$failures" -eq 0 ]
