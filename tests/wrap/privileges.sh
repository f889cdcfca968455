#!/bin/sh
# Processes that change their user, with the real runtime: a worker that
# gives up root for nobody keeps its profile, written where only root may
# create files, and listed with the others; so does a program started as
# nobody there (by setpriv); and the runtime's messages reach the person
# who runs memprof-wrap, not the program's own stderr.
. "${srcdir:-.}/tests/wrap/common.sh"

use_real_runtime
report=$top_builddir/src/memprof-report

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	echo "SKIP: changing users needs root and a user nobody"
	exit 77
fi
nobody=$(id -u nobody)
nogroup=$(id -g nobody)

# The profiles' directory: only root may create files in it, everybody
# may reach it (so it is not under $work, which mktemp made private).
profiles=$(mktemp -d /tmp/memprof-privileges.XXXXXX) || exit 99
chmod 755 "$profiles"
trap 'rm -rf "$work" "$profiles"' EXIT

for rate in default 1; do
	options=
	[ "$rate" = default ] || options="--rate=$rate"
	mkdir -m 755 "$profiles/$rate"
	# shellcheck disable=SC2086 # one word per option
	run 0 "$wrap" $options -o "$profiles/$rate/drop.%p.mlyze" \
		"$helpers/drop-privileges" "$nobody" "$nogroup"
	expect_in "$work/err" "memprof-wrap: 2 profiles written"
	grep -q 'part' "$work/err" && fail "a profile not finalised: $(cat "$work/err")"
	grep -q 'libspprof-alloc' "$work/err" &&
		fail "the runtime complained: $(cat "$work/err")"
	[ "$(ls "$profiles/$rate" | wc -l)" -eq 2 ] ||
		fail "files left at rate $rate: $(ls "$profiles/$rate")"
	for profile in "$profiles/$rate"/*; do
		grep -qF "memprof-report --top 20 $profile" "$work/err" ||
			fail "$profile not listed: $(cat "$work/err")"
		"$report" --top 1 "$profile" >/dev/null ||
			fail "memprof-report cannot read $profile"
	done
done

# A program started as nobody cannot create its profile there at all:
# memprof-wrap creates it for the program.
mkdir -m 755 "$profiles/started"
run 0 "$wrap" -o "$profiles/started/as-nobody.%p.mlyze" \
	setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups \
	"$helpers/allocate" /dev/null
expect_in "$work/err" "memprof-wrap: 2 profiles written"
grep -q 'part\|libspprof-alloc\|cannot' "$work/err" &&
	fail "not every profile written: $(cat "$work/err")"
[ "$(ls "$profiles/started" | wc -l)" -eq 2 ] ||
	fail "files left: $(ls "$profiles/started")"
for profile in "$profiles/started"/*; do
	"$report" --top 1 "$profile" >/dev/null ||
		fail "memprof-report cannot read $profile"
done

# A message of the runtime (a bad setting, here) goes to memprof-wrap's
# stderr even from a process whose own stderr goes to a log.
run 0 env SPPROF_UNWIND=bogus "$wrap" -q -o "$work/message.%p.mlyze" \
	sh -c "exec 2>program.err; exec $helpers/print-argv"
[ -s program.err ] && fail "the program's stderr got: $(cat program.err)"
[ "$(grep -c 'SPPROF_UNWIND=bogus is not fp, dwarf or auto' "$work/err")" -eq 2 ] ||
	fail "messages not shown by memprof-wrap: $(cat "$work/err")"
exit 0
