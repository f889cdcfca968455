#!/bin/sh
# run-bench.sh - the runtime's overhead against no profiler and against peers.
#
# Usage: run-bench.sh RUNTIME BINDIR
#   RUNTIME  the libspprof-alloc.so.0 to preload
#   BINDIR   where the workload, bench-run and forward-only.so were built
#
# Prints one table: for each workload, the median wall time, CPU time and
# peak RSS of the process with no profiler, with the runtime preloaded but
# dormant, with the runtime recording a profile, with a preload that only
# forwards the malloc family to the C library (what interposition itself
# costs), and with the peers that are installed (jemalloc's sampling
# profiler, tcmalloc's heap profiler, heaptrack).  A ratio is the median
# over rounds of (time with / time without) within one round.  The rounds
# of the loads are interleaved, so that each load's rounds are spread
# over the whole run rather than caught in one stretch of it.  Single-threaded loads run side by side: each
# configuration at the same time as its reference, each pinned to its own
# CPU (swapped every round), so that both see the same moment of a shared
# machine.  The loads of 2, 8 and 16 threads need both CPUs (8 and 16
# oversubscribe them: the worst case for a lock whose holder is
# preempted), so their configurations run one after the other, in
# alternating order round after round.  Exhaustive
# tracers (heaptrack, tcmalloc's HEAPPROFILE) record every call and run on
# fewer operations, against a baseline of the same size.  Then callgrind
# counts instructions, the repeatable number, also those of one stack
# capture by each unwinding method.
#
# Environment: BENCH_ROUNDS (default 41; twice as many less one for the
# alternating method, whose pairs are further apart in time and so
# noisier), BENCH_TRACER_ROUNDS (3),
# BENCH_SCALE (1; multiplies every operation count, 0.1 for a smoke run),
# BENCH_JEMALLOC, BENCH_TCMALLOC (library paths; found with ldconfig),
# BENCH_COMPARE (another build of the runtime, recording in the same
# rounds: how a change moves the numbers, free of the drift between runs
# of a shared machine), BENCH_LOADS (the loads to run, of: churn mixed
# mixed2 mixed8 mixed16 mixednofp; default all).

set -u

