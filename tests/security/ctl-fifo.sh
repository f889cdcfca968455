#!/bin/sh
# ctl-fifo.sh - a user's registry directory and stream may hold a FIFO
# (or anything else that is not a regular file).  Root's memprof-ctl
# must neither wait on it forever (list, status, the server's index,
# /metrics and profiles answer) nor read it; and a ?seconds= profile
# holds no copy of the stream, whatever its size (a sparse file of
# 2 GiB, with the server's TMPDIR on a small tmpfs).
attacker=spprof-t-ctlfifo
. "$(dirname "$0")/security-helpers.sh"

as_user mkfifo "$registry/4242" "$home/fifo.part" || fail "mkfifo"
as_user truncate -s 2G "$home/sparse.part" || fail "truncate"
forged_process "$home/fifo.part" none
fifo_stream=$pid
forged_process "$home/sparse.part" none
sparse_stream=$pid

finishes "$ctl" list || fail "list failed: $(cat finishes.out)"
grep -q "^$fifo_stream " finishes.out || fail "list lost a process: $(cat finishes.out)"
finishes "$ctl" status $fifo_stream || fail "status failed: $(cat finishes.out)"

mkdir tmp
mount -t tmpfs -o size=8m tmpfs tmp || fail "cannot mount a tmpfs"
unmount_at_end=$scratch/tmp
TMPDIR=$scratch/tmp
export TMPDIR
start_serve
unset TMPDIR
finishes curl -s "$url/" || fail "the index failed"
finishes curl -s "$url/metrics" || fail "/metrics failed"
grep -q "^# pid $fifo_stream skipped" finishes.out ||
	fail "/metrics did not skip the FIFO stream: $(cat finishes.out)"
finishes curl -s -w '%{http_code}' "$url/debug/pprof/heap?pid=$fifo_stream" ||
	fail "the heap failed"
grep -q '403$' finishes.out || fail "a FIFO stream served: $(cat finishes.out)"

# The largest use of the tmpfs while a ?seconds= profile is made.
curl -s "$url/debug/pprof/heap?pid=$sparse_stream&seconds=1" >seconds.out &
request=$!
peak=0
while kill -0 $request 2>/dev/null; do
	used=$(df -k --output=used tmp | tail -1)
	[ "$used" -le "$peak" ] || peak=$used
	sleep 0.05
done
grep -q "No space\|cannot copy" seconds.out &&
	fail "?seconds= copied the stream: $(cat seconds.out)"
[ "$peak" -lt 1024 ] || fail "?seconds= took $peak KiB of TMPDIR"
pass
