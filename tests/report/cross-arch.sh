#!/bin/sh
# cross-arch.sh - profiles are portable: each directory of tests/report/arch
# holds a profile that the runtime wrote on another architecture (32-bit,
# 64-bit, little- or big-endian), the program it profiled, and the reports
# memprof-report gave there (see arch-record.sh and the README there); where
# the runtime does not record (s390x), a profile that mlyze-gen wrote there
# with the runtime's codec, and its report there.
# Read here with --sysroot pointing at that program, the profile gives the
# same reports; and mlyze-gen writes the same bytes here as there.
set -u
. "${srcdir:-.}/tests/report/common.sh"

for dir in "$here"/arch/*/; do
	arch=$(basename "$dir")
	if [ -f "$dir/alloc-program.mlyze" ]; then
		(cd "$dir" && NO_COLOR=1 "$report" --all --sysroot=root \
			alloc-program.mlyze) >"$scratch/out" 2>"$scratch/err"
		diff -u "$dir/alloc-program.out" "$scratch/out" &&
			diff -u "$dir/alloc-program.err" "$scratch/err"
		verdict "$arch profile: the report there" $?
		# from main on: root lacks the C library, named there
		(cd "$dir" && "$report" --format folded --sysroot=root \
			alloc-program.mlyze) 2>/dev/null >"$scratch/folded"
		sed 's/^.*;main;/main;/' "$scratch/folded" |
			diff -u "$dir/alloc-program.folded" -
		verdict "$arch profile: the folded stacks there" $?
		# and its frames stay unnamed, whatever debug files this
		# system has for a C library of the same build-id
		sed 's/;main;.*//' "$scratch/folded" | tr ';' '\n' |
			grep -v -e '^_start$' -e '^libc\.so\.6+0x[0-9a-f]*$'
		[ $? -eq 1 ]
		verdict "$arch profile: no frame named from this system's files" $?
	fi
	if [ -f "$dir/tree.out" ]; then
		(cd "$dir" && NO_COLOR=1 "$report" --all tree.mlyze) \
			>"$scratch/out" 2>"$scratch/err"
		diff -u "$dir/tree.out" "$scratch/out" &&
			diff -u "$dir/tree.err" "$scratch/err"
		verdict "$arch: the report of mlyze-gen's profile there" $?
	fi
	"$gen" compile "$here/profiles/tree.txt" "$scratch/tree.mlyze" &&
		cmp "$dir/tree.mlyze" "$scratch/tree.mlyze"
	verdict "$arch: the same profile bytes from the same script" $?
done
[ "$failures" -eq 0 ]