if [ $# -ne 2 ]; then
	echo "Usage: run-bench.sh RUNTIME BINDIR" >&2
	exit 2
fi
RUNTIME=$1
BINDIR=$2
WORKLOAD=$BINDIR/workload
WORKLOAD_FP=$WORKLOAD
WORKLOAD_NOFP=$BINDIR/workload-nofp
FORWARD_ONLY=$BINDIR/forward-only.so
COMPARE=${BENCH_COMPARE:-}
for f in "$RUNTIME" "$WORKLOAD" "$WORKLOAD_NOFP" "$BINDIR/bench-run" \
	"$FORWARD_ONLY" ${COMPARE:+"$COMPARE"}; do
	if [ ! -f "$f" ]; then
		echo "run-bench.sh: $f: no such file (run make bench)" >&2
		exit 2
	fi
done

# Many short runs rather than a few long ones.  A shared machine slows a
# run down in bursts: glibc beside glibc, the middle half of the rounds'
# ratios spanned 0.95-1.02 with runs of 0.8 s, and 0.99-1.01 with runs of
# 0.2 s, most of which no burst reaches.  The median of 41 such rounds
# moves by well under 1 %, where the targets leave 5 to 10 %.  Loads on
# both CPUs get no such shelter, hence twice the rounds.  The machine's
# state also drifts over minutes (the dormant runtime's churn ratio moved
# between 1.03 and 1.05 from one set of 40 rounds to the next), which more
# rounds in a row cannot average out; rounds spread over the whole run do.
ROUNDS=${BENCH_ROUNDS:-41}
ALTERNATING_ROUNDS=$((2 * ROUNDS - 1))
TRACER_ROUNDS=${BENCH_TRACER_ROUNDS:-3}
SCALE=${BENCH_SCALE:-1}
scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%d", n * s }'; }
CHURN_OPS=$(scaled 10000000)
MIXED_OPS=$(scaled 2000000)
CALLGRIND_CHURN_OPS=$(scaled 1000000)
CALLGRIND_MIXED_OPS=$(scaled 300000)
CALLGRIND_MAPS_OPS=$(scaled 100000)
HEAPTRACK_DIVISOR=20  # heaptrack is about 30 times slower
HEAPPROFILE_DIVISOR=200 # tcmalloc's heap profiler, several hundred times

TMP=$(mktemp -d "${TMPDIR:-/tmp}/spprof-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' HUP INT TERM
LOG=$TMP/log
STARTED=$(date +%s)

find_library() {
	ldconfig -p 2>/dev/null |
		awk -v name="$1" '$1 == name { print $NF; exit }'
}
JEMALLOC=${BENCH_JEMALLOC-$(find_library libjemalloc.so.2)}
TCMALLOC=${BENCH_TCMALLOC-$(find_library libtcmalloc.so.4)}
[ -f "$JEMALLOC" ] || JEMALLOC=
[ -f "$TCMALLOC" ] || TCMALLOC=
HEAPTRACK=$(command -v heaptrack)
RUNTIME_FILE=$(basename "$(readlink -f "$RUNTIME")")
VALGRIND=$(command -v valgrind)

fail() {
	echo "run-bench.sh: $*" >&2
	tail -n 20 "$LOG" >&2
	exit 1
}

# ---- running one configuration ----------------------------------------------

# runtime_of CONFIG: the build of the runtime that a recording runs.
runtime_of() {
	if [ "$1" = compare ]; then echo "$COMPARE"; else echo "$RUNTIME"; fi
}

# measure RESULTS CONFIG WORKLOAD-ARG...: runs the workload once under
# CONFIG, appends "wall-seconds maxrss-KiB cpu-seconds" to RESULTS, checks
# that a profiler meant to write a profile did, and notes its size.
measure() {
	local results=$1 config=$2
	shift 2
	set -- "$WORKLOAD" "$@"
	case $config in
	glibc) ;;
	forward) set -- "LD_PRELOAD=$FORWARD_ONLY" "$@" ;;
	dormant) set -- "LD_PRELOAD=$RUNTIME" "$@" ;;
	recording | compare)
		set -- "LD_PRELOAD=$(runtime_of "$config")" \
			"SPPROF_OUTPUT=$TMP/prof.mlyze" "$@" ;;
	jemalloc) set -- "LD_PRELOAD=$JEMALLOC" "$@" ;;
	jeprof)
		set -- "LD_PRELOAD=$JEMALLOC" \
			"MALLOC_CONF=prof:true,lg_prof_sample:19,prof_final:true,prof_prefix:$TMP/jeprof" \
			"$@" ;;
	tcmalloc) set -- "LD_PRELOAD=$TCMALLOC" "$@" ;;
	heapprofile)
		set -- "LD_PRELOAD=$TCMALLOC" "HEAPPROFILE=$TMP/tcprof" "$@" ;;
	heaptrack) set -- "$HEAPTRACK" -o "$TMP/heaptrack" "$@" ;;
	esac
	echo "== $config: $*" >>"$LOG"
	${PIN:+taskset -c "$PIN"} "$BINDIR/bench-run" -o "$results" "$@" \
		>>"$LOG" 2>&1 || fail "$config failed: $*"
	case $config in
	recording | compare) keep_profile_size "$results" "$TMP"/prof.mlyze ;;
	jeprof) keep_profile_size "$results" "$TMP"/jeprof.*.heap ;;
	heapprofile) keep_profile_size "$results" "$TMP"/tcprof.*.heap ;;
	heaptrack) keep_profile_size "$results" "$TMP"/heaptrack.* ;;
	esac
}

# keep_profile_size RESULTS FILE...: the profiler must have written FILE;
# its total size goes to RESULTS.size, then it is removed.
keep_profile_size() {
	local results=$1
	shift
	[ -f "$1" ] || fail "no profile written (expected $1)"
	cat "$@" | wc -c >>"$results.size"
	rm -f "$@"
}

# alternating_round ROUND KEY CONFIG... -- WORKLOAD-ARG...: runs every
# configuration once, in forward order on odd rounds and backward on even
# ones.  Results go to $TMP/KEY.CONFIG.
alternating_round() {
	local round=$1 key=$2 configs= backward= c
	shift 2
	while [ "$1" != -- ]; do
		configs="$configs $1"
		backward="$1 $backward"
		shift
	done
	shift
	[ $((round % 2)) -eq 0 ] && configs=$backward
	for c in $configs; do
		measure "$TMP/$key.$c" "$c" "$@"
	done
}

