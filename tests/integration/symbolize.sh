#!/bin/sh
# symbolize.sh - a profile that carries its own symbols reads the same
# without its binaries: programs built with the tests (inline-program, C++
# with inlined calls; hold-program, killed while it runs, so that its
# profile is a streamed one that was never finalised) are profiled and
# their profiles written again by `memprof-report --symbolize`.  Every
# view of each copy is the view of the original, byte for byte: beside
# the binaries, then after the programs are removed and every module is
# looked for under an empty --sysroot, as on a machine with none of the
# binaries, where the original shows addresses.  Symbolizing a copy again
# changes nothing, and the copy of a private profile is private.
# memprof-ctl serve's /debug/mlyze?pid=N gives the same of a running
# process.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

report=$abs_top_builddir/src/memprof-report
mkdir -p "$scratch/bin" "$scratch/empty"
cp "$abs_top_builddir/tests/report/inline-program" \
	"$abs_top_builddir/tests/integration/hold-program" "$scratch/bin/" ||
	fail "cannot copy the programs"

# profile NAME: the profile of a program in $scratch/NAME/p.mlyze.
mkdir -p "$scratch/inline" "$scratch/killed"
SPPROF_SAMPLING_RATE=1 SPPROF_OUTPUT=$scratch/inline/p.mlyze \
	run_preloaded 60 "$scratch/bin/inline-program"
SPPROF_SAMPLING_RATE=4096 SPPROF_OUTPUT=$scratch/killed/p.mlyze \
	start_under_runtime "$scratch/bin/hold-program" 512 \
	"$scratch/never" >"$scratch/hold.out"
holder=$started_pid
wait_for $holder 30 grep -q holding "$scratch/hold.out" ||
	fail "hold-program never said holding"
kill -KILL $holder
wait $holder
mv "$scratch/killed/p.mlyze.part" "$scratch/killed/p.mlyze" ||
	fail "no streamed profile: $(ls "$scratch/killed")"

# view DIR ARGS...: a view of DIR/p.mlyze, read from DIR (the views name
# the file), its messages after it.
view() {
	(cd "$1" && shift && NO_COLOR=1 "$report" "$@" p.mlyze 2>&1)
}

views='-ftext -fjson -ffolded -fspeedscope -fpprof -fhtml -gline -gstack -c
	--at=end --leaks'
for name in inline killed; do
	mkdir -p "$scratch/$name-symbolized"
	# A private profile's copy is private.
	chmod 600 "$scratch/$name/p.mlyze"
	"$report" --symbolize -o "$scratch/$name-symbolized/p.mlyze" \
		"$scratch/$name/p.mlyze" 2>"$scratch/$name.err" ||
		fail "--symbolize $name: $(cat "$scratch/$name.err")"
	[ "$(stat -c %a "$scratch/$name-symbolized/p.mlyze")" = 600 ] ||
		fail "$name: the copy of a private profile is not private"
	for args in $views; do
		view "$scratch/$name" "$args" >"$scratch/$name.with$args"
		view "$scratch/$name-symbolized" "$args" \
			>"$scratch/$name.both$args"
		cmp -s "$scratch/$name.with$args" "$scratch/$name.both$args" ||
			fail "$name $args: the copy reads otherwise beside the binaries"
	done
done

# The programs leave; nothing is found under the sysroot.
rm -r "$scratch/bin"
for name in inline killed; do
	for args in $views; do
		view "$scratch/$name-symbolized" --sysroot="$scratch/empty" \
			"$args" >"$scratch/$name.carried$args"
		cmp -s "$scratch/$name.with$args" "$scratch/$name.carried$args" ||
			fail "$name $args reads otherwise: $(diff \
				"$scratch/$name.with$args" \
				"$scratch/$name.carried$args" | head -20)"
	done
	view "$scratch/$name" --sysroot="$scratch/empty" -ffolded \
		>"$scratch/$name.without"
	cmp -s "$scratch/$name.with-ffolded" "$scratch/$name.without" &&
		fail "$name: the original reads the same without its binaries"
	"$report" --symbolize -o "$scratch/$name.again" \
		--sysroot="$scratch/empty" "$scratch/$name-symbolized/p.mlyze" \
		2>/dev/null &&
		cmp -s "$scratch/$name.again" "$scratch/$name-symbolized/p.mlyze" ||
		fail "$name: symbolized again, the profile changed"
done
grep -q 'Holder<int>::Holder(unsigned long).*(inlined)' \
	"$scratch/inline.with-gstack" ||
	fail "no inlined frame to carry: $(cat "$scratch/inline.with-gstack")"
grep -q ';main[; ]' "$scratch/killed.with-ffolded" ||
	fail "hold-program's functions are not named: $(cat "$scratch/killed.with-ffolded")"

# The server: a recording process's stream with its symbols.
if ! command -v curl >/dev/null; then
	echo "no curl: /debug/mlyze not tested"
	pass
fi
ctl=$abs_top_builddir/src/memprof-ctl
hold=$integ_bin/hold-program
held_kib=1024
export XDG_RUNTIME_DIR=$scratch/xdg
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"
SPPROF_SAMPLING_RATE=4096 SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_hold rec
rec=$pid
start_serve
mkdir -p served
curl -s -o served/p.mlyze -w '%{http_code}\n' "$url/debug/mlyze?pid=$rec" \
	>served.status
[ "$(cat served.status)" = 200 ] ||
	fail "/debug/mlyze: $(cat served.status): $(head -c 300 served/p.mlyze)"
view served --sysroot="$scratch/empty" -ffolded >served.folded
grep -q ';main[; ]' served.folded ||
	fail "the served profile is not symbolized: $(cat served.folded)"
cp "rec.$rec.mlyze.part" rec.mlyze
(NO_COLOR=1 "$report" --sysroot="$scratch/empty" -ffolded rec.mlyze \
	2>/dev/null | grep -q ';main[; ]') &&
	fail "the stream is named without its binaries"
[ "$(curl -s -o /dev/null -w '%{http_code}' \
	"$url/debug/mlyze?pid=$rec&seconds=1")" = 400 ] ||
	fail "/debug/mlyze took seconds="
# A .mlyze is one process's stream: a service's processes are refused.
[ "$(curl -s -o refused.out -w '%{http_code}' \
	"$url/debug/mlyze?service=hold-program")" = 400 ] ||
	fail "/debug/mlyze took service=: $(cat refused.out)"
grep -q "one process" refused.out ||
	fail "the refusal of service= says: $(cat refused.out)"
stop_serve
end_hold rec $rec
pass
