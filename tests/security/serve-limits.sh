#!/bin/sh
# serve-limits.sh - one client cannot stop memprof-ctl serve for the
# others: 100 connections at once from loopback, each a request that
# waits (?seconds=), all get an HTTP answer (200, or 429 past the limit
# per client, 503 past the limit in all), none a reset; and a request
# whose client hangs up during its ?seconds= wait gives its slot back at
# once: with one request allowed per client, the next one is served; and
# a client holding connections open without a request keeps no one else
# out.
. "$(dirname "$0")/../integration/common.sh"
. "$(dirname "$0")/../integration/ctl-helpers.sh"
. "$(dirname "$0")/serve-helpers.sh"

SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_hold rec
rec=$pid

# crowd PORT COUNT PATH - COUNT connections at once, each asking PATH:
# prints how many got each status ("reset" for none).
crowd() {
	/usr/bin/python3 - "$@" <<'PY'
import collections, socket, sys, threading

port, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
request = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
ready = threading.Barrier(count)
statuses = collections.Counter()

def one():
    answer = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=600) as s:
            ready.wait()
            s.sendall(request.encode())
            while chunk := s.recv(65536):
                answer += chunk
    except OSError as error:
        statuses[f"reset ({error.__class__.__name__})"] += 1
        return
    statuses[answer[9:12].decode() if answer.startswith(b"HTTP/1.") else "reset"] += 1

threads = [threading.Thread(target=one) for _ in range(count)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(" ".join(f"{k}:{v}" for k, v in sorted(statuses.items())))
PY
}

# The limits as shipped: 64 requests, 16 of one client.
start_serve
answers=$(crowd "${url##*:}" 100 "/debug/pprof/heap?pid=$rec&seconds=2")
echo "100 connections at once: $answers"
echo "$answers" | grep -q reset && fail "connections reset: $answers"
echo "$answers" | grep -Eq '(^| )429:' || fail "no 429 past the limit per client: $answers"
echo " $answers" | sed 's/ 200:[0-9]*//; s/ 429:[0-9]*//; s/ 503:[0-9]*//' |
	grep -q '[^ ]' && fail "other answers than 200, 429, 503: $answers"
stop_serve

# A client that hangs up during its wait.  With one request per client,
# a second request is refused (429) while the first waits: that shows it
# is under way; once its client is gone, the next request is served.
start_serve --max-per-client 1 --max-connections 4
/usr/bin/python3 - "${url##*:}" "$rec" >gone.out 2>&1 <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(f"GET /debug/pprof/heap?pid={sys.argv[2]}&seconds=300 HTTP/1.1\r\n"
          "Host: x\r\n\r\n".encode())
print("sent", flush=True)
time.sleep(600)
PY
waiting=$!
programs="$programs $waiting"
wait_for_line $waiting gone.out sent
# The server reads the request when a loaded machine lets it; and a 429
# may also come from an earlier request's connection that the server has
# not yet seen closed: two in a row show the waiting request's slot.
held=0 tries=0
while [ $held -lt 2 ]; do
	if [ "$(status_of "" "$url/")" = 429 ]; then
		held=$((held + 1))
	else
		held=0
	fi
	tries=$((tries + 1))
	[ $tries -lt 3000 ] ||
		fail "the waiting request never held its slot: $(cat body.out)"
	kill -0 $waiting 2>/dev/null || fail "the waiting client ended: $(cat gone.out)"
	[ $held -ge 2 ] || sleep 0.1
done
kill -KILL $waiting
wait $waiting 2>/dev/null
# The server notices the hang-up as it happens: the slot is free as soon
# as it has run (a few tries at most, however loaded the machine).
tries=0
until [ "$(status_of "" "$url/")" = 200 ]; do
	tries=$((tries + 1))
	[ $tries -lt 100 ] || fail "the slot of a client that hung up is still held: $(cat body.out)"
	sleep 0.2
done
echo "the slot was free after $tries tries"
expect_status 200 "" "$url/debug/pprof/heap?pid=$rec"
stop_serve

# A client that holds connections open without asking anything: past its
# share (twice --max-per-client) they are closed after two seconds of
# silence, not --timeout, so another user gets in and is answered.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	start_serve --max-connections 4 --max-per-client 2 --timeout 600
	/usr/bin/python3 - "${url##*:}" >idle.out 2>&1 <<'PY' &
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        for _ in range(40)]
print("holding", flush=True)
time.sleep(600)
PY
	idle=$!
	programs="$programs $idle"
	wait_for_line $idle idle.out holding
	# While every connection is taken, a new one is closed at once, as a
	# full server does: the other user gets in as soon as the silent
	# ones past their share are closed (after 2 s), while the idle client
	# still holds its connections open.
	tries=0
	until [ "$(status_of nobody "$url/" -m 30)" = 200 ]; do
		tries=$((tries + 1))
		[ $tries -lt 10 ] ||
			fail "another user was never answered beside idle connections: $(cat body.out)"
		sleep 1
	done
	kill -0 $idle 2>/dev/null ||
		fail "another user was answered only once the idle client had gone: $(cat idle.out)"
	echo "another user was answered after $tries refusals"
	kill -KILL $idle
	wait $idle 2>/dev/null
	stop_serve
else
	echo "not root: another user beside idle connections not tested"
fi

end_hold rec $rec
pass