# alternating COUNT KEY CONFIG... -- WORKLOAD-ARG...: COUNT such rounds.
alternating() {
	local count=$1 round=1
	shift
	while [ "$round" -le "$count" ]; do
		alternating_round "$round" "$@"
		round=$((round + 1))
	done
}

# side_by_side_round ROUND KEY CONFIG:REFERENCE... -- WORKLOAD-ARG...:
# runs every configuration at the same time as its reference, each pinned
# to one of two CPUs, swapped from round to round.  Results go to
# $TMP/KEY.CONFIG and $TMP/KEY.CONFIG.beside-REFERENCE.
side_by_side_round() {
	local round=$1 key=$2 pairs= pair c ref first second a b
	shift 2
	while [ "$1" != -- ]; do
		pairs="$pairs $1"
		shift
	done
	shift
	first=$((round % 2))
	second=$((1 - first))
	for pair in $pairs; do
		c=${pair%:*}
		ref=${pair#*:}
		(PIN=$first measure "$TMP/$key.$c" "$c" "$@") &
		a=$!
		(PIN=$second measure "$TMP/$key.$c.beside-$ref" "$ref" "$@") &
		b=$!
		wait "$a"
		a=$?
		wait "$b"
		[ "$a" -eq 0 ] && [ $? -eq 0 ] || exit 1
	done
}

# reference_row KEY CONFIG:REFERENCE...: a reference measured only beside
# others shows, in its own row, the runs beside the first of them.
reference_row() {
	local key=$1 pair ref
	shift
	for pair in "$@"; do
		ref=${pair#*:}
		[ -f "$TMP/$key.$ref" ] ||
			cp "$TMP/$key.${pair%:*}.beside-$ref" "$TMP/$key.$ref"
	done
}

# ---- statistics ----------------------------------------------------------------

median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) exit 1
		      if (NR % 2) print v[(NR + 1) / 2]
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# middle_half: "q1-q3", the quartiles of the numbers read (the nearest
# ranks), between which the middle half of them lie.
middle_half() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) exit 1
		      lo = int((NR + 3) / 4); hi = NR + 1 - lo
		      printf "%.2f-%.2f", v[lo], v[hi] }'
}

# column FILE N: the median of column N.
column() { awk -v n="$2" '{ print $n }' "$1" | median; }

# reference_runs KEY CONFIG REFERENCE: the reference runs measured beside
# CONFIG's, else those of the same rounds.
reference_runs() {
	if [ -f "$TMP/$1.$2.beside-$3" ]; then
		echo "$TMP/$1.$2.beside-$3"
	else
		echo "$TMP/$1.$3"
	fi
}

# paired_ratio KEY CONFIG REFERENCE [COLUMN]: the median over rounds of
# the ratio of wall times (column 1) or CPU times (3), each run paired with
# the reference run of the same round.
paired_ratio() {
	round_ratios "$@" | median
}

# round_ratios KEY CONFIG REFERENCE [COLUMN]: the ratio of each round.
round_ratios() {
	paste -d ' ' "$TMP/$1.$2" "$(reference_runs "$1" "$2" "$3")" |
		awk -v c="${4:-1}" '{ print $c / $(c + 3) }'
}

human_ops() {
	awk -v n="$1" 'BEGIN { if (n >= 1e6) printf "%gM", n / 1e6
			       else if (n >= 1e3) printf "%gk", n / 1e3
			       else printf "%d", n }'
}

