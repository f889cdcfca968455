#!/bin/sh
# memprof-wrap's own options: --help, --version, usage errors, --rate, and
# option parsing that stops at COMMAND or "--".
. "${srcdir:-.}/tests/wrap/common.sh"

run 0 "$wrap" --help
expect_in "$work/out" "Usage: memprof-wrap [OPTION]... [--] COMMAND"
run 0 "$wrap" -h
expect_in "$work/out" "--no-follow-fork"
run 0 "$wrap" --version
expect_in "$work/out" "memprof-wrap (spprof-mem)"

run 2 "$wrap"
expect_in "$work/err" "memprof-wrap: missing COMMAND"
expect_in "$work/err" "Try 'memprof-wrap --help'"
run 2 "$wrap" -q --
expect_in "$work/err" "missing COMMAND"
run 2 "$wrap" --bogus "$helpers/print-argv"
expect_in "$work/err" "memprof-wrap: unrecognized option '--bogus'"
run 2 "$wrap" -x "$helpers/print-argv"
expect_in "$work/err" "memprof-wrap: invalid option -- 'x'"
run 2 "$wrap" -o
expect_in "$work/err" "requires an argument"

# Options after COMMAND are COMMAND's, even memprof-wrap's own names.
run 0 "$wrap" -q "$helpers/print-argv" -o x --rate 0 -- --help -q
expect_output "-o
x
--rate
0
--
--help
-q"
# "--" ends the options, so COMMAND itself may look like one.
mkdir "$work/bin" && cp "$helpers/print-argv" "$work/bin/--help" || exit 99
run 0 env PATH="$work/bin:$PATH" "$wrap" -q -- --help -V
expect_output "-V"

# --rate: units are powers of 1024, in any case.
check_rate() {
	run 0 "$wrap" -q -r "$1" "$helpers/print-env" SPPROF_SAMPLING_RATE
	expect_output "SPPROF_SAMPLING_RATE=$2"
}
check_rate 1 1
check_rate 4096 4096
check_rate 64k 65536
check_rate 64K 65536
check_rate 2KiB 2048
check_rate 2kib 2048
check_rate 3M 3145728
check_rate 1MiB 1048576
check_rate 1g 1073741824
check_rate 2GiB 2147483648
check_rate 1024G 1099511627776
run 0 "$wrap" -q --rate=8K "$helpers/print-env" SPPROF_SAMPLING_RATE
expect_output "SPPROF_SAMPLING_RATE=8192"
# Without --rate the runtime's default (or the caller's setting) applies.
run 0 "$wrap" -q "$helpers/print-env" SPPROF_SAMPLING_RATE
expect_output "SPPROF_SAMPLING_RATE unset"

# Bad rates are usage errors and nothing runs.
for rate in 0 0K -1 -5M +5 " 5" "5 " 5x 5KB 1.5M K "" \
	1025G 1099511627777 18446744073709551616 99999999999999999999; do
	run 2 "$wrap" -r "$rate" "$helpers/print-argv" ran
	expect_in "$work/err" "memprof-wrap: invalid sampling rate '$rate'"
	[ -s "$work/out" ] && fail "COMMAND ran despite --rate '$rate'"
done
run 2 "$wrap" -r 0 true
expect_in "$work/err" "must be greater than 0"
run 2 "$wrap" -r 8Q true
expect_in "$work/err" "unknown unit"
run 2 "$wrap" -r 18446744073709551616 true
expect_in "$work/err" "too large"
run 2 "$wrap" -r -1 true
expect_in "$work/err" "not a positive integer"
exit 0
