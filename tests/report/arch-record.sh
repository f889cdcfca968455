#!/bin/sh
# arch-record.sh OUT - the test data of cross-arch.sh, recorded on this
# system's architecture in the build tree (packaging/arch-test.sh
# --record runs it in a Debian system of another architecture):
#   OUT/root/arch-test/alloc-program  the program, at the path it ran from
#   OUT/alloc-program.mlyze           its profile, written by the runtime
#   OUT/alloc-program.out, .err       memprof-report --all --sysroot=root
#   OUT/alloc-program.folded          the same, --format folded, from main
#   OUT/tree.mlyze                    profiles/tree.txt as mlyze-gen writes it
#   OUT/tree.out, .err                memprof-report --all of it
#   OUT/ORIGIN                        architecture and build-id
# The reports are made with only the program under root/, as the reading
# side has it: the C library's frames stay unnamed on both sides.
set -eu
. "$(dirname "$0")/../testlib.sh"
out=$1
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
rm -rf "$out"
mkdir -p "$out/root/arch-test" /arch-test
cp tests/report/alloc-program /arch-test/alloc-program
(cd /arch-test && LD_PRELOAD=$runtime_so \
	SPPROF_OUTPUT=$OLDPWD/$out/alloc-program.mlyze \
	SPPROF_SAMPLING_RATE=1 ./alloc-program)
cp /arch-test/alloc-program "$out/root/arch-test/alloc-program"
rm -r /arch-test
report=$PWD/src/memprof-report
# Where the runtime refuses to record (no stack capture), mlyze-gen's
# profile is all there is.
[ -f "$out/alloc-program.mlyze" ] || rm -r "$out/root"
[ ! -d "$out/root" ] ||
(cd "$out" && NO_COLOR=1 "$report" --all --sysroot=root \
	alloc-program.mlyze >alloc-program.out 2>alloc-program.err &&
	"$report" --format folded --sysroot=root alloc-program.mlyze \
		2>/dev/null | sed 's/^.*;main;/main;/' >alloc-program.folded)
tests/report/mlyze-gen compile tests/report/profiles/tree.txt \
	"$out/tree.mlyze"
(cd "$out" && NO_COLOR=1 "$report" --all tree.mlyze >tree.out 2>tree.err)
{
	echo "architecture: $arch"
	[ ! -d "$out/root" ] ||
	LC_ALL=C readelf -n "$out/root/arch-test/alloc-program" |
		sed -n 's/^ *Build ID: /alloc-program build-id: /p'
} >"$out/ORIGIN"
cat "$out/ORIGIN"