# row KEY CONFIG LABEL OPS REFERENCE [GLIBC-REFERENCE] [TARGET]
row() {
	local key=$1 config=$2 label=$3 ops=$4 ref=$5 glibc_ref=${6:-}
	local target=${7:-} file=$TMP/$1.$2 secs rss ratio cpu_ratio against
	local vs_glibc= verdict= spread=-
	secs=$(column "$file" 1)
	rss=$(column "$file" 2)
	if [ "$config" = "$ref" ]; then
		ratio=1
		cpu_ratio=1
		against=-
	else
		ratio=$(paired_ratio "$key" "$config" "$ref")
		spread=$(round_ratios "$key" "$config" "$ref" | middle_half)
		cpu_ratio=$(paired_ratio "$key" "$config" "$ref" 3)
		against=$ref
	fi
	if [ -n "$glibc_ref" ]; then
		vs_glibc=$(paired_ratio "$key" "$config" "$glibc_ref")
	fi
	if [ -n "$target" ]; then
		verdict=$(awk -v r="$ratio" -v t="$target" 'BEGIN {
			printf "<=%.2f %s", t, (r <= t ? "PASS" : "MISS") }')
		case $verdict in *MISS) MISSES=$((MISSES + 1)) ;; esac
	fi
	awk -v l="$label" -v o="$(human_ops "$ops")" -v s="$secs" -v r="$ratio" \
		-v c="$cpu_ratio" -v a="$against" -v g="$vs_glibc" -v m="$rss" \
		-v v="$verdict" -v h="$spread" \
		'BEGIN { printf "  %-24s %5s %8.3f %7.3f %13s %7.3f  %-8s %7s %7.1f  %s\n",
			 l, o, s, r, h, c, a, (g == "" ? "" : sprintf("%.3f", g)),
			 m / 1024, v }'
}

# recording_summary KEY: RSS and profile size of the recording runs, and
# the profile's growth per hour of this load: without a limit it keeps
# growing so; with one (SPPROF_MAX_SIZE, 256 MiB by default) the file
# stays within the limit and one stream window (1 MiB).
recording_summary() {
	local file=$TMP/$1.recording
	awk -v rec="$(column "$file" 2)" -v base="$(column "$TMP/$1.glibc" 2)" \
		-v size="$(column "$file.size" 1)" -v secs="$(column "$file" 1)" 'BEGIN {
		printf "  spprof-mem recording: max RSS x%.2f (%.1f MiB vs %.1f MiB), profile %.1f KiB\n",
		       rec / base, rec / 1024, base / 1024, size / 1024
		printf "  profile per hour of this load: %.0f MiB without a limit, at most 257 MiB with the default one\n",
		       size / secs * 3600 / 1048576 }'
}

# ---- the workloads --------------------------------------------------------------

# Debian's jemalloc is built with profiling; others may not be.
jemalloc_profiles() {
	"$BINDIR/bench-run" -o "$TMP/probe" "LD_PRELOAD=$JEMALLOC" \
		"MALLOC_CONF=prof:true,prof_final:true,prof_prefix:$TMP/probe" \
		"$WORKLOAD" churn 1 >>"$LOG" 2>&1 || return 1
	set -- "$TMP"/probe.*.heap
	[ -f "$1" ] && rm -f "$@"
}

CONFIGS="glibc forward dormant recording"
[ -n "$COMPARE" ] && CONFIGS="$CONFIGS compare"
JEMALLOC_NOTE=
if [ -n "$JEMALLOC" ]; then
	CONFIGS="$CONFIGS jemalloc"
	if jemalloc_profiles; then
		CONFIGS="$CONFIGS jeprof"
	else
		JEMALLOC_NOTE=" (built without profiling: its profiler is skipped)"
	fi
fi
[ -n "$TCMALLOC" ] && CONFIGS="$CONFIGS tcmalloc"

# Side by side needs two CPUs to pin to.
SIDE_BY_SIDE=
if [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" -ge 2 ] &&
	command -v taskset >/dev/null; then
	SIDE_BY_SIDE=yes
fi

# Each configuration and the one its ratio is against.
PAIRS=
for c in $CONFIGS; do
	case $c in
	glibc) ;;
	jeprof) PAIRS="$PAIRS jeprof:jemalloc" ;;
	*) PAIRS="$PAIRS $c:glibc" ;;
	esac
done

# The loads, one row each: key, binary, target (wall ratio), how its
# configurations are compared, operations, the workload's arguments, and
# the section's title.
LOADS=${BENCH_LOADS:-churn mixed mixed2 mixed8 mixed16 mixednofp}

