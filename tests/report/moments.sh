#!/bin/sh
# Any moment and any stretch: --at TIME or MARKER counts the live bytes
# at that moment, in every view (text, JSON, the exports); --from and
# --to count only the blocks allocated between two moments, in every
# estimate; bad moments are refused naming the problem (exit status 2).
# The profiles are profiles/tree.txt (blocks far above the sampling rate:
# every estimate is exact): parse allocates 3 x 1 MiB at 0.1 to 0.3 s and
# frees one at 0.4 s, marker "parsed" at 0.5 s, render 2 x 2 MiB at 1.0
# and 1.1 s and 512 KiB at 1.2 s (freed at 1.8 s), marker "rendered" at
# 1.9 s, end at 4 s; and profiles/checkpointed.txt, whose size limit kept
# its events from 3 s on.
set -u
. "${srcdir:-.}/tests/report/common.sh"
python=$(python_with json)
[ -n "$python" ] || { echo "no python3: skipped"; exit 77; }

"$gen" compile "$here/profiles/tree.txt" "$scratch/tree.mlyze" &&
	"$gen" compile "$here/profiles/checkpointed.txt" \
		"$scratch/checkpointed.mlyze" || exit 99
cd "$scratch" || exit 99

# json NAME EXPRESSION OPTIONS...: the Python EXPRESSION on the JSON
# report `r` of tree.mlyze with OPTIONS holds.
json() {
	name=$1 expression=$2
	shift 2
	"$report" -f json "$@" >"$name.json" 2>/dev/null &&
		"$python" -c "import json, sys
r = json.load(open(sys.argv[1]))
sites = {s['site'].split(' ')[0]: s for s in r['sites']}
sys.exit(0 if ($expression) else 1)" "$name.json"
	verdict "$name" $? "$(cat "$name.json")"
}

MiB=1048576
json at-marker "r['at'] == 'moment' and r['moment']['name'] == 'marker parsed'
	and r['moment']['bytes'] == 2 * $MiB and r['live_bytes'] == 2 * $MiB
	and sites['alloc_buffer']['moment']['bytes'] == 2 * $MiB
	and r['profiles'][0]['moment_time_s'] == 0.5" --at parsed tree.mlyze
json at-seconds "r['moment']['bytes'] == 6.5 * $MiB
	and r['moment']['name'] == '1.25 s'
	and r['profiles'][0]['moment_time_s'] == 1.25" --at 1.25s tree.mlyze
# A moment after the last event but within the run: the end's state.
json at-last-second "r['moment']['bytes'] == 6 * $MiB" --at 4 tree.mlyze
json neither-moment-nor-stretch "'moment' not in r and 'stretch' not in r
	and 'moment' not in r['sites'][0]" tree.mlyze
json stretch "r['allocated_bytes'] == 4 * $MiB
	and r['peak']['bytes'] == 4 * $MiB and r['end']['bytes'] == 4 * $MiB
	and r['stretch'] == {'from': 'marker parsed', 'to': '1.15 s',
		'sampled_blocks_left_out': 4}
	and list(sites) == ['alloc_buffer']
	and sites['alloc_buffer']['allocated_bytes'] == 4 * $MiB
	and any('from marker parsed to 1.15 s' in n and '4 sampled blocks'
		in n for n in r['notes'])" --from parsed --to 1.15 tree.mlyze
json stretch-and-moment "r['moment']['bytes'] == 2.5 * $MiB" \
	--from 1.1 --at 1.5 tree.mlyze
json from-on "r['allocated_bytes'] == 4.5 * $MiB
	and r['stretch']['to'] is None" --from parsed tree.mlyze
json to-marker "r['allocated_bytes'] == 3 * $MiB
	and r['end']['bytes'] == 2 * $MiB" --to parsed tree.mlyze

NO_COLOR=1 "$report" --at parsed tree.mlyze >text.out 2>/dev/null
grep -qF 'At moment    marker parsed, 0.500 s: 2.0 MiB ± 0 B (95 % interval), 2 samples' \
	text.out &&
	grep -q '^ AT MOMENT  ±95%' text.out &&
	grep -qF 'Top 1 of 1 sites by live bytes at marker parsed,' text.out
verdict "text: the moment's line, column and title" $? "$(cat text.out)"

"$report" --at 1.25 -f folded tree.mlyze >at.folded 2>/dev/null &&
	"$report" --at peak -f folded tree.mlyze >peak.folded 2>/dev/null &&
	"$report" --at parsed -f folded tree.mlyze >parsed.folded 2>/dev/null
cmp -s at.folded peak.folded && ! cmp -s parsed.folded peak.folded &&
	grep -q ' 2097152$' parsed.folded
verdict "folded stacks weigh the moment's live bytes" $? \
	"$(cat parsed.folded)"

# refused NAME MESSAGE OPTIONS...: exit status 2 and MESSAGE on stderr.
refused() {
	name=$1 message=$2
	shift 2
	"$report" "$@" >/dev/null 2>refused.err
	status=$?
	[ "$status" -eq 2 ] && grep -qF -- "$message" refused.err
	verdict "refused: $name" $? "(status $status) $(cat refused.err)"
}

refused beyond-the-run \
	"memprof-report: --at 99s: the profile tree.mlyze spans 0 to 4.0 s" \
	--at 99s tree.mlyze
refused no-such-marker \
	"memprof-report: --at nosuch: tree.mlyze has no marker 'nosuch'" \
	--at nosuch tree.mlyze
refused negative "--at -3: not a time in seconds from the start" \
	--at -3 tree.mlyze
refused not-a-number "--to 1.5x: not a time in seconds" --to 1.5x tree.mlyze
refused empty-stretch "--from must come before --to" \
	--from 2 --to 1 tree.mlyze
refused markers-reversed "--from rendered, --to parsed: in tree.mlyze, the stretch between them is empty" \
	--from rendered --to parsed tree.mlyze
refused from-beyond "--from 5: the profile tree.mlyze spans 0 to 4.0 s" \
	--from 5 tree.mlyze

# A profile with a size limit: a moment or a stretch in the events it
# kept is counted as any other; one before them is refused, naming where
# they start, and so is a marker only the discarded events had.
json checkpointed-moment "r['moment']['bytes'] == 2 * $MiB" \
	--at 4.2 checkpointed.mlyze
json checkpointed-stretch "r['allocated_bytes'] == $MiB
	and r['end']['bytes'] == $MiB" --from 3.5 checkpointed.mlyze
json checkpointed-to "r['allocated_bytes'] == 4 * $MiB
	and r['moment']['bytes'] == 2 * $MiB" \
	--to after --at after checkpointed.mlyze
refused before-the-checkpoint "--at 2s: the size limit of checkpointed.mlyze discarded its events before 3.000 s; its checkpoints keep the live heap's total there, not who allocated it: choose a moment from 3.000 s on" \
	--at 2s checkpointed.mlyze
refused stretch-before-the-checkpoint "--from 1: the size limit of checkpointed.mlyze discarded its events before 3.000 s" \
	--from 1 checkpointed.mlyze
refused discarded-marker "--at before: checkpointed.mlyze has no marker 'before' in the events its size limit kept" \
	--at before checkpointed.mlyze
[ "$failures" -eq 0 ]
