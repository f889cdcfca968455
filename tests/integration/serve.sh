#!/bin/sh
# serve.sh - memprof-ctl serve read by Go's own pprof client over HTTP:
# the functions of hold-program with the estimates memprof-report gives
# on the same stream, -diff_base between two fetches, ?seconds=, and a
# service by name (?service=, /targets) across a restart of its process.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

if ! command -v go >/dev/null; then
	echo "go is not installed: Go's pprof client not tested"
	exit 77
fi
ctl=$abs_top_builddir/src/memprof-ctl
report=$abs_top_builddir/src/memprof-report
hold=$integ_bin/hold-program
held_kib=8192
export XDG_RUNTIME_DIR=$scratch/xdg SPPROF_SAMPLING_RATE=65536
# Go keeps its caches and fetched profiles under these.
export HOME=$scratch/home GOPATH=$scratch/go GOCACHE=$scratch/gocache \
	PPROF_TMPDIR=$scratch/pprof GOTOOLCHAIN=local
mkdir -p "$XDG_RUNTIME_DIR" "$HOME"
cd "$scratch" || fail "no scratch directory"

SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_hold rec
rec=$pid
part=$scratch/rec.$rec.mlyze.part
start_serve

sites() {
	"$report" --format json --at end --top 0 --all "$part" >"$1" 2>/dev/null ||
		fail "memprof-report on $part"
}

# check_raw RAW BEFORE AFTER - Go's view of the profile (pprof -raw) puts
# in main what hold-program holds and in churn what its threads churn,
# within the intervals of the reports on the stream before and after.
check_raw() {
	/usr/bin/python3 - "$@" <<'PY' || fail "$1 and the reports differ: $(cat "$1")"
import json, re, sys

raw, before, after = (open(f).read() for f in sys.argv[1:4])
names = dict(re.findall(r"^ +(\d+): 0x[0-9a-f]+ M=\d+ (\S+)", raw, re.M))
values = {}
for v, stack in re.findall(r"^ +((?:-?\d+ +){3}-?\d+): ([\d ]+)$", raw, re.M):
    leaf = names.get(stack.split()[0])
    sums = values.setdefault(leaf, [0, 0, 0, 0])
    for i, x in enumerate(v.split()):
        sums[i] += int(x)

def site(report, function):
    for s in json.loads(report)["sites"]:
        if s["site"].split()[0] == function:
            return s
    sys.exit(f"no site {function} in the report")

ok = True
for function, index, key in (("main", 3, "live_bytes"),
                             ("main", 1, "allocated_bytes"),
                             ("churn", 1, "allocated_bytes")):
    low = site(before, function)
    high = site(after, function)
    lo = low[key] - low[key + "_ci95"]
    hi = high[key] + high[key + "_ci95"]
    got = values.get(function, [0] * 4)[index]
    print(f"{function} {key}: pprof {got}, reports [{lo}, {hi}]")
    ok &= lo <= got <= hi
sys.exit(0 if ok else 1)
PY
}

sites before.json
go tool pprof -raw "$url/debug/pprof/heap?pid=$rec" >heap.raw 2>heap.err ||
	fail "go tool pprof: $(cat heap.err); the server said: $(cat serve.err)"
sites after.json
grep -q "hold-program.c" heap.raw || fail "no file of hold-program in: $(cat heap.raw)"
check_raw heap.raw before.json after.json
grep -q "^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes" \
	heap.raw || fail "not the sample types of a Go heap profile: $(head heap.raw)"

# Two fetches a second apart: their difference is the churn meanwhile;
# what main holds has not moved.
for n in 1 2; do
	go tool pprof -proto "$url/debug/pprof/allocs?pid=$rec" >fetch$n.pb.gz \
		2>fetch.err ||
		fail "go tool pprof -proto: $(cat fetch.err); the server said: $(cat serve.err)"
	sleep 1
done
go tool pprof -raw -diff_base fetch1.pb.gz fetch2.pb.gz >diff.raw 2>diff.err ||
	fail "go tool pprof -diff_base: $(cat diff.err)"
go tool pprof -top -sample_index=alloc_space -diff_base fetch1.pb.gz \
	fetch2.pb.gz >diff.top 2>diff.err || fail "-diff_base -top: $(cat diff.err)"
grep -Eq '^ +[1-9][0-9.]*[kMG]?B .* churn$' diff.top ||
	fail "no growth of churn between two fetches: $(cat diff.top)"
go tool pprof -top -sample_index=inuse_space -diff_base fetch1.pb.gz \
	fetch2.pb.gz >held.top 2>diff.err || fail "-diff_base -top: $(cat diff.err)"
grep -Eq '^ +0 .* main$' held.top || ! grep -q ' main$' held.top ||
	fail "what main holds moved between two fetches: $(cat held.top)"

