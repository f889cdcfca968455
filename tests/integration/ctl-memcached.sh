#!/bin/sh
# ctl-memcached.sh - memprof-ctl on memcached while it serves: once its
# items are stored, memcached answers gets without allocating, and every
# request must be answered all the same (status, snapshot, start on a
# process already recording, stop, start, detach), with no client error.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

command -v memcached >/dev/null || {
	echo "no memcached: skipped"
	exit 77
}
ctl=$abs_top_builddir/src/memprof-ctl
export XDG_RUNTIME_DIR=$scratch/xdg
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"

port=$(/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
user=
[ "$(id -u)" -ne 0 ] || user="-u root"
SPPROF_OUTPUT=$scratch/mc.%p.mlyze LD_PRELOAD=$runtime_so \
	memcached -l 127.0.0.1 -p "$port" -U 0 -t 4 -m 64 $user \
	>mc.out 2>mc.err &
mc=$!
programs="$programs $mc"
at_exit="kill $mc 2>/dev/null; $at_exit"

# The client: stores its items, says so, then gets them until told to
# stop; it counts what it got wrong.
/usr/bin/python3 - "$port" "$scratch/client.stop" >client.out 2>&1 <<'PY' &
import os, socket, sys, time
for _ in range(600):
    try:
        conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        break
    except OSError:
        time.sleep(0.05)
stream = conn.makefile("rwb")
for i in range(20000):
    stream.write(b"set key%d 0 0 100\r\n%s\r\n" % (i, b"v" * 100))
stream.flush()
errors = sum(stream.readline() != b"STORED\r\n" for i in range(20000))
print("stored", flush=True)
gets = 0
while not os.path.exists(sys.argv[2]):
    stream.write(b"get key%d\r\n" % (gets % 20000))
    stream.flush()
    errors += stream.readline().split()[:2] != [b"VALUE", b"key%d" % (gets % 20000)]
    errors += len(stream.readline()) != 102 or stream.readline() != b"END\r\n"
    gets += 1
print("gets", gets, "errors", errors, flush=True)
PY
client=$!
programs="$programs $client"
wait_for_line client.out stored

expect 0 "recording" status $mc
expect 0 "mc.$mc.snapshot.mlyze" snapshot $mc
expect 1 "already recording" start $mc
expect 0 "mc.$mc.mlyze" stop $mc
expect 0 "dormant" status $mc
expect 0 "recording to $scratch/again.$mc.mlyze" start $mc -o again.%p.mlyze
expect 0 "again.$mc.mlyze" detach $mc
expect 0 "dormant" status $mc

touch client.stop
wait $client || fail "the client failed: $(cat client.out)"
grep -q "errors 0$" client.out || fail "client errors: $(cat client.out)"
kill $mc
wait $mc
pass
