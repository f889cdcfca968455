#!/bin/sh
# compare-outputs.sh - whether a change of the sources changed any output
# of memprof-report or mlyze-gen, for a refactor that must change none.
#
#   compare-outputs.sh OLD_BUILD_TREE NEW_BUILD_TREE
#   compare-outputs.sh --rev=REV NEW_BUILD_TREE
#
# The second form builds the git revision REV in a scratch worktree under
# $TMPDIR, configured as NEW_BUILD_TREE is, and removes it afterwards
# (make compare-outputs OLD=REV).  Both builds' mlyze-gen compile every
# script of tests/report/profiles and tests/report/malformed; the profiles
# that the new one writes, those of tests/report/arch and a large one are
# then read by both builds' memprof-report in every view of the table
# below.  Standard output, standard error and exit status are compared
# byte for byte, binary outputs (pprof, html, --symbolize) too, once
# normalise below has replaced the program's path and the time of the
# run: a line per difference, then "N compared, N differ".  Exit status 0
# when nothing differs, 1 when something does, 2 on bad usage or when a
# build fails.
set -u
usage() {
	echo "usage: $0 OLD_BUILD_TREE NEW_BUILD_TREE" >&2
	echo "       $0 --rev=REV NEW_BUILD_TREE" >&2
	exit 2
}
. "$(dirname "$0")/../testlib.sh"
unset DEBUGINFOD_URLS
source_tree=$(cd "$(dirname "$0")/../.." && pwd) || exit 2

# The views: a name, then the arguments of memprof-report, in which
# PROFILE stands for the profile read; a view without it runs once.  The
# profiles merge-a.mlyze and merge-b.mlyze are the second profile of the
# views that take two, and sites.supp the suppressions.
views() {
	cat <<'EOF'
help              --help
version           --version
no-profile
bad-option        --no-such-option PROFILE
text              PROFILE
all               --all PROFILE
top-3             --top 3 PROFILE
top-all           --top 0 PROFILE
by-line           --group-by line PROFILE
by-stack          --group-by stack PROFILE
by-thread         --group-by thread PROFILE
by-thread-json    --group-by thread --format=json PROFILE
cumulative        --cumulative PROFILE
cumulative-line   --cumulative --group-by line PROFILE
sort-allocated    --sort allocated PROFILE
sort-count        --sort count PROFILE
at-end            --at end PROFILE
at-time           --at 0.5s PROFILE
at-marker         --at parsed PROFILE
from-to           --from 0.3s --to 1s PROFILE
from-marker       --from parsed PROFILE
to-time           --to 0.5 PROFILE
json              --format=json PROFILE
json-at-end       --json --at end --all PROFILE
json-by-stack     --json --group-by stack PROFILE
json-at-time      --json --at 0.5s PROFILE
leaks             --leaks PROFILE
leaks-json        --leaks --all --format=json PROFILE
growth            --growth PROFILE
temporary         --temporary PROFILE
temporary-1s      --temporary=1s --sort allocated PROFILE
temporary-json    --temporary --format=json PROFILE
temporary-live    --temporary --sort live PROFILE
histogram         --histogram PROFILE
histogram-json    --histogram --json PROFILE
histogram-site    --histogram --site=alloc PROFILE
histogram-sort    --histogram --sort count PROFILE
thread-1          --thread=1 PROFILE
thread-name       --thread=worker --json PROFILE
kind-heap         --kind=heap PROFILE
kind-mapped       --kind=mapped PROFILE
kind-mapped-json  --kind=mapped --json PROFILE
kind-heap-folded  --kind=heap --format=folded PROFILE
keep-wrappers     --keep-wrappers PROFILE
suppressions      --at end --suppressions=sites.supp PROFILE
running           --running PROFILE
folded            --format=folded PROFILE
folded-allocated  --format=folded --sort allocated PROFILE
folded-at-end     --format=folded --at end PROFILE
speedscope        --format=speedscope PROFILE
pprof             --format=pprof PROFILE
pprof-count       --format=pprof --sort count PROFILE
pprof-label-pid   --format=pprof --label-pid PROFILE merge-b.mlyze
html              --format=html PROFILE
html-at-end       --format=html --at end PROFILE
merged            PROFILE merge-b.mlyze
merged-json       --json PROFILE merge-b.mlyze
base              --base=merge-a.mlyze PROFILE
base-all          --base=merge-a.mlyze --all PROFILE
base-json         --base=merge-a.mlyze --json PROFILE
base-pprof        --base=merge-a.mlyze --format=pprof PROFILE
base-html         --base=merge-a.mlyze --format=html PROFILE
symbolize         --symbolize PROFILE
symbolize-refused --symbolize --leaks PROFILE
EOF
}

