#!/bin/sh
# debuginfod.sh - a stripped program whose debug file is on no path of
# this machine: memprof-report names its functions only when a debuginfod
# server (elfutils', on the loopback) is named in DEBUGINFOD_URLS and has
# that file, fetched by the build-id the profile recorded.  A profile
# --symbolize'd with the server keeps the names once the server and the
# client's cache are gone.
. "$(dirname "$0")/common.sh"

report=$abs_top_builddir/src/memprof-report
ldd "$abs_top_builddir/src/.libs/memprof-report" 2>/dev/null | grep -q libdebuginfod ||
	skip "memprof-report is built without libdebuginfod (apt-get install libdebuginfod-dev)"
command -v debuginfod >/dev/null ||
	skip "no debuginfod server (apt-get install debuginfod)"
unset DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH=$scratch/cache

mkdir -p "$scratch/served"
cp "$abs_top_builddir/tests/report/alloc-program" "$scratch/prog"
objcopy --only-keep-debug "$scratch/prog" "$scratch/served/prog.debug"
strip --strip-all "$scratch/prog"
readelf -S "$scratch/prog" | grep -q -e '\.symtab' -e '\.debug_info' &&
	fail "the program is not stripped"
build_id=$(readelf -n "$scratch/prog" | sed -n 's/.*Build ID: //p')
[ -n "$build_id" ] || fail "the program has no build-id"

SPPROF_SAMPLING_RATE=1 SPPROF_OUTPUT=$scratch/prog.mlyze \
	run_preloaded 60 "$scratch/prog"

"$report" --top 5 "$scratch/prog.mlyze" >"$scratch/alone.txt" 2>&1 ||
	fail "no report: $(cat "$scratch/alone.txt")"
grep -q make_table "$scratch/alone.txt" &&
	fail "named without its debug file: $(cat "$scratch/alone.txt")"

# start_server - debuginfod on a free port, serving the debug file; its
# pid in $server, its address in $url.  The server answers once it has
# scanned the folder: waited for while it runs, however long a loaded
# machine makes that.  It fails when the port was taken meanwhile.
start_server() {
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -p "$port" -d "$scratch/index.sqlite" -F "$scratch/served" \
		>"$scratch/server.log" 2>&1 &
	server=$!
	url=http://127.0.0.1:$port
	until curl -sf -o /dev/null "$url/buildid/$build_id/debuginfo"; do
		kill -0 $server 2>/dev/null || return 1
		sleep 0.5
	done
}
at_exit 'kill $server 2>/dev/null'
for attempt in 1 2 3 4 5; do
	start_server && break
	grep -q "cannot start http server" "$scratch/server.log" ||
		fail "debuginfod ended: $(cat "$scratch/server.log")"
done
kill -0 $server 2>/dev/null || fail "debuginfod never found a free port: $(cat "$scratch/server.log")"

DEBUGINFOD_URLS=$url "$report" --top 5 "$scratch/prog.mlyze" \
	>"$scratch/fetched.txt" 2>&1 || fail "no report: $(cat "$scratch/fetched.txt")"
grep -q make_table "$scratch/fetched.txt" ||
	fail "not named with the server: $(cat "$scratch/fetched.txt")"
ls "$scratch/cache/$build_id/debuginfo" >/dev/null 2>&1 ||
	fail "nothing in the client's cache: $(ls -R "$scratch/cache")"
DEBUGINFOD_URLS=$url "$report" --symbolize -o "$scratch/carried.mlyze" \
	"$scratch/prog.mlyze" 2>"$scratch/symbolize.err" ||
	fail "--symbolize: $(cat "$scratch/symbolize.err")"
kill $server
rm -r "$scratch/cache"
"$report" --top 5 "$scratch/carried.mlyze" >"$scratch/carried.txt" 2>&1 ||
	fail "no report: $(cat "$scratch/carried.txt")"
grep -q make_table "$scratch/carried.txt" ||
	fail "the symbolized profile lost the names: $(cat "$scratch/carried.txt")"
pass