# load KEY: sets WORKLOAD, TARGET, METHOD, OPS, ARGS and TITLE for KEY.
load() {
	WORKLOAD=$WORKLOAD_FP
	case $1 in
	churn)
		TARGET=1.05 METHOD=side-by-side OPS=$CHURN_OPS ARGS=churn
		TITLE="a) small-object churn: free + malloc of 8-264 B, ring of 1024 live blocks" ;;
	mixed)
		TARGET=1.10 METHOD=side-by-side OPS=$MIXED_OPS ARGS=mixed
		TITLE="b) mixed sizes 16 B - 64 KiB (1 op in 8 a realloc), ring of 1024 live blocks" ;;
	mixed2)
		TARGET=1.05 METHOD=alternating OPS=$MIXED_OPS ARGS="-t 2 mixed"
		TITLE="c) the same mixed load split over 2 threads" ;;
	mixed8)
		TARGET=1.05 METHOD=alternating OPS=$MIXED_OPS ARGS="-t 8 mixed"
		TITLE="c8) the same mixed load split over 8 threads" ;;
	mixed16)
		TARGET=1.05 METHOD=alternating OPS=$MIXED_OPS ARGS="-t 16 mixed"
		TITLE="c16) the same mixed load split over 16 threads" ;;
	mixednofp)
		WORKLOAD=$WORKLOAD_NOFP
		TARGET=1.10 METHOD=side-by-side OPS=$MIXED_OPS ARGS=mixed
		TITLE="d) the mixed load built without frame pointers (stacks from unwind tables)" ;;
	esac
	[ -n "$SIDE_BY_SIDE" ] || METHOD=alternating
}

# load_round ROUND KEY: round ROUND of every configuration on the load;
# an alternating load runs two rounds for each side-by-side one, less the
# very last (see ALTERNATING_ROUNDS).
load_round() {
	load "$2"
	if [ "$METHOD" = side-by-side ]; then
		side_by_side_round "$1" "$2" $PAIRS -- $ARGS "$OPS"
	else
		alternating_round $((2 * $1 - 1)) "$2" $CONFIGS -- $ARGS "$OPS"
		[ "$1" -lt "$ROUNDS" ] &&
			alternating_round $((2 * $1)) "$2" $CONFIGS -- $ARGS "$OPS"
	fi
}

# all_rounds: every load's rounds, interleaved.
all_rounds() {
	local round=1 key
	while [ "$round" -le "$ROUNDS" ]; do
		for key in $LOADS; do
			load_round "$round" "$key"
		done
		printf '.' >&2
		round=$((round + 1))
	done
	echo >&2
	for key in $LOADS; do
		load "$key"
		[ "$METHOD" = side-by-side ] && reference_row "$key" $PAIRS
	done
}

# tracers KEY: the exhaustive tracers on fewer operations, each against
# glibc on as many.
tracers() {
	load "$1"
	if [ -n "$HEAPTRACK" ]; then
		alternating "$TRACER_ROUNDS" "$1-ht" glibc heaptrack -- $ARGS \
			"$(tracer_ops "$HEAPTRACK_DIVISOR")"
	fi
	if [ -n "$TCMALLOC" ]; then
		alternating "$TRACER_ROUNDS" "$1-hp" glibc tcmalloc heapprofile \
			-- $ARGS "$(tracer_ops "$HEAPPROFILE_DIVISOR")"
	fi
	printf '.' >&2
}

tracer_ops() {
	echo $((OPS > $1 ? OPS / $1 : 1))
}

# section KEY: the load's table.
section() {
	local key=$1 ht_ops hp_ops
	load "$key"
	ht_ops=$(tracer_ops "$HEAPTRACK_DIVISOR")
	hp_ops=$(tracer_ops "$HEAPPROFILE_DIVISOR")
	echo
	echo "$TITLE ($METHOD)"
	printf '  %-24s %5s %8s %7s %13s %7s  %-8s %7s %7s  %s\n' profiler \
		ops "wall s" ratio "mid half" "cpu" against "x glibc" "RSS MiB" \
		"target (wall ratio)"
	row "$key" glibc "none (glibc)" "$OPS" glibc
	row "$key" forward "forward-only preload" "$OPS" glibc
	row "$key" dormant "spprof-mem dormant" "$OPS" glibc "" "$TARGET"
	row "$key" recording "spprof-mem recording" "$OPS" glibc "" "$TARGET"
	if [ -n "$COMPARE" ]; then
		row "$key" compare "BENCH_COMPARE recording" "$OPS" glibc
	fi
	if [ -n "$JEMALLOC" ]; then
		row "$key" jemalloc "jemalloc, no profiling" "$OPS" glibc
	fi
	case $CONFIGS in *jeprof*)
		row "$key" jeprof "jemalloc prof (lg 19)" "$OPS" jemalloc glibc ;;
	esac
	if [ -n "$TCMALLOC" ]; then
		row "$key" tcmalloc "tcmalloc, no profiling" "$OPS" glibc
	fi
	if [ -n "$HEAPTRACK" ]; then
		row "$key-ht" glibc "none (glibc)" "$ht_ops" glibc
		row "$key-ht" heaptrack "heaptrack" "$ht_ops" glibc
	fi
	if [ -n "$TCMALLOC" ]; then
		row "$key-hp" glibc "none (glibc)" "$hp_ops" glibc
		row "$key-hp" tcmalloc "tcmalloc, no profiling" "$hp_ops" glibc
		row "$key-hp" heapprofile "tcmalloc HEAPPROFILE" "$hp_ops" \
			tcmalloc glibc
	fi
	recording_summary "$key"
}

