#!/bin/sh
# ctl-snapshot-answer.sh - `memprof-ctl snapshot PID -o FILE`, run by root,
# takes the snapshot's name from the process's answer, which the
# process's user writes.  A user who answers with a file of root's must
# not make root move, copy or remove it; a link of the user's own to it
# is refused too; only a regular file of the user's is taken, into a new
# file of root's that nobody else may read.
attacker=spprof-t-ctlsnap
. "$(dirname "$0")/security-helpers.sh"

# Root's files the attacker names: one on this file system, and an
# output on another one (tmpfs) for the copy that crosses them.
echo "root's precious data" >precious.txt
chmod 0600 precious.txt
ln -s "$scratch/precious.txt" "$home/link.mlyze"
other_fs=$(mktemp -d /dev/shm/spprof-t-ctlsnap.XXXXXX)
remove_at_end=$other_fs

# expect_refused ANSWER OUTPUT - a snapshot to OUTPUT when the process
# answers ANSWER fails, and leaves root's file and OUTPUT alone.
expect_refused() {
	forged_process "$home/stream.part" "$1"
	"$ctl" snapshot $pid -o "$2" >ctl.out 2>&1 &&
		fail "snapshot took $1: $(cat ctl.out)"
	grep -q "refused" ctl.out || fail "no reason given: $(cat ctl.out)"
	[ -f precious.txt ] || fail "root's file was removed through $1"
	grep -q "precious" precious.txt || fail "root's file changed"
	[ ! -e "$2" ] || fail "$2 was made from $1"
	kill $pid
}

expect_refused "$scratch/precious.txt" "$scratch/out.mlyze"
expect_refused "$scratch/precious.txt" "$other_fs/out.mlyze"
expect_refused "$home/link.mlyze" "$scratch/out.mlyze"
[ -L "$home/link.mlyze" ] || fail "the user's link was removed"

# A regular file of the user's is the snapshot: copied into a file of
# root's, 0600, and the user's removed.
echo "the user's snapshot" >"$home/snap.mlyze"
chown "$uid:$gid" "$home/snap.mlyze"
chmod 0644 "$home/snap.mlyze"
forged_process "$home/stream.part" "$home/snap.mlyze"
"$ctl" snapshot $pid -o "$other_fs/taken.mlyze" >ctl.out 2>&1 ||
	fail "a snapshot of the user's own file failed: $(cat ctl.out)"
grep -q "the user's snapshot" "$other_fs/taken.mlyze" ||
	fail "the snapshot was not copied"
[ "$(stat -c '%u %a' "$other_fs/taken.mlyze")" = "0 600" ] ||
	fail "the copy is $(stat -c '%u %a' "$other_fs/taken.mlyze")"
[ ! -e "$home/snap.mlyze" ] || fail "the user's snapshot was left"

# -o never writes through a link, or over a file.
echo "root's other data" >other.txt
ln -s "$scratch/other.txt" "$scratch/planted.mlyze"
"$ctl" snapshot $pid -o "$scratch/planted.mlyze" >ctl.out 2>&1 &&
	fail "snapshot wrote through a link"
grep -q "root's other data" other.txt || fail "the link's target changed"
pass
