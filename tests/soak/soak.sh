#!/bin/sh
# soak.sh - proof that real programs behave the same under memprof-wrap.
#
# Usage: soak.sh WORKLOAD   (make soak runs it on every tests/soak/*.soak)
#
# WORKLOAD is a shell script that runs real programs of the system (an
# interpreter's own tests, a compiler, a database...) on inputs it makes
# itself.  It is run first bare, then under the build tree's memprof-wrap
# at the default sampling rate and at rate 1 (every byte sampled), each time
# in the same fresh directory with the same environment, and each wrapped
# run must match the bare one: the same exit status and byte for byte the
# same standard output and standard error.  Every profile a wrapped run
# leaves must be one memprof-report reads (exit status 0).  memprof-wrap's
# own standard error (the profiles it lists, the runtime's messages) is
# kept apart from the workload's: the runtime must have said nothing (but
# what NAME.tells expects), and
# every process the workload names in the file accounted-pids (one process
# id a line, in its directory) must be listed, with a profile or as a
# process that took no sample.
#
# A workload may also name what the report on its profiles must say:
# NAME.says beside it holds one grep pattern a line, each of which the text
# report on all the profiles of each wrapped run must match.  NAME.tells
# holds the runtime's messages the workload's programs call for (one grep
# pattern a line: a malloc of their own, a sandbox they enter), which are
# then no difference.
#
# A workload's output must therefore not change from one run to the next:
# it fixes dates, seeds and names in its inputs; nothing is filtered here.
# The environment is only PATH, HOME, TMPDIR, LANG=C.UTF-8, TZ=UTC and
# SOAK_DATA (this directory, where workloads find their helper files).
#
# Exit status: 0 when every run matched, 1 when one did not (each
# difference is named: workload, rate, what differed, an excerpt of the
# diff), 99 when the workload fails even without the profiler.  On a
# failure the runs' files are kept in tests/soak/NAME.dir of the build tree,
# their profiles in a directory under /tmp (both named).

set -u

: "${abs_top_builddir:?abs_top_builddir must name the build directory}"
[ $# -eq 1 ] || {
	echo "usage: soak.sh WORKLOAD" >&2
	exit 99
}
. "$(dirname "$0")/../testlib.sh"
workload=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
name=$(basename "$1" .soak)
data=$(dirname "$workload")
wrap=$abs_top_builddir/src/memprof-wrap
report=$abs_top_builddir/src/memprof-report
runtime=$runtime_so
scratch=$abs_top_builddir/tests/soak/$name.dir
# A run that hangs fails instead of holding up the suite.
time_limit=${SOAK_TIME_LIMIT:-900}
failures=0

rm -rf "$scratch"
mkdir -p "$scratch"
# Some programs run parts of themselves as another user, whose processes
# must reach the profile directories, and load the runtime and the Python
# frame walker; the build tree may lie where that user cannot (under
# /root), so the directories are made under /tmp, with copies of both.
profiles=$(mktemp -d "${TMPDIR:-/tmp}/soak-$name.XXXXXX")
chmod 755 "$profiles"
mkdir "$profiles/lib"
cp "$runtime" "$profiles/lib/"
wrap_environment="SPPROF_RUNTIME=$profiles/lib/$(basename "$runtime")"
for walker in "$abs_top_builddir"/python/spprof/.libs/_memprof*.so; do
	[ -f "$walker" ] || continue
	cp "$walker" "$profiles/lib/"
	wrap_environment="$wrap_environment SPPROF_PYTHON_WALKER=$profiles/lib/$(basename "$walker")"
done

# run LABEL [PREFIX...]: runs the workload as PREFIX sh WORKLOAD in a fresh
# $scratch/work; its output goes to $scratch/LABEL.{out,err,status}, what
# PREFIX itself writes on stderr to $scratch/LABEL.wrap.  (The workload
# gets its stderr through descriptor 3, closed before it starts.)
run() {
	label=$1
	shift
	rm -rf "$scratch/work" "$scratch/tmp"
	mkdir "$scratch/work" "$scratch/work/home" "$scratch/tmp"
	started=$(date +%s)
	(cd "$scratch/work" && timeout -k 10 "$time_limit" env -i \
		PATH=/usr/bin:/bin HOME="$scratch/work/home" \
		TMPDIR="$scratch/tmp" LANG=C.UTF-8 TZ=UTC SOAK_DATA="$data" \
		"$@" sh -c 'exec 2>&3 3>&-; exec sh "$0"' "$workload" \
		</dev/null >"$scratch/$label.out" 3>"$scratch/$label.err" \
		2>"$scratch/$label.wrap")
	echo $? >"$scratch/$label.status"
	echo "$name, $label: exit status $(cat "$scratch/$label.status")," \
		"$(($(date +%s) - started)) s"
}

# different LABEL TEXT...: the run LABEL did not behave as the bare one.
different() {
	at=$1
	shift
	echo "FAIL: $name at $at: $*" >&2
	failures=$((failures + 1))
}