# ---- callgrind ---------------------------------------------------------------------

# instructions CONFIG OUT WORKLOAD-ARG...: total Ir of one callgrind run.
instructions() {
	local config=$1 out=$2
	shift 2
	set -- "$VALGRIND" --tool=callgrind "--callgrind-out-file=$out" \
		"$WORKLOAD" "$@"
	case $config in
	dormant) set -- "LD_PRELOAD=$RUNTIME" "$@" ;;
	recording | compare)
		set -- "LD_PRELOAD=$(runtime_of "$config")" \
			"SPPROF_OUTPUT=$TMP/prof.mlyze" "$@" ;;
	esac
	"$BINDIR/bench-run" -o "$TMP/callgrind.times" "$@" >>"$LOG" 2>&1 ||
		fail "callgrind run failed: $*"
	case $config in recording | compare)
		keep_profile_size "$TMP/callgrind.times" "$TMP/prof.mlyze" ;;
	esac
	awk '$1 == "totals:" { print $2 }' "$out"
}

# runtime_share FILE: instructions spent in the runtime's own code (the
# self cost of every function in its object, which callgrind names by its
# real path).  Objects are named once, in
# an ob= or cob= line, then referred to by number; the line after each
# calls= line is the inclusive cost of a call, not a self cost.
runtime_share() {
	awk -v runtime="$RUNTIME_FILE" '/^c?ob=/ {
		split($0, part, /[=)]/)
		name_start = index($0, ") ")
		if (name_start) name[part[2]] = substr($0, name_start + 2)
		if (/^ob=/) object = name[part[2]]
		next
	}
	/^calls=/ { skip = 1; next }
	/^[0-9+*-]/ {
		if (skip) skip = 0
		else if (index(object, runtime)) own += $2
	}
	END { print own + 0 }' "$1"
}

callgrind_rows() {
	local label=$1 ops=$2 base ir own config
	shift 2
	base=$(instructions glibc "$TMP/cg.base" "$@" "$ops")
	for config in dormant recording ${COMPARE:+compare}; do
		ir=$(instructions "$config" "$TMP/cg.$config" "$@" "$ops")
		own=$(runtime_share "$TMP/cg.$config")
		awk -v l="$label" -v c="$config" -v o="$(human_ops "$ops")" \
			-v b="$base" -v i="$ir" -v own="$own" -v n="$ops" 'BEGIN {
			printf "  %-8s %6s %-10s %14.0f %14.0f %7.3f %8.1f %8.1f\n",
			       l, o, c, b, i, i / b, (i - b) / n, own / n }'
	done
}

# capture_cost WORKLOAD UNWIND: instructions of one stack capture (the
# runtime's profiler_capture_stack, callees included), averaged over its calls.
capture_cost() {
	"$BINDIR/bench-run" -o "$TMP/callgrind.times" "LD_PRELOAD=$RUNTIME" \
		"SPPROF_OUTPUT=$TMP/prof.mlyze" SPPROF_SAMPLING_RATE=65536 \
		"SPPROF_UNWIND=$2" "$VALGRIND" --tool=callgrind \
		"--callgrind-out-file=$TMP/cg.capture" "$1" mixed \
		"$CALLGRIND_MIXED_OPS" >>"$LOG" 2>&1 ||
		fail "callgrind run failed: $1 with SPPROF_UNWIND=$2"
	rm -f "$TMP/prof.mlyze"
	# Names are given once, as "(id) name", then "(id)" alone; the
	# line after a calls= line holds the call's inclusive cost.
	awk -v wanted=profiler_capture_stack '/^c?fn=\(/ {
		id = $0
		sub(/^c?fn=\(/, "", id)
		sub(/\).*/, "", id)
		name = $0
		if (sub(/^c?fn=\([0-9]+\) /, "", name))
			names[id] = name
		if (/^cfn=/)
			target = names[id] == wanted
		next
	}
	/^calls=/ {
		if (target) {
			split($0, part, /[= ]/)
			calls += part[2]
			take = 1
		}
		next
	}
	take { cost += $2; take = 0; target = 0 }
	END { printf "%.0f", calls ? cost / calls : 0 }' "$TMP/cg.capture"
}