# ?seconds=, as Go's client asks it: what was allocated meanwhile.
go tool pprof -seconds 1 -top -sample_index=alloc_space \
	"$url/debug/pprof/allocs?pid=$rec" >delta.top 2>delta.err ||
	fail "go tool pprof -seconds: $(cat delta.err)"
grep -Eq '^ +[1-9][0-9.]*[kMG]?B .* churn$' delta.top ||
	fail "no churn in the last second: $(cat delta.top)"
grep -Eq '^ +[1-9][0-9.]*[kMG]?B .* main$' delta.top &&
	fail "main allocated in the last second: $(cat delta.top)"

end_hold rec $rec

# A service by name, across a restart of its process: the same URL, and
# the discovery endpoint names it, whatever its pid.
service="serve test $$"
last=
for run in 1 2; do
	SPPROF_SERVICE=$service SPPROF_OUTPUT=$scratch/svc.%p.mlyze \
		start_hold svc$run
	/usr/bin/python3 - "$url/targets" "$service" <<'PY' ||
import json, sys, urllib.request

groups = json.load(urllib.request.urlopen(sys.argv[1], timeout=600))
mine = [g for g in groups if g["labels"].get("service") == sys.argv[2]]
assert len(mine) == 1, groups
assert mine[0]["labels"]["__param_service"] == sys.argv[2], mine
assert mine[0]["targets"] == [sys.argv[1].split("/")[2]], mine
PY
		fail "/targets does not name the service: $(cat serve.err)"
	go tool pprof -raw "$url/debug/pprof/heap?service=$service" \
		>svc$run.raw 2>svc.err ||
		fail "go tool pprof ?service=: $(cat svc.err); the server said: $(cat serve.err)"
	grep -q "hold-program.c" svc$run.raw ||
		fail "no file of hold-program in the service's profile: $(cat svc$run.raw)"
	# Each sample labelled with its process: this run's, not the last's.
	go tool pprof -tags "$url/debug/pprof/heap?service=$service" \
		>svc$run.tags 2>svc.err || fail "go tool pprof -tags: $(cat svc.err)"
	grep -q "pid:" svc$run.tags && grep -Eq "[^0-9]$pid\$" svc$run.tags ||
		fail "the samples are not labelled pid $pid: $(cat svc$run.tags)"
	[ -z "$last" ] || ! grep -Eq "[^0-9]$last\$" svc$run.tags ||
		fail "the service's profile still has process $last: $(cat svc$run.tags)"
	last=$pid
	end_hold svc$run $pid
done

# A process that no longer allocates: the server's profile, made from
# the replay it keeps between requests, is byte for byte the file
# memprof-report --format=pprof writes of the stream, the first time and
# the next (the replay taken up again, after a scrape of /metrics too),
# and a service's is that of memprof-report --label-pid.
quiet_service="quiet test $$"
hold_stops="$hold_stops $scratch/quiet.stop"
SPPROF_SERVICE=$quiet_service SPPROF_OUTPUT=$scratch/quiet.%p.mlyze \
	start_under_runtime "$integ_bin/leak-program" 2048 64 5 \
	"$scratch/quiet.stop" >quiet.out 2>quiet.err
quiet=$started_pid
programs="$programs $quiet"
wait_for_line $quiet quiet.out "live"
"$report" --format=pprof -o quiet.pb.gz "$scratch/quiet.$quiet.mlyze.part" \
	2>/dev/null || fail "memprof-report on the quiet process's stream"
"$report" --format=pprof --label-pid -o quiet-service.pb.gz \
	"$scratch/quiet.$quiet.mlyze.part" 2>/dev/null ||
	fail "memprof-report --label-pid on the quiet process's stream"
# fetch PATH FILE
fetch() {
	/usr/bin/python3 -c 'import sys, urllib.request
open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1], timeout=600).read())' \
		"$url$1" "$2" || fail "$1: $(tail -1 serve.err)"
}
fetch "/debug/pprof/heap?pid=$quiet" quiet1.pb.gz
fetch /metrics quiet.metrics
fetch "/debug/pprof/allocs?pid=$quiet" quiet2.pb.gz
fetch "/debug/pprof/heap?service=$(printf %s "$quiet_service" | sed 's/ /%20/g')" \
	quiet-service1.pb.gz
for n in 1 2; do
	cmp -s quiet.pb.gz quiet$n.pb.gz ||
		fail "fetch $n of the quiet process is not memprof-report's file"
done
cmp -s quiet-service.pb.gz quiet-service1.pb.gz ||
	fail "the quiet service's profile is not memprof-report --label-pid's"
touch "$scratch/quiet.stop"
wait $quiet || fail "leak-program: exit status $?"

stop_serve
pass
