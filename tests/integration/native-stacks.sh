#!/bin/sh
# native-stacks.sh - complete native call stacks on code built as
# distributions build it, without frame pointers (see callers.c and
# callers-cxx.cc): every caller of each allocation site is in the profile,
# in order, symbolized by memprof-report, with the default unwinding
# (auto) and with the unwind tables forced (dwarf); the same program built
# with frame pointers gets the same stacks, most of them from the cheap
# frame-pointer walk.  Then Debian's python3 with numpy: native frames of
# numpy, of the interpreter and of the program's entry in one stack.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/stacks.sh"

wrap=$abs_top_builddir/src/memprof-wrap

# profile NAME PROGRAM ARGS...: records PROGRAM under memprof-wrap (rate
# 64 KiB, which samples every site's 1 MiB block) into $scratch/NAME.mlyze.
profile() {
	name=$1
	shift
	timeout $((60 * slowdown)) "$wrap" -q -r 64K -o "$scratch/$name.mlyze" -- "$@" ||
		fail "'$*' failed under memprof-wrap"
}

"$integ_bin/callers" methods 2>/dev/null &&
	fail "callers methods ran without the runtime"
if ! under_runtime SPPROF_OUTPUT="$scratch/probe.mlyze" SPPROF_UNWIND=dwarf \
	"$integ_bin/callers" methods 2>&1 |
	grep -q 'dwarf_stacks=[1-9]'; then
	skip "no unwind table reader on this architecture"
fi

for unwind in auto dwarf; do
	SPPROF_UNWIND=$unwind
	export SPPROF_UNWIND
	for program in callers callers-fp; do
		p=$integ_bin/$program
		profile $program-library-$unwind "$p" library
		expect_stack "$scratch/$program-library-$unwind.mlyze" \
			library_site library_inner library_outer run_library main
		profile $program-threads-$unwind "$p" threads
		expect_stack "$scratch/$program-threads-$unwind.mlyze" \
			thread_site thread_body
		# between the handler and the interrupted function: the
		# signal trampoline (the kernel's, in the vDSO or the C
		# library, where the runtime looks for it)
		if ! skipped_under_emulation "$program signal, $unwind" \
			"its own sigreturn trampoline"; then
			profile $program-signal-$unwind "$p" signal
			expect_stack "$scratch/$program-signal-$unwind.mlyze" \
				signal_site on_segv '*' touch_guarded_page \
				run_signal main
		fi
		profile $program-plugin-$unwind "$p" plugin
		expect_stack "$scratch/$program-plugin-$unwind.mlyze" \
			plugin_leaf plugin_outer run_plugin main
	done
	profile cxx-$unwind "$integ_bin/callers-cxx"
	expect_stack "$scratch/cxx-$unwind.mlyze" ... \
		'Index<int>::add(int const&, int)' \
		'void fill_index<int>(Index<int>&)' main
	expect_stack "$scratch/cxx-$unwind.mlyze" ... \
		'grow_series(std::vector<double, std::allocator<double> >&)' \
		'build_series()' main
done

# Every allocation sampled, while another thread loads and unloads a
# plugin that allocates as it loads: no deadlock with the dynamic linker.
for unwind in auto dwarf; do
	SPPROF_OUTPUT=$scratch/race-$unwind.mlyze SPPROF_SAMPLING_RATE=1
	SPPROF_UNWIND=$unwind
	export SPPROF_OUTPUT SPPROF_SAMPLING_RATE SPPROF_UNWIND
	run_preloaded 120 "$integ_bin/callers" dlopen-race
	check_profile --complete "$SPPROF_OUTPUT"
done