capture_row() {
	printf '  %-34s %8s %8s %8s\n' "$1" "$(capture_cost "$2" fp)" \
		"$(capture_cost "$2" dwarf)" "$(capture_cost "$2" auto)"
}

# ---- memprof-ctl ----------------------------------------------------------------

CTL=$BINDIR/../src/memprof-ctl
CONTROL_ROUNDS=9

# ctl_ms OUT ARG...: runs memprof-ctl, appends its wall time (ms) to OUT.
ctl_ms() {
	local out=$1 t0 t1
	shift
	t0=$(date +%s%N)
	"$CTL" "$@" >>"$LOG" 2>&1 || fail "memprof-ctl $* failed"
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f\n", d / 1e6 }' >>"$out"
}

# control_rows: the mixed load runs dormant in the background; each round
# starts a recording window, lets it record for a second, takes a
# snapshot and stops it.
control_rows() {
	local pid round=1
	export XDG_RUNTIME_DIR=$TMP/xdg
	mkdir -p "$XDG_RUNTIME_DIR"
	LD_PRELOAD=$RUNTIME SPPROF_DORMANT=1 SPPROF_OUTPUT=$TMP/ctl.%p.mlyze \
		"$WORKLOAD" mixed 1000000000000 >>"$LOG" 2>&1 &
	pid=$!
	while [ ! -f "$XDG_RUNTIME_DIR/spprof/$pid" ]; do sleep 0.05; done
	while [ "$round" -le "$CONTROL_ROUNDS" ]; do
		ctl_ms "$TMP/ctl.start" start "$pid"
		sleep 1
		ctl_ms "$TMP/ctl.snapshot" snapshot "$pid" -o "$TMP/snap.mlyze"
		wc -c <"$TMP/snap.mlyze" >>"$TMP/ctl.size"
		rm -f "$TMP/snap.mlyze"
		ctl_ms "$TMP/ctl.stop" stop "$pid"
		round=$((round + 1))
	done
	kill "$pid"
	wait "$pid" 2>/dev/null
	rm -f "$TMP"/ctl.*.mlyze
	printf '  %-44s %8s ms\n' \
		"start on a dormant runtime (request answered)" \
		"$(median <"$TMP/ctl.start")" \
		"snapshot to the finalised file" "$(median <"$TMP/ctl.snapshot")" \
		"stop to the finalised profile" "$(median <"$TMP/ctl.stop")"
	awk '{ s += $1 } END { printf "  (snapshots of %.0f KiB on average)\n", s / NR / 1024 }' \
		"$TMP/ctl.size"
}

ATTACH_ROUNDS=5

# first_sample_ms PID T0: waits until PID's profile has a sample; prints the
# milliseconds since T0 (date +%s%N).
first_sample_ms() {
	until "$CTL" list 2>/dev/null |
		awk -v p="$1" '$1 == p && $3 > 0 { found = 1 } END { exit !found }'; do
		sleep 0.01
	done
	awk -v d=$(($(date +%s%N) - $2)) 'BEGIN { printf "%.1f\n", d / 1e6 }'
}

# attach_rows: the mixed load runs bare in the background; memprof-ctl
# attach loads the runtime with gdb; the time until its first sample.
attach_rows() {
	local pid round=1 t0
	export XDG_RUNTIME_DIR=$TMP/xdg SPPROF_RUNTIME=$RUNTIME
	mkdir -p "$XDG_RUNTIME_DIR"
	while [ "$round" -le "$ATTACH_ROUNDS" ]; do
		"$WORKLOAD" mixed 1000000000000 >>"$LOG" 2>&1 &
		pid=$!
		sleep 0.5
		t0=$(date +%s%N)
		ctl_ms "$TMP/ctl.attach" attach "$pid" \
			-o "$TMP/attach.%p.mlyze"
		first_sample_ms "$pid" "$t0" >>"$TMP/ctl.first"
		kill "$pid"
		wait "$pid" 2>/dev/null
		round=$((round + 1))
	done
	rm -f "$TMP"/attach.*.mlyze*
	printf '  %-44s %8s ms\n' \
		"attach to the first recorded sample" \
		"$(median <"$TMP/ctl.first")" \
		"  of which memprof-ctl attach (gdb)" "$(median <"$TMP/ctl.attach")"
}

