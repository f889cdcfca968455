#!/bin/sh
# ctl-forged-entry.sh - a registry entry is written by its process's
# user, who may forge it.  Root's memprof-ctl must believe an entry only
# for a process of the user who owns it, and read the stream it names
# only when that is a regular file of that user's: an entry for pid 1,
# or one naming root's private profile (directly or through a link),
# shows nothing of that profile in list, status, top or /metrics, and
# the refusal reads the same whether a root file exists or not; an entry
# for a process of root's that handles SIGURG brings it no signal.  An entry
# its user cuts short while it is asked ends the request, not
# memprof-ctl.
attacker=spprof-t-ctlforge
. "$(dirname "$0")/security-helpers.sh"

# Root's private profile, and a directory of root's the user cannot
# look into.
a_profile private.mlyze
chmod 0600 private.mlyze
mkdir -m 0700 rootonly
a_profile rootonly/exists.mlyze
ln -s "$scratch/private.mlyze" "$home/link.part"

# `top` and `list` for a process whose entry names PART: nothing of
# root's profile is shown.
expect_nothing_shown() {
	"$ctl" top $1 >ctl.out 2>&1 && fail "top $1 reported on $2: $(cat ctl.out)"
	grep -q "/bin/ls" ctl.out && fail "top $1 showed root's profile via $2"
	"$ctl" list >list.out 2>&1 || fail "list failed: $(cat list.out)"
	! grep -q "^$1 .*recording  *[0-9]" list.out ||
		fail "list summarised root's profile via $2: $(cat list.out)"
}

# An entry for pid 1, which is root's.
as_user "$forge" write "$registry" 1 "$scratch/private.mlyze" ||
	fail "cannot forge an entry"
"$ctl" list >list.out 2>&1 || fail "list failed: $(cat list.out)"
! grep -q "^1 " list.out || fail "list believes an entry for pid 1: $(cat list.out)"
"$ctl" status 1 >ctl.out 2>&1 && fail "status 1 believed the entry: $(cat ctl.out)"
expect_nothing_shown 1 "an entry for pid 1"

# An entry for a process of root's without the runtime, which handles
# SIGURG itself: root's memprof-ctl refuses it, and signals nothing.
rm -f victim.in
mkfifo victim.in
"$abs_top_builddir/tests/integration/quiet-program" 64 own <victim.in \
	>victim.out 2>&1 &
victim=$!
exec 3>victim.in
for i in $(seq 300); do grep -q holding victim.out && break; sleep 0.1; done
as_user "$forge" write "$registry" $victim none ||
	fail "cannot forge an entry"
"$ctl" status $victim >ctl.out 2>&1 &&
	fail "status believed the entry of root's process: $(cat ctl.out)"
exec 3>&-
wait $victim || fail "root's process failed: $(cat victim.out)"
grep -qx "SIGURG 0" victim.out ||
	fail "root's process was signalled through a forged entry: $(cat victim.out)"

# The user's own process, naming root's profile, or a link to it.
forged_process "$scratch/private.mlyze" none
expect_nothing_shown $pid "its entry's stream name"
grep -q "refused" ctl.out || fail "top gave no reason: $(cat ctl.out)"
forged_process "$home/link.part" none
expect_nothing_shown $pid "a link"
grep -q "refused" ctl.out || fail "top gave no reason: $(cat ctl.out)"

# /metrics: no series for it; and root's files cannot be told from
# absent ones by the reason it is skipped.
linked=$pid
forged_process "$scratch/rootonly/exists.mlyze" none
exists=$pid
forged_process "$scratch/rootonly/absent.mlyze" none
absent=$pid
start_serve
curl -s "$url/metrics" >metrics.out || fail "no /metrics"
grep -q "pid=\"$linked\"" metrics.out &&
	fail "/metrics shows root's profile: $(grep "pid=\"$linked\"" metrics.out)"
reason() {
	sed -n "s/^# pid $1 skipped: //p" metrics.out | sed "s/$1/PID/g"
}
[ -n "$(reason $exists)" ] || fail "pid $exists not skipped: $(cat metrics.out)"
[ "$(reason $exists)" = "$(reason $absent)" ] ||
	fail "/metrics tells root's file from an absent one: '$(reason $exists)' and '$(reason $absent)'"
code=$(curl -s -o heap.out -w '%{http_code}' "$url/debug/pprof/heap?pid=$linked")
[ "$code" = 403 ] || fail "/debug/pprof/heap of a link to root's profile: $code"

# An entry cut short while root's memprof-ctl has it mapped: a message,
# not a crash.
forged cut "$home/none.part"
"$ctl" status $pid >ctl.out 2>&1
status=$?
[ $status = 1 ] || fail "status on an entry cut short: exit $status: $(cat ctl.out)"
grep -q "cut short" ctl.out || fail "no reason given: $(cat ctl.out)"
pass
