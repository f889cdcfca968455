#!/bin/sh
# ctl-escapes.sh - what a process's user writes reaches root's terminal
# through memprof-ctl: the process's answers (stop, start, snapshot), its
# stream's name and its command line (list, status, top).  None of it
# may carry a control sequence: C0 controls (ESC, BEL), DEL, C1 controls
# (CSI as 0x9b, alone or in UTF-8) and bytes that are no UTF-8 are shown
# escaped.
attacker=spprof-t-ctlesc
. "$(dirname "$0")/security-helpers.sh"

esc=$(printf '\033')
evil=$(printf '\033]0;owned\007\033[2J\177\233\302\233\377x')
forged_process "$home/$evil.part" "$home/$evil" "$evil"

# raw FILE - fails when FILE holds a byte of a control sequence.
raw() {
	LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177\200-\237\377]')" "$1"
}

for command in "stop $pid" "start $pid" "snapshot $pid" "list" \
	"status $pid" "top $pid"; do
	"$ctl" $command >ctl.out 2>&1
	! raw ctl.out || fail "memprof-ctl $command printed: $(od -c ctl.out | head)"
done
# Shown, escaped, rather than dropped.
"$ctl" stop $pid >ctl.out 2>&1
grep -qF '\x1b]0;owned\x07' ctl.out || fail "the answer was not shown: $(cat ctl.out)"
pass
