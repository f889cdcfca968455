#!/bin/sh
# serve-robust.sh - memprof-ctl serve under abuse (serve-robust.py), its
# refusals, a clean stop on SIGTERM while a request waits, and a server
# that is not root refusing another user's process.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

ctl=$abs_top_builddir/src/memprof-ctl
hold=$integ_bin/hold-program
held_kib=1024
export XDG_RUNTIME_DIR=$scratch/xdg SPPROF_SAMPLING_RATE=65536
mkdir -p "$XDG_RUNTIME_DIR"
robust_py=$(cd "$(dirname "$0")" && pwd)/serve-robust.py
cd "$scratch" || fail "no scratch directory"

# status_of URL - the HTTP status of a GET, and its body in body.out.
status_of() {
	/usr/bin/python3 - "$1" >body.out <<'PY'
import sys, urllib.error, urllib.request
try:
    answer = urllib.request.urlopen(sys.argv[1], timeout=30)
except urllib.error.HTTPError as error:
    answer = error
sys.stdout.buffer.write(answer.read())
sys.stderr.write(f"{answer.status}\n")
PY
}

# refused URL STATUS TEXT - a one-line answer with that status.
refused() {
	got=$(status_of "$url$1" 2>&1 >/dev/null)
	[ "$got" = "$2" ] || fail "$1: status $got, not $2: $(cat body.out)"
	[ "$(wc -l <body.out)" = 1 ] || fail "$1: not one line: $(cat body.out)"
	grep -q "$3" body.out || fail "$1: no '$3' in: $(cat body.out)"
}

expect 2 "--listen takes ADDR:PORT, not 'localhost'" serve --listen localhost
expect 2 "--max-per-client is more than --max-connections" serve \
	--max-connections 4 --max-per-client 8
expect 2 "--growth-window takes a whole number, 1-2592000" serve \
	--growth-window 0
SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_hold rec
rec=$pid
start_serve --max-connections 64 --max-per-client 32 --timeout 3

refused "/debug/pprof/heap?pid=$rec&seconds=301" 400 "seconds= takes a whole number of seconds, 1-300"
refused "/debug/pprof/heap?pid=0" 400 "pid= takes a process id"
refused "/debug/pprof/heap?pid=$rec&debug=1" 400 "only the binary profile"
refused "/debug/pprof/heap?pid=$rec&what=1" 400 "unknown parameter"
refused "/debug/pprof/heap?seconds=1" 400 "seconds= needs pid="
refused "/metrics?pid=1" 400 "/metrics takes service= only"
refused "/targets?pid=1" 400 "this path takes no parameters"
refused "/metrics?service=" 400 "service= takes a service's name"
refused "/debug/pprof/heap?service=x&pid=$rec" 400 "service= takes neither pid= nor seconds="
refused "/debug/pprof/goroutine" 404 "no such path"
refused "/debug/pprof/heap?pid=999999999" 404 "999999999"
# A process without the runtime: attach loads it into the process as it runs.
sleep 300 &
bare=$!
programs="$programs $bare"
refused "/debug/pprof/heap?pid=$bare" 404 "memprof-ctl attach $bare"
kill $bare

# qemu-user keeps some 280 KiB of every thread that ended, and the server
# runs a thread per connection: its resident memory grows by that much a
# connection whatever the server does.
bound_memory=1
skipped_under_emulation "the bounds of the server's resident memory" \
	"the emulator keeps memory of every thread that ended" &&
	bound_memory=0
/usr/bin/python3 "$robust_py" \
	"${url##*:}" $server $rec $slowdown $bound_memory || fail "serve-robust.py"

# A stream that memprof-report cannot read: a 500 saying why, and the
# same line on the server's standard error.
start_unreadable_hold bad
bad=$pid
refused "/debug/pprof/heap?pid=$bad" 500 "bad.$bad.mlyze.part"
grep -q "memprof-ctl serve: 500: .*bad.$bad.mlyze.part" serve.err ||
	fail "the 500 is not on the server's standard error: $(cat serve.err)"
end_hold bad $bad

# SIGTERM stops the server at once, also while a request waits out its
# ?seconds= (sent by then: Python takes seconds to start under an emulator).
status_of "$url/debug/pprof/allocs?pid=$rec&seconds=60" 2>waiting.status &
waiting=$!
sleep $slowdown
started=$(date +%s)
stop_serve
[ $(($(date +%s) - started)) -le 5 ] || fail "SIGTERM took more than 5 s"
wait $waiting
grep -q 503 waiting.status || fail "the waiting request: $(cat waiting.status)"

# A server that is not root serves its own user's processes only.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# nobody runs a copy: the build tree may be in a private directory.
	as_nobody=$(mktemp -d /tmp/memprof-serve.XXXXXX) || exit 99
	cp "$abs_top_builddir/src/.libs/memprof-ctl" \
		"$abs_top_builddir/src/mlyze/.libs/libmlyze.so.0" "$as_nobody/"
	mkdir "$as_nobody/xdg"
	chown 65534:65534 "$as_nobody/xdg"
	chmod 755 "$as_nobody" "$as_nobody"/*
	rm -f serve.out serve.err # the port of the server before
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env XDG_RUNTIME_DIR="$as_nobody/xdg" LD_LIBRARY_PATH="$as_nobody" \
		"$as_nobody/memprof-ctl" serve --listen 127.0.0.1:0 \
		>serve.out 2>serve.err &
	server=$!
	wait_for_line $server serve.out "serving on port"
	url=http://127.0.0.1:$(sed -n 's/.*serving on port //p' serve.out)
	refused "/debug/pprof/heap?pid=$rec" 403 "process $rec belongs to uid 0; this server runs as uid 65534"
	status_of "$url/" 2>/dev/null
	grep -q "pid=$rec" body.out && fail "another user's process listed: $(cat body.out)"
	stop_serve
	rm -rf "$as_nobody"
else
	echo "not root: another user's process not tested"
fi
end_hold rec $rec
pass
