#!/bin/sh
# Stacks deeper than a profile may hold (MLYZE_STACK_DEPTH_MAX, 1024
# frames; the runtime writes 64 at most): one of 160,000 frames in the
# stream and one of 2,000 in the metadata are read as damaged stacks,
# with a warning that names them, instead of making --cumulative take
# minutes; one of exactly 1024 frames is read whole.
. "${srcdir:-.}/tests/report/common.sh"

# script STREAM_DEPTH METADATA_DEPTH: a profile with metadata stack 0 of
# METADATA_DEPTH frames and stream stack 1 of STREAM_DEPTH frames, each
# sampled once.
script() {
	awk -v stream="$1" -v meta="$2" 'BEGIN {
		print "header start=1700000000000000"
		printf "metadata {\"sampling_rate\": 1, \"end_time_us\": 1700000001000000,"
		printf " \"modules\": {\"0\": {\"path\": \"/opt/spprof-test/deep\","
		printf " \"start\": 4194304, \"end\": 8388608, \"load_bias\": 0}},"
		printf " \"stack_traces\": {\"0\": ["
		for (i = 0; i < meta; i++)
			printf "%s{\"module_id\": 0, \"offset\": %d}", i ? ", " : "", 16 * i + 16
		print "]}}"
		printf "stack 1 1"
		for (i = 0; i < stream; i++)
			printf " native:%d", 4194304 + 16 * i + 16
		print ""
		print "alloc 10 0x1000 4096 0 1"
		print "alloc 10 0x2000 4096 1 1"
	}'
}

# check NAME STREAM_DEPTH METADATA_DEPTH WARNING: reads the profile with
# --cumulative; its stderr must hold WARNING (or, when empty, no damage).
check() {
	script "$2" "$3" >"$scratch/$1.txt"
	"$gen" compile "$scratch/$1.txt" "$scratch/$1.mlyze" || exit 99
	"$report" --cumulative "$scratch/$1.mlyze" >"$scratch/$1.out" \
		2>"$scratch/$1.err"
	status=$?
	if [ -z "$4" ]; then
		[ "$status" -eq 0 ] && ! grep -q damaged "$scratch/$1.err"
	else
		[ "$status" -eq 0 ] && grep -qF -e "$4" "$scratch/$1.err"
	fi
	verdict "$1" $? "(status $status: $(cat "$scratch/$1.err"))"
}

check deep-stream 160000 1 \
	"stack 1 has 160000 frames, more than the 1024 a profile may hold"
check deep-metadata 1 2000 \
	"stack 0 has 2000 frames, more than the 1024 a profile may hold"
check deepest-allowed 1024 1024 ""
[ "$failures" -eq 0 ]
