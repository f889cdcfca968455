#!/bin/sh
# ctl-memcached.sh - memprof-ctl on memcached while it serves: once its
# items are stored, memcached answers gets without allocating, and every
# request must be answered all the same (status, snapshot, start on a
# process already recording, stop, start, detach), with no client error;
# first on a memcached started under the runtime, then on one started
# without it and attached, as an operator finds it in production.
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

user=
[ "$(id -u)" -ne 0 ] || user="-u root"

# serve NAME [PRELOAD] - memcached (with PRELOAD) and a client that stores
# its items, says so, then gets them until NAME.stop exists, counting
# what it got wrong; their pids in $mc and $client.
serve() {
	port=$(/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	SPPROF_OUTPUT=$scratch/$1.%p.mlyze LD_PRELOAD=$2 \
		memcached -l 127.0.0.1 -p "$port" -U 0 -t 4 -m 64 $user \
		>$1.out 2>$1.err &
	mc=$!
	programs="$programs $mc"
	at_exit "kill $mc 2>/dev/null"
	/usr/bin/python3 - "$port" "$scratch/$1.stop" >$1-client.out 2>&1 <<'PY' &
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
	wait_for_line $client $1-client.out stored
}

# end NAME - the client stops, with no error, and memcached ends.
end() {
	touch $1.stop
	wait $client || fail "$1: the client failed: $(cat $1-client.out)"
	grep -q "errors 0$" $1-client.out ||
		fail "$1: client errors: $(cat $1-client.out)"
	kill $mc
	wait $mc
}

serve mc "$runtime_so"
expect 0 "recording" status $mc
expect 0 "mc.$mc.snapshot.mlyze" snapshot $mc
expect 1 "already recording" start $mc
expect 0 "mc.$mc.mlyze" stop $mc
expect 0 "dormant" status $mc
expect 0 "recording to $scratch/again.$mc.mlyze" start $mc -o again.%p.mlyze
expect 0 "again.$mc.mlyze" detach $mc
expect 0 "dormant" status $mc

end mc

# ---- started without the runtime, attached while it serves ----
if ! command -v gdb >/dev/null; then
	echo "gdb is not installed: memcached attached not tested"
elif skipped_under_emulation "memcached attached" \
	"gdb's ptrace reaches the emulator's process, not the program it runs"; then
	:
else
	serve bare
	if "$ctl" attach $mc -o "$scratch/att.%p.mlyze" >ctl.out 2>&1; then
		grep -q "process $mc: recording to $scratch/att.$mc.mlyze$" ctl.out ||
			fail "attach: $(cat ctl.out)"
		expect 0 "recording" status $mc
		expect 0 "att.$mc.snapshot.mlyze" snapshot $mc
		expect 1 "already recording" start $mc
		expect 0 "att.$mc.mlyze" stop $mc
		expect 0 "dormant" status $mc
		expect 0 "recording to $scratch/att2.$mc.mlyze" start $mc -o att2.%p.mlyze
		expect 0 "att2.$mc.mlyze" detach $mc
		expect 0 "recording to $scratch/att3.$mc.mlyze" attach $mc -o att3.%p.mlyze
		expect 0 "att3.$mc.mlyze" detach $mc
		expect 0 "dormant" status $mc
	elif grep -q "ptrace\|cannot call\|was left alone" ctl.out; then
		echo "attach is not possible here: $(cat ctl.out)"
	else
		fail "attach: $(cat ctl.out)"
	fi
	end bare
fi
pass
