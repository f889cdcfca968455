#!/bin/sh
# python-bench.sh - what profiling a Python program costs.
#
# Runs bench/python_workload.py (JSON, dicts and lists, byte buffers,
# numpy) as memprof-wrap would run it - libspprof-alloc preloaded, a
# profile recorded, Python frames attached by the bindings' walker - and
# plain, and prints the median wall time of each setting and its ratio to
# the plain run.  Settings:
#   plain              python3, nothing else
#   profiled           runtime + walker, as memprof-wrap runs Python by
#                      default (pymalloc kept: small objects unseen)
#   plain+malloc       PYTHONMALLOC=malloc alone: what the small-object
#                      mode costs by itself, without the profiler
#   profiled+malloc    runtime + walker + PYTHONMALLOC=malloc, as with
#                      memprof-wrap --python-allocators=malloc
#   heaptrack          heaptrack, for scale (one run; when installed)
#
# Usage: bench/python-bench.sh [-n RUNS] [-r RATE] [BUILD_DIR]
# (or make bench-python)
# BUILD_DIR is the build tree (default: the current directory); RATE the
# sampling rate in bytes (default: the runtime's, 524288).

set -eu

runs=5
rate=
while getopts n:r: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) rate=$OPTARG ;;
	*)
		echo "usage: $0 [-n RUNS] [-r RATE] [BUILD_DIR]" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
runtime=$build/lib/.libs/libspprof-alloc.so.0
walker=$(ls "$build"/python/pkg/spprof/_memprof.*so 2>/dev/null | head -1)

if [ ! -e "$runtime" ] || [ -z "$walker" ]; then
	echo "$0: $build: no runtime or Python bindings built there" >&2
	exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

RUNS=$runs RATE=$rate RUNTIME=$runtime WALKER=$walker WORK=$work \
	WORKLOAD=$here/python_workload.py exec "$python" - <<'EOF'
import os, shutil, statistics, subprocess, sys, time

env = {k: v for k, v in os.environ.items()
       if not k.startswith("SPPROF_") and k not in ("LD_PRELOAD",
                                                    "PYTHONMALLOC")}
profiled = dict(env, LD_PRELOAD=os.environ["RUNTIME"],
                SPPROF_PYTHON_WALKER=os.environ["WALKER"],
                SPPROF_OUTPUT=os.path.join(os.environ["WORK"], "p.%p.mlyze"))
if os.environ["RATE"]:
    profiled["SPPROF_SAMPLING_RATE"] = os.environ["RATE"]
settings = [
    ("plain", env, []),
    ("profiled", profiled, []),
    ("plain+malloc", dict(env, PYTHONMALLOC="malloc"), []),
    ("profiled+malloc", dict(profiled, PYTHONMALLOC="malloc"), []),
]
command = [sys.executable, os.environ["WORKLOAD"]]


def measure(environment, prefix):
    """Wall and CPU (user + system) seconds of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(prefix + command, env=environment,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             cwd=os.environ["WORK"])
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        sys.exit(f"{' '.join(prefix + command)} failed ({status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


runs = {name: [] for name, _, _ in settings}
for _ in range(int(os.environ["RUNS"])):
    for name, environment, prefix in settings:  # interleaved: fair to all
        runs[name].append(measure(environment, prefix))
results = {name: tuple(statistics.median(m[i] for m in r) for i in (0, 1))
           for name, r in runs.items()}
if shutil.which("heaptrack"):
    results["heaptrack"] = measure(env, ["heaptrack", "-o", os.path.join(
        os.environ["WORK"], "heaptrack")])
wall0, cpu0 = results["plain"]
print(f"{os.environ['RUNS']} runs, medians; sampling rate "
      f"{os.environ['RATE'] or 'default (524288)'}")
print(f"{'setting':<20}{'wall s':>9}{'ratio':>8}{'cpu s':>9}{'ratio':>8}")
for name, (wall, cpu) in results.items():
    print(f"{name:<20}{wall:>9.3f}{wall / wall0:>7.3f}x"
          f"{cpu:>9.3f}{cpu / cpu0:>7.3f}x")
EOF
