#!/bin/sh
# fork-exec.sh - profiles of a process tree (see forker.c): one finalised
# profile per process that exits, through exit() or _exit(), named
# prof.mlyze for the root and prof.PID.mlyze for descendants, each holding
# only its own process's events; only
# the root's profile with SPPROF_FOLLOW_FORK=0; and never a profile written
# over an existing file, whether the name was taken before the process
# started (PID reuse) or while it ran.
. "$(dirname "$0")/common.sh"

tab=$(printf '\t')

# roles_of ROLE - the pids forker printed for ROLE.
roles_of() {
	sed -n "s/^$1 //p" "$scratch/roles"
}

# expect_files DIR FILE... - DIR holds exactly these files.
expect_files() {
	dir=$1
	shift
	printf '%s\n' "$@" | LC_ALL=C sort >"$scratch/expected"
	files_in "$dir" >"$scratch/actual"
	diff "$scratch/expected" "$scratch/actual" ||
		fail "$dir does not hold the expected files"
}

# --- following forks and execs ---------------------------------------
tree=$scratch/tree
mkdir "$tree"
SPPROF_OUTPUT=$tree/prof.mlyze SPPROF_SAMPLING_RATE=4096
SPPROF_MANIFEST=$scratch/manifest
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE SPPROF_MANIFEST
run_preloaded 60 "$integ_bin/forker" >"$scratch/roles"
unset SPPROF_MANIFEST

parent=$(roles_of parent)
sh_pid=$(roles_of sh)
quitter=$(roles_of _exit)
normal=$(roles_of 'exit'; roles_of exec)
if test -z "$parent" || test -z "$sh_pid" || test -z "$quitter"; then
	fail "forker did not name its processes"
fi

# The shell allocates little and may end with _exit (dash does): it may
# leave no profile, a streamed one or a finalised one, checked when there.
for kind in complete streamed; do
	name=$tree/prof.$sh_pid.mlyze
	test $kind = complete || name=$name.part
	if test -e "$name"; then
		check_profile --$kind --pid="$sh_pid" --ppid="$parent" \
			--thread="$sh_pid" "$name"
		rm "$name"
	fi
done
# shellcheck disable=SC2046 # one name per child
expect_files "$tree" prof.mlyze \
	$(for pid in $normal $quitter; do echo "prof.$pid.mlyze"; done)

check_profile --complete --pid="$parent" --thread="$parent" --unique-live \
	--min-allocs=100 "$tree/prof.mlyze"
grep -qx "F $tree/prof.mlyze.part$tab$tree/prof.mlyze" "$scratch/manifest" ||
	fail "manifest lacks the parent's F line"
# _exit() skips exit handlers, but the runtime finishes the profile there.
for pid in $normal $quitter; do
	check_profile --complete --pid="$pid" --ppid="$parent" \
		--thread="$pid" --unique-live --min-allocs=100 \
		"$tree/prof.$pid.mlyze"
	grep -qx "F $tree/prof.$pid.mlyze.part$tab$tree/prof.$pid.mlyze" \
		"$scratch/manifest" || fail "manifest lacks the F line of $pid"
done

# --- not following ----------------------------------------------------
alone=$scratch/alone
mkdir "$alone"
SPPROF_OUTPUT=$alone/prof.mlyze SPPROF_FOLLOW_FORK=0
export SPPROF_FOLLOW_FORK
run_preloaded 60 "$integ_bin/forker" >"$scratch/roles"
unset SPPROF_FOLLOW_FORK
expect_files "$alone" prof.mlyze
check_profile --complete --pid="$(roles_of parent)" \
	--thread="$(roles_of parent)" --unique-live "$alone/prof.mlyze"

# --- PID reuse: the names a process would take exist already ----------
reuse=$scratch/reuse
mkdir "$reuse"
SPPROF_OUTPUT=$reuse/r%p.mlyze
# The shell leaves old profiles under its own pid, then becomes forker.
watched 30 sh -c 'echo old >"$1/r$$.mlyze" && echo older >"$1/r$$.1.mlyze" &&
	(cd "$1" && sha256sum r$$.mlyze r$$.1.mlyze) >"$2/sums" &&
	echo $$ >"$2/pid" && exec env LD_PRELOAD="$3" "$4" leaf' \
	sh "$reuse" "$scratch" "$runtime_so" "$integ_bin/forker" ||
	fail "forker leaf failed"
pid=$(cat "$scratch/pid")
(cd "$reuse" && sha256sum -c --quiet "$scratch/sums") ||
	fail "an existing profile was changed"
expect_files "$reuse" "r$pid.mlyze" "r$pid.1.mlyze" "r$pid.2.mlyze"
check_profile --complete --pid="$pid" "$reuse/r$pid.2.mlyze"

# --- the final name is taken while the process runs -------------------
squat=$scratch/squat
mkdir "$squat"
SPPROF_OUTPUT=$squat/s.mlyze
run_preloaded 30 "$integ_bin/forker" squat "$squat/s.mlyze"
pid=$(sed -n 's/^squatter //p' "$squat/s.mlyze")
test "$(cat "$squat/s.mlyze")" = "squatter $pid" ||
	fail "the file that took the profile's name was changed"
expect_files "$squat" s.mlyze s.1.mlyze
check_profile --complete --pid="$pid" "$squat/s.1.mlyze"
pass