# ---- the report ----------------------------------------------------------------------

MISSES=0
echo "spprof-mem overhead benchmark"
echo "runtime:   $RUNTIME"
[ -n "$COMPARE" ] && echo "compared:  $COMPARE (BENCH_COMPARE)"
echo "method:    $ROUNDS rounds side by side, $ALTERNATING_ROUNDS alternating (tracers $TRACER_ROUNDS);"
echo "           side by side = each configuration runs at the same time as the one it is"
echo "           compared against, each pinned to its own CPU;"
echo "           alternating = one after the other, order reversed every round;"
echo "           the rounds of the loads are interleaved (the tracers run last);"
echo "           forward-only = a preload that hands every call straight to the C library:"
echo "           the cost of interposition itself, which every preloaded profiler pays;"
echo "           wall s = median wall time of the whole process; ratio = median over rounds of"
echo "           wall time / wall time of 'against' in the same round; mid half = the range of"
echo "           the middle half of those rounds' ratios (a wide one: a noisy machine); cpu ="
echo "           the same ratio of CPU time (user + system); RSS = median peak resident set"
echo "peers:     jemalloc  ${JEMALLOC:-not installed}$JEMALLOC_NOTE"
echo "           tcmalloc  ${TCMALLOC:-not installed}"
echo "           heaptrack ${HEAPTRACK:-not installed}"
echo "sampling:  spprof-mem default rate (512 KiB); jemalloc lg_prof_sample:19 (512 KiB);"
echo "           heaptrack and tcmalloc HEAPPROFILE record every call"

all_rounds
for key in $LOADS; do
	tracers "$key"
done
echo >&2
for key in $LOADS; do
	section "$key"
done
WORKLOAD=$WORKLOAD_FP

if [ -n "$VALGRIND" ]; then
	echo
	echo "callgrind instruction counts (Ir, deterministic apart from where samples fall)"
	printf '  %-8s %6s %-10s %14s %14s %7s %8s %8s\n' load ops runtime \
		"Ir glibc" "Ir with" ratio "+Ir/op" "own/op"
	callgrind_rows churn "$CALLGRIND_CHURN_OPS" churn
	callgrind_rows mixed "$CALLGRIND_MIXED_OPS" mixed
	callgrind_rows maps "$CALLGRIND_MAPS_OPS" maps
	echo "  (maps: munmap + mmap of anonymous mappings, which the runtime samples"
	echo "   by their length; the kernel's share of each, not counted here, is"
	echo "   larger than the program's)"
	echo "  (+Ir/op: extra instructions per operation; own/op: instructions in the"
	echo "   runtime's own code per operation, fixed start-up and exit costs included)"
	echo
	echo "stack capture, Ir per sample (mixed load, $(human_ops "$CALLGRIND_MIXED_OPS") ops, one sample per 64 KiB)"
	printf '  %-34s %8s %8s %8s\n' workload fp dwarf auto
	capture_row "built with frame pointers" "$WORKLOAD_FP"
	capture_row "built without frame pointers" "$WORKLOAD_NOFP"
	echo "  (inclusive instructions of one stack capture: walk, checks, interning;"
	echo "   fp and dwarf force a method, auto is the default)"
else
	echo
	echo "callgrind: valgrind not installed, skipped"
fi

echo
echo "memprof-ctl on the mixed load, median of $CONTROL_ROUNDS windows of 1 s"
control_rows
if command -v gdb >/dev/null; then
	echo "memprof-ctl attach to the mixed load run bare, median of $ATTACH_ROUNDS"
	attach_rows
else
	echo "memprof-ctl attach: gdb not installed, skipped"
fi

echo
if [ "$MISSES" -eq 0 ]; then
	echo "targets: all met"
else
	echo "targets: $MISSES missed"
fi
echo "elapsed: $(($(date +%s) - STARTED)) s"
