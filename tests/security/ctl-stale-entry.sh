#!/bin/sh
# ctl-stale-entry.sh - memprof-ctl removes the entries of processes that
# have ended.  They lie in a directory their user controls: while root's
# memprof-ctl reads them, the user swaps the directory with a link to a
# directory of root's, over and over.  Root's files there with the
# names of those entries must stay where they are: stale entries are
# removed through a descriptor of the directory that was read, never by
# a path.
attacker=spprof-t-ctlstale
. "$(dirname "$0")/security-helpers.sh"

# Entries for pids that cannot run (above pid_max), and root's files
# with the same names.
first=$(($(cat /proc/sys/kernel/pid_max) + 1))
count=2000
mkdir victim
(cd victim && seq $first $((first + count - 1)) | xargs touch)
entries() {
	as_user "$forge" write "$registry" $first /none $count ||
		fail "cannot forge"
}
elsewhere=/run/user/$uid/elsewhere
as_user ln -s "$scratch/victim" "$elsewhere" || fail "ln"
$as_user "$forge" swap "$registry" "$elsewhere" &
swapper=$!
started="$started $swapper"

for round in $(seq 10); do
	# The registry is a directory again while they are made.
	kill -STOP $swapper
	until [ "$(cut -d' ' -f3 /proc/$swapper/stat)" = T ]; do sleep 0.01; done
	if [ -L "$registry" ]; then
		as_user "$forge" exchange "$registry" "$elsewhere" ||
			fail "cannot put the registry back"
	fi
	entries
	kill -CONT $swapper
	"$ctl" list >list.out 2>&1
	left=$(ls victim | wc -l)
	[ "$left" = $count ] ||
		fail "round $round: $((count - left)) of root's files were removed"
done
pass
