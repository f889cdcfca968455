#!/bin/sh
# limited.sh - under a tight limit of address space (ulimit -v) or of data
# (ulimit -d), a program that needs most of it (limited.c, and python3
# when there is one) runs under memprof-wrap as it runs bare: same exit
# status, same output, and one message saying why nothing was recorded.
. "$(dirname "$0")/common.sh"

wrap=$abs_top_builddir/src/memprof-wrap
python=$(command -v python3)

# same_as_bare NAME LIMIT COMMAND... - LIMIT: the ulimit option and value.
same_as_bare() {
	name=$1 limit=$2
	shift 2
	mkdir "$scratch/$name"
	sh -c "ulimit $limit && exec \"\$@\"" sh "$@" \
		>"$scratch/$name/bare.out" 2>&1
	bare_status=$?
	watched 300 sh -c "ulimit $limit && exec \"\$@\"" sh "$wrap" \
		-o "$scratch/$name/p.mlyze" "$@" \
		>"$scratch/$name/out" 2>"$scratch/$name/err"
	status=$?
	[ "$status" = "$bare_status" ] ||
		fail "$name: exit status $status under memprof-wrap, $bare_status bare: $(cat "$scratch/$name/err")"
	cmp -s "$scratch/$name/bare.out" "$scratch/$name/out" ||
		fail "$name: output differs: $(diff "$scratch/$name/bare.out" "$scratch/$name/out")"
	grep -q 'nothing is recorded' "$scratch/$name/err" ||
		fail "$name: no message says why nothing was recorded"
}

same_as_bare c-as "-v 100000" "$integ_bin/limited"
same_as_bare c-data "-d 100000" "$integ_bin/limited"
if [ -n "$python" ]; then
	same_as_bare python-as "-v 100000" "$python" -c \
		'import json; print(len(json.dumps([list(range(1000)) for _ in range(200)])))'
fi
pass