# The suppressions of the view suppressions: a function, a module and a
# pattern that match nothing.
suppressions() {
	printf '%s\n' '# known leaks' 'leak:alloc_buffer' 'leak:libstripped' \
		'leak:^no_such_function$'
}

case ${1:-} in
--rev=) usage ;;
esac
[ $# -eq 2 ] || usage
new=$(cd "$2" && pwd) || usage

# built TREE: fails, saying so, unless TREE has both programs built.
built() {
	[ -x "$1/src/memprof-report" ] && [ -x "$1/tests/report/mlyze-gen" ] &&
		return
	echo "$0: $1 has no src/memprof-report and tests/report/mlyze-gen built" >&2
	return 1
}
built "$new" || exit 2

scratch=$(mktemp -d "${TMPDIR:-/tmp}/compare-outputs.XXXXXX") || exit 2
worktree=
cleanup() {
	[ -z "$worktree" ] ||
		git -C "$source_tree" worktree remove --force "$worktree"
	rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 2' HUP INT TERM

# build_revision REV: builds the git revision REV in a worktree of the
# source tree, configured as the new build tree was.
build_revision() {
	git -C "$source_tree" worktree add --quiet --detach "$scratch/old" "$1" ||
		exit 2
	worktree=$scratch/old
	echo "building $1 in $worktree"
	eval "set -- $(cd "$new" && ./config.status --config)"
	if ! (cd "$worktree" && ./autogen.sh && ./configure "$@" &&
		make -j2 && make -j2 tests/report/mlyze-gen) \
		>"$scratch/build.log" 2>&1; then
		tail -n 20 "$scratch/build.log" >&2
		echo "$0: the build in $worktree failed" >&2
		exit 2
	fi
}
case $1 in
--rev=*)
	build_revision "${1#--rev=}"
	old=$worktree
	;;
*) old=$(cd "$1" && pwd) || usage ;;
esac
built "$old" || exit 2

# The inputs, in one directory whose names every view sees the same: the
# profiles the new mlyze-gen compiles (each generator run, of both builds,
# is compared too), those the runtime recorded on each architecture with
# the programs they name, and a large one.
inputs=$scratch/inputs
mkdir -p "$inputs" "$scratch/old-gen" "$scratch/new-gen"
suppressions >"$inputs/sites.supp"
# generate NAME ARGUMENTS: runs both builds' mlyze-gen with ARGUMENTS, in
# which OUTPUT stands for the profile it writes, NAME.mlyze; the new one's
# is an input.
generate() {
	before=${2%%OUTPUT*} after=${2#*OUTPUT}
	for build in old new; do
		case $build in
		old) gen=$old/tests/report/mlyze-gen ;;
		new) gen=$new/tests/report/mlyze-gen ;;
		esac
		# shellcheck disable=SC2086 # words of the arguments
		"$gen" $before "$scratch/$build-gen/$1.mlyze" $after \
			>"$scratch/$build-gen/$1.stdout" \
			2>"$scratch/$build-gen/$1.stderr"
		echo $? >"$scratch/$build-gen/$1.status"
	done
	[ ! -f "$scratch/new-gen/$1.mlyze" ] ||
		cp "$scratch/new-gen/$1.mlyze" "$inputs/$1.mlyze"
}
for script in "$source_tree"/tests/report/profiles/*.txt \
	"$source_tree"/tests/report/malformed/*.txt; do
	generate "$(basename "$script" .txt)" "compile $script OUTPUT"
done
generate large "large 5000 OUTPUT 500"
generate tree-mutated-1 "mutate 1 $inputs/tree.mlyze OUTPUT"
generate finalised-mutated-2 "mutate 2 $inputs/finalised.mlyze OUTPUT"
for dir in "$source_tree"/tests/report/arch/*/; do
	arch=$(basename "$dir")
	cp "$dir/tree.mlyze" "$inputs/$arch-tree.mlyze"
	[ -f "$dir/alloc-program.mlyze" ] || continue
	cp "$dir/alloc-program.mlyze" "$inputs/$arch-alloc-program.mlyze"
	cp -R "$dir/root" "$inputs/$arch-root"
