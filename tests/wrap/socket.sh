#!/bin/sh
# memprof-wrap's socket against a second local user, with the real
# runtime: every local user sees the socket's name (/proc/net/unix), and a
# root memprof-wrap hears none of their datagrams: no profile published
# from a file they hand over (its descriptor closed unread), no line of
# theirs on the terminal, however many they send.  The command's own
# processes may flood it too: what it shows and keeps is bounded, and it
# ends when the command does.  Bytes a terminal would obey arrive escaped.
. "${srcdir:-.}/tests/wrap/common.sh"
. "$top_srcdir/tests/second-user.sh"

use_real_runtime
second_user spprof-t-wrap
# A directory every user may write in, like /tmp: where the profiles go.
shared=$(mktemp -d /tmp/spprof-wrap-socket.XXXXXX) || exit 99
chmod 1777 "$shared"
at_exit 'rm -rf "$shared"; remove_second_user'

# 1. The second user finds root's memprof-wrap's socket by its name, and
# sends what would publish a root-owned profile of its content, lines for
# the terminal, a descriptor with data in it, and a flood.
"$wrap" -q -o "$shared/app.%p.mlyze" sh -c \
	'while [ ! -e "$0" ]; do sleep 0.1; done' "$work/attacked" \
	2>"$work/err" &
wrapped=$!
as_second_user /usr/bin/python3 - "$wrapped" "$shared" <<'PYTHON' &
import array, os, socket, sys, time
wrap_pid, directory = sys.argv[1], sys.argv[2]
name = None
for _ in range(300):
    for line in open("/proc/net/unix"):
        fields = line.split()
        if len(fields) >= 8 and \
           fields[7].startswith("@memprof-wrap.%s." % wrap_pid):
            name = fields[7]
    if name:
        break
    time.sleep(0.1)
if not name:
    sys.exit("no socket of memprof-wrap in /proc/net/unix")
address = "\0" + name[1:]
part = directory + "/evil.part"
open(part, "w").close()
content = os.memfd_create("evil")
os.write(content, b"the second user's content")
unread, kept = os.pipe()
os.write(kept, b"unread")
sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)

def send(line, fds=()):
    rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
    sender.sendmsg([line], rights if fds else [], 0, address)

send(b"H %s\n" % part.encode(), [content])
send(b"P %s\t1\n" % part.encode())
send(b"M \x1b]2;owned\x07 from outside\n")
send(b"H %s\n" % part.encode(), [unread])
for i in range(20000):
    send(b"M flood %d\n" % i)
# The descriptor went to memprof-wrap and back unread: its data is there.
os.set_blocking(unread, False)
with open(directory + "/outsider.result", "w") as result:
    result.write(os.read(unread, 64).decode() + "\n")
PYTHON
attacker=$!
wait "$attacker" || fail "the second user's program failed"
touch "$work/attacked"
wait "$wrapped" || fail "memprof-wrap failed: $(cat "$work/err")"
expect_in "$shared/outsider.result" unread
expect_in "$work/err" "memprof-wrap: refused 20004 datagrams from processes outside the command (the first from process"
grep -q 'owned\|flood\|evil' "$work/err" &&
	fail "the second user's lines were heard: $(head -5 "$work/err")"
ls "$shared" | grep -v '^app\.[0-9]*\.mlyze$' |
	grep -v '^evil\.part$\|^outsider\.result$' >"$work/left" &&
	fail "files made for the second user: $(cat "$work/left")"

# 2. A message of the runtime that holds escape bytes (a setting's
# value, here: C1 CSI, DEL, ESC, C1 in UTF-8, a byte that is not UTF-8)
# is shown with them escaped; valid UTF-8 is shown as it is.
odd=$(printf 'x\233\177\033[2J\302\233\377\303\251')
run 0 env SPPROF_UNWIND="$odd" "$wrap" -q -o "$work/odd.%p.mlyze" \
	"$helpers/print-argv"
expect_in "$work/err" 'SPPROF_UNWIND=x\x9b\x7f\x1b[2J\xc2\x9b\xff'"$(printf '\303\251')"' is not'
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177\200-\237]')" "$work/err" &&
	fail "control bytes reached the terminal: $(od -c "$work/err" | head)"
LC_ALL=C grep -q "$(printf '\302\233')" "$work/err" &&
	fail "a C1 control in UTF-8 reached the terminal"

# 3. The command floods memprof-wrap with 20,000 messages of 4000 bytes
# (80 MB), then ends: memprof-wrap shows a bounded part of them, says it
# dropped the rest, and ends.  Judged by what it writes, not by time: it
# is stopped as failed once it has written more than the bound.
bound=$((1000 * 4100 + 65536))
"$wrap" -q -o "$work/flood.%p.mlyze" /usr/bin/python3 -c '
import os, socket
# As the runtime sends: after the key, when the address has one.
name, _, key = os.environ["SPPROF_MANIFEST"][1:].partition("#")
prefix = key.encode() + b" " if key else b""
sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for i in range(20000):
    sender.sendto(prefix + b"M " + b"%05d" % i + b"." * 3995 + b"\n",
                  "\0" + name)
' 2>"$work/flood.err" &
wrapped=$!
while kill -0 "$wrapped" 2>/dev/null; do
	if [ "$(stat -c %s "$work/flood.err")" -gt "$bound" ]; then
		kill "$wrapped"
		fail "memprof-wrap wrote more than $bound bytes of the command's messages"
	fi
	sleep 0.2
done
wait "$wrapped" || fail "memprof-wrap failed after the flood: $(tail -3 "$work/flood.err")"
expect_in "$work/flood.err" "memprof-wrap: dropped 19000 lines from the command's processes"
[ "$(grep -c '^[0-9]*\.\.\.' "$work/flood.err")" -eq 1000 ] ||
	fail "not 1000 messages shown: $(grep -c '^[0-9]*\.\.\.' "$work/flood.err")"

# 4. A process of the command hands over a sparse file of 100 MB as its
# profile: copied, it takes no more disk than its data; past twice the
# profile's size limit, it is refused.
handover='
import array, os, socket, sys
name, _, key = os.environ["SPPROF_MANIFEST"][1:].partition("#")
part = sys.argv[1] + ".part"
open(part, "w").close()
big = os.open(sys.argv[1] + ".big", os.O_RDWR | os.O_CREAT, 0o600)
os.unlink(sys.argv[1] + ".big")
os.pwrite(big, b"data", 50 << 20)
os.ftruncate(big, 100 << 20)
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg(
    [(key.encode() + b" " if key else b"") + b"H " + part.encode() + b"\n"],
    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [big]))],
    0, "\0" + name)
'
mkdir sparse limited
run 0 "$wrap" -q -o "$work/sparse/p.mlyze" /usr/bin/python3 -c "$handover" \
	"$work/sparse/handed.mlyze"
[ "$(stat -c %s sparse/handed.mlyze)" -eq $((100 << 20)) ] ||
	fail "the handed-over file was not published whole: $(ls -l sparse)"
[ "$(du -k sparse/handed.mlyze | cut -f1)" -lt 1024 ] ||
	fail "the holes of the handed-over file were filled: $(du -k sparse/handed.mlyze)"
run 0 "$wrap" -q --max-size=1M -o "$work/limited/p.mlyze" /usr/bin/python3 \
	-c "$handover" "$work/limited/handed.mlyze"
expect_in "$work/err" "is larger than the profile's size limit; it is not published"
[ -e limited/handed.mlyze ] && fail "a file past the size limit was published"
exit 0
