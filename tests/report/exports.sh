#!/bin/sh
# The exports other tools read, beyond the golden files:
# - -o FILE chooses the format by its suffix, as --format would;
# - the folded stacks add up to the live heap of the JSON report;
# - the speedscope file validates against speedscope's published schema
#   (file-format-schema.json of the speedscope npm package, found in
#   $SPEEDSCOPE_SCHEMA or under `npm root -g`; with python3-jsonschema);
# - `go tool pprof` reads the pprof file as a Go heap profile with the
#   expected functions and values (exports/tree.pprof-raw), and names
#   a profile after its executable, not after its first library, and
#   with --label-pid tells the samples of two processes apart.
# Checks whose tool is missing are skipped, the others still run.
set -u
. "${srcdir:-.}/tests/report/common.sh"

for script in tree merge-a merge-b finalised mappings; do
	"$gen" compile "$here/profiles/$script.txt" "$scratch/$script.mlyze" ||
		exit 99
done
cd "$scratch" || exit 99

# -o FILE by suffix: the same bytes as --format.
for pair in json:out.json folded:out.folded speedscope:out.speedscope.json \
	    pprof:out.pb.gz html:out.html text:out.txt; do
	format=${pair%%:*} file=${pair#*:}
	"$report" -o "$file" tree.mlyze 2>/dev/null &&
		"$report" --format="$format" tree.mlyze >expected 2>/dev/null &&
		cmp -s expected "$file"
	verdict "-o $file writes $format" $?
done

# The folded values add up to the estimated live heap at the peak.
folded_sum=$("$report" -f folded finalised.mlyze 2>/dev/null |
	awk '{ sum += $NF } END { printf "%.0f\n", sum }')
json_total=$("$report" --json finalised.mlyze 2>/dev/null |
	sed -n 's/^  "live_bytes": \([0-9]*\),$/\1/p')
[ -n "$json_total" ] && [ "$folded_sum" = "$json_total" ]
verdict "folded sums to live_bytes ($folded_sum, $json_total)" $?

# speedscope: valid against the schema when there.
"$report" -f speedscope merge-a.mlyze merge-b.mlyze finalised.mlyze \
	>scope.json 2>/dev/null || exit 99
schema=${SPEEDSCOPE_SCHEMA:-}
if [ -z "$schema" ] && command -v npm >/dev/null 2>&1; then
	schema=$(npm root -g 2>/dev/null)/speedscope/dist/release/file-format-schema.json
fi
python=$(python_with jsonschema)
if [ -n "$python" ] && [ -f "$schema" ]; then
	"$python" - "$schema" scope.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.validate(json.load(open(sys.argv[2])), schema)
PY
	verdict "speedscope validates against $schema" $?
else
	echo "skipped: speedscope schema (set SPEEDSCOPE_SCHEMA to speedscope's file-format-schema.json, install python3-jsonschema)"
fi

# pprof: gzip, and what go tool pprof reads in it.
"$report" -f pprof tree.mlyze >tree.pb.gz 2>/dev/null && gzip -t tree.pb.gz
verdict "pprof is gzip" $?
if command -v go >/dev/null 2>&1; then
	HOME=$scratch GOCACHE=$scratch/go-cache TZ=UTC \
		go tool pprof -raw tree.pb.gz >raw 2>raw.err
	# Newer pprof (Go 1.24's) writes a location's column after its line.
	sed 's/:\([0-9]*\):[0-9]* s=/:\1 s=/' raw >raw.lines
	diff -u "$here/exports/tree.pprof-raw" raw.lines
	verdict "go tool pprof -raw reads the heap profile" $? "$(cat raw.err)"
	HOME=$scratch GOCACHE=$scratch/go-cache \
		go tool pprof -top -sample_index=alloc_space tree.pb.gz \
		>top 2>&1
	grep -q "^ *3072kB .* libstripped.so+0x1234$" top &&
		grep -q "^ *4096kB .* alloc_buffer$" top &&
		grep -q " 7680kB *100% *main$" top
	verdict "go tool pprof -top: functions and allocated bytes" $? \
		"$(cat top)"
	"$report" -f pprof mappings.mlyze >mappings.pb.gz 2>/dev/null &&
		HOME=$scratch GOCACHE=$scratch/go-cache \
			go tool pprof -top mappings.pb.gz >top 2>&1 &&
		grep -q "^File: app$" top
	verdict "go tool pprof names the profile after its executable" $? \
		"$(cat top)"
	# --label-pid: two processes' profiles in one file, told apart.
	"$report" -f pprof --label-pid merge-a.mlyze merge-b.mlyze \
		>merged.pb.gz 2>/dev/null &&
		HOME=$scratch GOCACHE=$scratch/go-cache \
			go tool pprof -tags merged.pb.gz >tags 2>&1 &&
		grep -q "^ *pid:" tags && grep -Eq "[^0-9]100$" tags &&
		grep -Eq "[^0-9]101$" tags
	verdict "--label-pid labels the samples of each process" $? \
		"$(cat tags)"
else
	echo "skipped: go tool pprof (no go; Debian: golang-go)"
fi
[ "$failures" -eq 0 ]