# compare LABEL: the run LABEL against the bare one.
compare() {
	if ! cmp -s "$scratch/bare.status" "$scratch/$1.status"; then
		different "$1" "exit status $(cat "$scratch/$1.status")" \
			"instead of $(cat "$scratch/bare.status")"
	fi
	for stream in out err; do
		cmp -s "$scratch/bare.$stream" "$scratch/$1.$stream" && continue
		different "$1" "std$stream differs from the bare run's" \
			"(diff -U1 bare $1, first 60 lines):"
		# As text even where bytes of a profile got in, control
		# characters made visible.
		(cd "$scratch" && diff -U1 --text "bare.$stream" "$1.$stream") |
			head -n 60 | cat -v | sed 's/^/    /' >&2
	done
}

# check_accounted LABEL: the runtime said nothing in the run LABEL but
# what NAME.tells expects, and memprof-wrap listed every process the
# workload named.
check_accounted() {
	grep '^libspprof-alloc:' "$scratch/$1.wrap" >"$scratch/$1.said"
	if [ -f "$data/$name.tells" ]; then
		grep -v -f "$data/$name.tells" "$scratch/$1.said" \
			>"$scratch/$1.unexpected"
	else
		cp "$scratch/$1.said" "$scratch/$1.unexpected"
	fi
	if [ -s "$scratch/$1.unexpected" ]; then
		different "$1" "the runtime said:"
		head -n 10 "$scratch/$1.unexpected" | sed 's/^/    /' >&2
	fi
	[ -f "$scratch/work/accounted-pids" ] || return 0
	missing=
	for pid in $(cat "$scratch/work/accounted-pids"); do
		grep -Eq "^  pid $pid  |\.$pid(\.[0-9]+)?\.mlyze( |\$)" \
			"$scratch/$1.wrap" || missing="$missing $pid"
	done
	if [ -n "$missing" ]; then
		different "$1" "processes not accounted for:$missing; memprof-wrap said:"
		sed 's/^/    /' "$scratch/$1.wrap" | head -n 40 >&2
	else
		echo "$name, $1: all $(wc -l <"$scratch/work/accounted-pids")" \
			"processes named by the workload accounted for"
	fi
}

# check_profiles LABEL: every profile of the run LABEL is read by
# memprof-report.
check_profiles() {
	dir=$profiles/$1
	count=$(find "$dir" -type f | wc -l)
	if [ "$count" -eq 0 ]; then
		different "$1" "no profile written in $dir"
		return
	fi
	# All in one go is fast; one by one only to name those refused.
	if "$report" --top 1 "$dir"/* >"$scratch/$1.said" \
		2>"$scratch/$1.report"; then
		echo "$name, $1: memprof-report read all $count profiles"
		check_says "$1"
		return
	fi
	refused=0
	for profile in "$dir"/*; do
		"$report" --top 1 "$profile" >/dev/null 2>"$scratch/report.err" &&
			continue
		refused=$((refused + 1))
		# The first few are shown; all are kept.
		[ "$refused" -le 3 ] && sed 's/^/    /' "$scratch/report.err" >&2
	done
	if [ "$refused" -eq 0 ]; then
		tail -n 3 "$scratch/$1.report" | sed 's/^/    /' >&2
		different "$1" "memprof-report read each of the $count profiles" \
			"but not all together (in $dir)"
	else
		different "$1" "memprof-report refused $refused of $count" \
			"profiles (in $dir)"
	fi
}

# check_says LABEL: the report on the profiles of the run LABEL says
# what NAME.says asks for.
check_says() {
	[ -f "$data/$name.says" ] || return 0
	while IFS= read -r pattern; do
		grep -q -- "$pattern" "$scratch/$1.said" && continue
		different "$1" "the report does not say '$pattern'; it says:"
		sed 's/^/    /' "$scratch/$1.said" >&2
	done <"$data/$name.says"
}

run bare
if [ "$(cat "$scratch/bare.status")" -ne 0 ]; then
	echo "ERROR: $name fails without the profiler (exit status" \
		"$(cat "$scratch/bare.status")); its output ends:" >&2
	tail -n 20 "$scratch/bare.out" "$scratch/bare.err" | sed 's/^/    /' >&2
	rm -rf "$profiles"
	exit 99
fi

for rate in default 1; do
	label=rate-$rate
	options=
	[ "$rate" = default ] || options="--rate=$rate"
	mkdir -m 1777 "$profiles/$label"
	# shellcheck disable=SC2086 # one word per setting and option
	run "$label" $wrap_environment "$wrap" \
		--output="$profiles/$label" $options
	compare "$label"
	check_accounted "$label"
	check_profiles "$label"
done

if [ "$failures" -gt 0 ]; then
	echo "$name: $failures difference(s); files kept in $scratch" \
		"and $profiles" >&2
	exit 1
fi
rm -rf "$scratch" "$profiles"
echo "PASS: $name behaves the same bare and under memprof-wrap"
