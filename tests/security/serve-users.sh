#!/bin/sh
# serve-users.sh - memprof-ctl serve as the shipped unit runs it (root, on
# loopback, no web configuration) gives a local user only that user's
# processes: a second user's curl for root's process's heap is refused,
# and /metrics and the index show neither root's process nor the
# service named in its environment (nor /targets, nor ?service=); that
# user's own process is served.  The same holds for the profile with its
# symbols (/debug/mlyze).  A client on an address that is not loopback
# is known to no one: it sees an empty index and no data.
. "$(dirname "$0")/../integration/common.sh"
. "$(dirname "$0")/../integration/ctl-helpers.sh"
. "$(dirname "$0")/serve-helpers.sh"

need_root "another user's requests"
add_user spprof-t-srvu

SPPROF_SERVICE=root-secret-service SPPROF_OUTPUT=$scratch/rec.%p.mlyze \
	start_hold rec
rec=$pid
start_user_hold own $user
own=$pid
start_serve

# The other user's requests for root's process.
expect_status 403 $user "$url/debug/pprof/heap?pid=$rec"
expect_status 403 $user "$url/debug/pprof/allocs?pid=$rec&seconds=1"
expect_status 403 $user "$url/debug/mlyze?pid=$rec"
expect_status 200 $user "$url/metrics"
grep -q "pid=\"$rec\"" body.out && fail "root's process in the user's /metrics"
grep -q root-secret-service body.out &&
	fail "root's SPPROF_SERVICE in the user's /metrics"
grep -q "pid=\"$own\"" body.out || fail "the user's own process not in its /metrics"
expect_status 200 $user "$url/" -H "Accept: application/json"
grep -q "\"pid\": $rec" body.out && fail "root's process in the user's index"
grep -q "\"pid\": $own" body.out || fail "the user's own process not in its index"
expect_status 200 $user "$url/debug/pprof/heap?pid=$own"
expect_status 200 $user "$url/debug/mlyze?pid=$own"
head -c 4 body.out | grep -q MTRC || fail "the user's /debug/mlyze is no profile"

# Services by name: root's is neither discovered nor served to the user,
# and is told apart from a service that does not exist by nothing.
expect_status 200 $user "$url/targets"
grep -q root-secret-service body.out &&
	fail "root's service in the user's /targets: $(cat body.out)"
expect_status 404 $user "$url/debug/pprof/heap?service=root-secret-service"
cp body.out hidden.out
expect_status 404 $user "$url/debug/pprof/heap?service=no-such-service"
sed 's/no-such-service/root-secret-service/' body.out | cmp -s - hidden.out ||
	fail "a hidden service and none are told apart: $(cat hidden.out) / $(cat body.out)"
expect_status 200 $user "$url/metrics?service=root-secret-service"
grep -q "pid=\"$rec\"" body.out && fail "root's process in the user's /metrics?service="

# A pid that is no process is refused as another user's is: the user
# learns nothing of which pids exist.
expect_status 403 $user "$url/debug/pprof/heap?pid=999999999"

# Root reads both.
expect_status 200 "" "$url/metrics"
grep -q "pid=\"$rec\"" body.out && grep -q "pid=\"$own\"" body.out ||
	fail "root's /metrics lacks a process: $(grep pid= body.out | head -3)"
grep -q root-secret-service body.out || fail "root's /metrics lacks its service"
expect_status 200 "" "$url/targets"
grep -q root-secret-service body.out || fail "root's /targets lacks its service"
expect_status 200 "" "$url/debug/pprof/heap?service=root-secret-service"
expect_status 200 "" "$url/debug/pprof/heap?pid=$own"
stop_serve

# A client on an address that is not loopback: nothing.
address=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 '^[0-9.]*$')
if [ -n "$address" ]; then
	rm -f serve.out serve.err # the port of the server before
	"$ctl" serve --listen "$address:0" >serve.out 2>serve.err &
	server=$!
	wait_for_line $server serve.out "serving on port"
	url=http://$address:$(sed -n 's/.*serving on port //p' serve.out)
	expect_status 200 "" "$url/" -H "Accept: application/json"
	grep -q '"pid"' body.out && fail "an unknown client sees processes: $(cat body.out)"
	expect_status 403 "" "$url/metrics"
	grep -q "who you are is not known" body.out || fail "the 403 says: $(cat body.out)"
	expect_status 403 "" "$url/debug/pprof/heap?pid=$rec"
	expect_status 403 "" "$url/debug/mlyze?pid=$rec"
	stop_serve
else
	echo "no address but loopback: an unknown client not tested"
fi

end_hold rec $rec
touch "/run/user/$(id -u $user)/own.stop"
wait $own || fail "the user's own process: exit status $?"
pass
