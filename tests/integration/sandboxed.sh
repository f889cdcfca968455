#!/bin/sh
# sandboxed.sh - a program that sandboxes itself halfway (a seccomp filter
# that kills for any unexpected system call, a program started under
# such a filter, new namespaces and a chroot, Landlock's rules,
# children made by clone() itself, one on thread-local storage of its
# own) runs under memprof-wrap as it runs bare, at the default rate and
# with every block sampled: same exit status, same output (see
# sandboxed.c).  What it recorded before sandboxing itself is kept.
. "$(dirname "$0")/common.sh"

prog=$integ_bin/sandboxed
wrap=$abs_top_builddir/src/memprof-wrap
mkdir "$scratch/empty"

# same_as_bare NAME RATE MODE... - requires the same status and output.
same_as_bare() {
	name=$1 rate=$2
	shift 2
	mkdir -p "$scratch/$name"
	"$prog" "$@" >"$scratch/$name/bare.out" 2>"$scratch/$name/bare.err"
	bare_status=$?
	if [ "$bare_status" = 2 ]; then
		echo "SKIP: $name: cannot run bare: $(cat "$scratch/$name/bare.err")"
		return 0
	fi
	watched 300 "$wrap" -q -r "$rate" -o "$scratch/$name" "$prog" "$@" \
		>"$scratch/$name/wrapped.out" 2>"$scratch/$name/wrapped.err"
	status=$?
	[ "$status" = "$bare_status" ] ||
		fail "$name: exit status $status under memprof-wrap, $bare_status bare: $(cat "$scratch/$name/wrapped.err")"
	cmp -s "$scratch/$name/bare.out" "$scratch/$name/wrapped.out" ||
		fail "$name: output differs: $(diff "$scratch/$name/bare.out" \
			"$scratch/$name/wrapped.out")"
	ls "$scratch/$name"/*.mlyze >/dev/null 2>&1 ||
		fail "$name: no profile of what came before the sandbox"
	for profile in "$scratch/$name"/*.mlyze; do
		check_profile "$profile"
	done
}

for rate in 512K 1; do
	same_as_bare "seccomp-$rate" "$rate" seccomp
	grep -q 'installs a seccomp filter' "$scratch/seccomp-$rate/wrapped.err" ||
		fail "seccomp-$rate: no message says why recording stopped"
	same_as_bare "seccomp-exec-$rate" "$rate" seccomp-exec
	same_as_bare "chroot-$rate" "$rate" chroot "$scratch/empty"
	same_as_bare "landlock-$rate" "$rate" landlock
	[ ! -f "$scratch/landlock-$rate/wrapped.err" ] ||
		grep -q 'restricts itself with Landlock' "$scratch/landlock-$rate/wrapped.err" ||
		fail "landlock-$rate: no message says why recording stopped"
	same_as_bare "clone-$rate" "$rate" clone
	same_as_bare "clone-tls-$rate" "$rate" clone-tls
done
pass