done

# profile_arguments NAME: how the views read the profile NAME.mlyze.
profile_arguments() {
	case $1 in
	*-alloc-program) echo "--sysroot=${1%-alloc-program}-root $1.mlyze" ;;
	*) echo "$1.mlyze" ;;
	esac
}

# normalise BUILD TREE: replaces in BUILD's outputs what they hold of
# the run rather than of the profile, the only bytes that may differ
# between two builds of the same sources: getopt's messages start with
# the path of the program, which is in its build tree; with --running, a
# process's duration runs to the moment of the report.
normalise() {
	for program in "$2/src/.libs/memprof-report" "$2/src/memprof-report"; do
		find "$scratch/$1" -name '*.stderr' -size +0 \
			-exec sed -i "s|^$program:|memprof-report:|" {} +
	done
	sed -i 's/^\(  duration  *\)[0-9.]* s$/\1(to now)/' \
		"$scratch/$1"/*/running.stdout
}

# run_views BUILD TREE: every view of every profile, into BUILD/.
run_views() {
	# The program itself where libtool built it shared, as its wrapper
	# script would run it: the wrapper's shell took longer than the report.
	report=$2/src/memprof-report libraries=
	if [ -x "$2/src/.libs/memprof-report" ]; then
		report=$2/src/.libs/memprof-report libraries=$2/src/mlyze/.libs
	fi
	views | while read -r view arguments; do
		case " $arguments " in
		*" PROFILE "*) profiles=$every_profile ;;
		*) profiles=- ;;
		esac
		for profile in $profiles; do
			before=${arguments%%PROFILE*} after=
			case $arguments in
			*PROFILE*) after="$(profile_arguments "$profile") ${arguments#*PROFILE}" ;;
			esac
			out=$scratch/$1/$profile
			mkdir -p "$out"
			# A reader that loops uses processor time: 60 s is a hang.
			# shellcheck disable=SC2086 # words of the arguments
			(cd "$inputs" && ulimit -t 60 &&
				LD_LIBRARY_PATH=$libraries NO_COLOR=1 exec "$report" \
				$before $after) </dev/null >"$out/$view.stdout" 2>"$out/$view.stderr"
			echo $? >"$out/$view.status"
		done
	done
}
every_profile=$(cd "$inputs" && for profile in *.mlyze; do
	echo "${profile%.mlyze}"
done)
set -f
run_views old "$old" &
old_views=$!
run_views new "$new"
wait "$old_views" || exit 2
set +f
normalise old "$old"
normalise new "$new"

# Every output of the new build against the old one's.
compared=0 differ=0
for file in $(cd "$scratch" && find new-gen new -type f | sort); do
	compared=$((compared + 1))
	cmp -s "$scratch/$file" "$scratch/old${file#new}" && continue
	differ=$((differ + 1))
	case $file in
	new-gen/*)
		name=${file#new-gen/}
		echo "differs: mlyze-gen ${name%.*}: ${name##*.}"
		;;
	new/*)
		profile=${file#new/} view=${file#new/*/}
		echo "differs: ${profile%%/*} ${view%.*}: ${view##*.}"
		;;
	esac
done
echo "$compared compared, $differ differ"
[ "$differ" -eq 0 ]
