#!/bin/sh
# text-paths.sh - file names that are not UTF-8.  A program run from a
# directory named in Latin-1 ("caf\351"): its streamed and its finished
# profile read, and its frames are symbolized, the symbolizer finding the
# program by the bytes of its path.  A Python script there, whose file
# name Python holds with a surrogate (U+DCE9) for the stray byte: its
# finished profile reads and names the script's function.  The program's
# command line holds the UTF-8 form of a surrogate (ED A0 80), which no
# JSON reader takes: the finished profile holds it repaired, and reads.
. "$(dirname "$0")/common.sh"

report=$abs_top_builddir/src/memprof-report
wrap=$abs_top_builddir/src/memprof-wrap
dir=$scratch/$(printf 'caf\351')
mkdir -p "$dir"
cp "$integ_bin/leak-program" "$dir/prog" || fail "no leak-program"
stop=$scratch/$(printf 'stop\355\240\200')

# read_names PROFILE FUNCTION - the report of PROFILE names FUNCTION.
read_names() {
	"$report" --top 5 "$1" >"$1.txt" 2>&1 || fail "$1 does not read: $(cat "$1.txt")"
	grep -q "$2" "$1.txt" || fail "$1: $2 not named: $(cat "$1.txt")"
}

SPPROF_SAMPLING_RATE=4096 SPPROF_OUTPUT=$scratch/prog.mlyze \
	start_under_runtime "$dir/prog" 1024 0 0 "$stop" \
	>"$scratch/prog.out" 2>"$scratch/prog.err"
program=$started_pid
# The program holds its blocks and waits once it has said so.
wait_for $program 30 grep -q "^live" "$scratch/prog.out" ||
	fail "the program never said live: $(cat "$scratch/prog.err")"
read_names "$scratch/prog.mlyze.part" hold_steady
touch "$stop"
wait $program || fail "the program exited with status $?: $(cat "$scratch/prog.err")"
read_names "$scratch/prog.mlyze" hold_steady

cat >"$dir/app.py" <<'PY'
def build_blocks():
    return [bytearray(65536) for _ in range(64)]

blocks = build_blocks()
print(len(blocks))
PY
python=/usr/bin/python3
[ -x "$python" ] || skip "the script's part needs Debian's python3"
"$wrap" -r 4096 -o "$scratch/app.mlyze" "$python" "$dir/app.py" \
	>"$scratch/app.out" 2>&1 || fail "the script under memprof-wrap: $(cat "$scratch/app.out")"
read_names "$scratch/app.mlyze" build_blocks
pass