# Which method took the stacks: the unwind tables wherever frame pointers
# are missing; the frame-pointer walk for nearly all stacks of a program
# built with them, once the thread's outermost frame is known.  At one
# sample per 4 KiB, each of the 1000 allocations of 1 MiB is sampled but
# with a chance of e^-256 (at one per 64 KiB, e^-16: a count of 999 in
# about one run in 10^4).
SPPROF_SAMPLING_RATE=4096
# counts PROGRAM UNWIND: "fp_stacks=N dwarf_stacks=M" of the methods mode
counts() {
	SPPROF_OUTPUT=$scratch/methods-$1-$2.mlyze SPPROF_UNWIND=$2
	run_preloaded 60 "$integ_bin/$1" methods >"$scratch/counts" &&
		cat "$scratch/counts"
}
expect_counts() {
	got=$(counts "$1" "$2")
	case $got in
	$3) ;;
	*) fail "$1 with SPPROF_UNWIND=$2: $got, expected $3" ;;
	esac
}
expect_counts callers auto 'fp_stacks=0 dwarf_stacks=1???'
expect_counts callers-fp auto 'fp_stacks=9?? dwarf_stacks=[1-9]'
# memprof-report tells the same counts, in text and in JSON.
profile_file=$scratch/methods-callers-fp-auto.mlyze
# expect_shown WHERE COUNTS: COUNTS, shown in WHERE, are the runtime's.
expect_shown() {
	[ "$2" = "$(cat "$scratch/counts")" ] ||
		fail "memprof-report's $1 has '$2', the runtime counted $(cat "$scratch/counts")"
}
expect_shown text "$("$report" "$profile_file" | sed -n 's/^  stacks  *\([0-9]*\) walked by frame pointers, \([0-9]*\) read from unwind tables$/fp_stacks=\1 dwarf_stacks=\2/p')"
expect_shown JSON "$("$report" --format=json "$profile_file" | python3 -c '
import json, sys
p = json.load(sys.stdin)["profiles"][0]
print("fp_stacks=%d dwarf_stacks=%d" % (p["fp_stacks"], p["dwarf_stacks"]))')"
expect_counts callers-fp fp 'fp_stacks=1??? dwarf_stacks=0'
expect_counts callers dwarf 'fp_stacks=0 dwarf_stacks=1???'
# A stack deeper than the limit is cut there, and counted.
for program in callers callers-fp; do
	for unwind in auto dwarf; do
		SPPROF_OUTPUT=$scratch/deep-$program-$unwind.mlyze
		SPPROF_UNWIND=$unwind
		run_preloaded 60 "$integ_bin/$program" deep >"$scratch/deep"
		grep -qx 'truncated_stacks=[1-9]' "$scratch/deep" ||
			fail "$program deep, $unwind: $(cat "$scratch/deep")"
		expect_stack "$SPPROF_OUTPUT" deep_site deep_site
	done
done
unset SPPROF_OUTPUT SPPROF_SAMPLING_RATE SPPROF_UNWIND
# memprof-wrap --unwind forces a method, and knows no other.
watched 60 "$wrap" -q --unwind=frames -- true 2>/dev/null
[ $? = 2 ] || fail "memprof-wrap --unwind=frames is not a usage error"
for unwind in fp dwarf; do
	watched 60 "$wrap" -q -r 4K --unwind=$unwind \
		-o "$scratch/wrap-$unwind.mlyze" -- "$integ_bin/callers-fp" \
		methods >"$scratch/counts" || fail "memprof-wrap --unwind=$unwind"
	case $unwind:$(cat "$scratch/counts") in
	fp:fp_stacks=1???\ dwarf_stacks=0) ;;
	dwarf:fp_stacks=0\ dwarf_stacks=1???) ;;
	*) fail "memprof-wrap --unwind=$unwind: $(cat "$scratch/counts")" ;;
	esac
done

# numpy under Debian's python3, both built without frame pointers.
python=/usr/bin/python3
if "$python" -c 'import numpy' 2>/dev/null; then
	script='import numpy
def make():
    return numpy.ones(4000000)
kept = make()'
	# Native frames only (no Python frame walker): numpy's, the
	# interpreter's and the program's entry, in one stack.
	SPPROF_PYTHON_WALKER= profile numpy-native "$python" -c "$script"
	expect_stack "$scratch/numpy-native.mlyze" '_multiarray_umath*' \
		... '_PyEval_EvalFrameDefault' ... Py_BytesMain
	# With Python frames: numpy's native frames, then the script's.
	profile numpy "$python" -c "$script"
	expect_stack "$scratch/numpy.mlyze" '_multiarray_umath*' ... \
		ones make '<module>'
else
	echo "$test_name: no numpy for $python: its stacks are not checked"
fi
pass
