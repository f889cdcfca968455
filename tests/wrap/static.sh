#!/bin/sh
# A statically linked program cannot have the runtime preloaded: memprof-wrap
# says so plainly and runs nothing, whether the program is COMMAND itself,
# a static PIE, or the interpreter of a #! script.  Dynamically linked
# programs and scripts pass the same check.
. "${srcdir:-.}/tests/wrap/common.sh"

CC=${WRAP_TEST_CC:-cc}
source_file=$top_srcdir/tests/wrap/print-argv.c
$CC -o dynamic-program "$source_file" || fail "$CC cannot build $source_file"
if ! $CC -static -o static-program "$source_file"; then
	echo "SKIP: $CC cannot link statically (no static C library?)"
	exit 77
fi

message="statically linked executable; the profiler needs a dynamically linked program"
run 1 "$wrap" ./static-program ran
expect_in "$work/err" "memprof-wrap: ./static-program: $message"
[ -s "$work/out" ] && fail "the static program ran"

mkdir bin && cp static-program bin/static-in-path
run 1 env PATH="$work/bin:$PATH" "$wrap" static-in-path ran
expect_in "$work/err" "memprof-wrap: $work/bin/static-in-path: $message"

printf '#!%s/static-program -i\n' "$work" >static-script
chmod +x static-script
run 1 "$wrap" ./static-script ran
expect_in "$work/err" \
	"memprof-wrap: $work/static-program (interpreter of ./static-script): $message"
[ -s "$work/out" ] && fail "the static interpreter ran"

# Two levels of #!: the check follows the chain to the ELF at its end.
printf '#!%s/static-script\n' "$work" >script-of-script
chmod +x script-of-script
run 1 "$wrap" ./script-of-script
expect_in "$work/err" "(interpreter of $work/static-script): $message"

if $CC -static-pie -fPIE -o static-pie "$source_file" 2>/dev/null; then
	run 1 "$wrap" ./static-pie ran
	expect_in "$work/err" "memprof-wrap: ./static-pie: $message"
else
	echo "note: $CC cannot link a static PIE; that case is not tested"
fi

# What is not static passes: a dynamic program, a #! script of a dynamic
# interpreter, and the dynamic loader run by hand with a program.
run 0 "$wrap" -q ./dynamic-program ran
expect_output "ran"
printf '#!/bin/sh -e\necho script ran\n' >dynamic-script
chmod +x dynamic-script
run 0 "$wrap" -q ./dynamic-script
expect_output "script ran"
loader=$(readelf -l dynamic-program 2>/dev/null |
	sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
if [ -n "$loader" ]; then
	run 0 "$wrap" -q "$loader" ./dynamic-program ran
	expect_output "ran"
fi
exit 0
