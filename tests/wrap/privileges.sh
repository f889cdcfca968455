#!/bin/sh
# Processes that change their user, with the real runtime: a worker that
# gives up root for nobody keeps its profile, written where only root may
# create files, and listed with the others; so does a program started as
# nobody there (by setpriv); and the runtime's messages reach the person
# who runs memprof-wrap, not the program's own stderr.
. "${srcdir:-.}/tests/wrap/common.sh"

use_real_runtime
report=$top_builddir/src/memprof-report

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	echo "SKIP: changing users needs root and a user nobody"
	exit 77
fi
nobody=$(id -u nobody)
nogroup=$(id -g nobody)

# The profiles' directory: only root may create files in it, everybody
# may reach it (so it is not under $work, in the build tree, which may lie
# in a private directory).
profiles=$(mktemp -d /tmp/memprof-privileges.XXXXXX) || exit 99
chmod 755 "$profiles"
at_exit 'rm -rf "$profiles"'

# What runs as nobody must be readable by nobody, which the build tree
# need not be (a package build puts it in a private directory): the
# runtime and the test programs run from a copy beside the profiles.
mkdir -m 755 "$profiles/bin"
cp "$runtime" "$helpers/drop-privileges" "$helpers/allocate" "$profiles/bin/"
chmod 755 "$profiles/bin"/*
SPPROF_RUNTIME=$profiles/bin/$(basename "$runtime")
export SPPROF_RUNTIME
nobody_bin=$profiles/bin

for rate in default 1; do
	options=
	[ "$rate" = default ] || options="--rate=$rate"
	mkdir -m 755 "$profiles/$rate"
	# shellcheck disable=SC2086 # one word per option
	run 0 "$wrap" $options -o "$profiles/$rate/drop.%p.mlyze" \
		"$nobody_bin/drop-privileges" "$nobody" "$nogroup"
	expect_in "$work/err" "memprof-wrap: 2 profiles written"
	grep -q 'part' "$work/err" && fail "a profile not finalised: $(cat "$work/err")"
	grep -q 'libspprof-alloc' "$work/err" &&
		fail "the runtime complained: $(cat "$work/err")"
	[ "$(ls "$profiles/$rate" | wc -l)" -eq 2 ] ||
		fail "files left at rate $rate: $(ls "$profiles/$rate")"
	for profile in "$profiles/$rate"/*; do
		grep -qF "memprof-report --top 20 $profile" "$work/err" ||
			fail "$profile not listed: $(cat "$work/err")"
		"$report" --top 1 "$profile" >/dev/null ||
			fail "memprof-report cannot read $profile"
	done
done

# A program started as nobody cannot create its profile there at all:
# memprof-wrap creates it for the program.
mkdir -m 755 "$profiles/started"
run 0 "$wrap" -o "$profiles/started/as-nobody.%p.mlyze" \
	setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups \
	"$nobody_bin/allocate" /dev/null
expect_in "$work/err" "memprof-wrap: 2 profiles written"
grep -q 'part\|libspprof-alloc\|cannot' "$work/err" &&
	fail "not every profile written: $(cat "$work/err")"
[ "$(ls "$profiles/started" | wc -l)" -eq 2 ] ||
	fail "files left: $(ls "$profiles/started")"
for profile in "$profiles/started"/*; do
	"$report" --top 1 "$profile" >/dev/null ||
		fail "memprof-report cannot read $profile"
done

# Other users see memprof-wrap's socket: a process outside the command's
# tree gets no file made for it, nor one published anywhere.
mkdir -m 755 "$profiles/outside"
"$wrap" -q -o "$profiles/outside/o.%p.mlyze" sh -c \
	'echo "$SPPROF_MANIFEST" >address; sleep 3' 2>"$work/err" &
wrapped=$!
wait_for $wrapped 30 test -s address || fail "no manifest address"
setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups \
	/usr/bin/python3 - "$(cat address)" "$profiles/outside" "$work" <<'PYTHON' ||
import array, os, socket, sys
# What other users see of the address: the name, not the key after '#'.
address = "\0" + sys.argv[1][1:].split("#")[0]
directory, elsewhere = sys.argv[2], sys.argv[3]
content = os.memfd_create("evil")
os.write(content, b"not a profile")
rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [content]))]
sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for part in [elsewhere + "/evil.part", directory + "/evil.part"]:
    sender.sendmsg([b"H %s\n" % part.encode()], rights, 0, address)
mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
sender.sendmsg([b"C 0\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                             array.array("i", [theirs.fileno()]))], 0, address)
theirs.close()
mine.settimeout(10)
if mine.recvmsg(4096, 64)[0]:
    sys.exit("memprof-wrap made a file for a process outside the tree")
PYTHON
	fail "a process outside the tree was answered"
wait "$wrapped" || fail "memprof-wrap failed: $(cat "$work/err")"
[ -e "$work/evil" ] && fail "$work/evil published"
[ "$(ls "$profiles/outside" | grep -c -v '^o\.[0-9]*\.mlyze$')" -eq 0 ] ||
	fail "files made for an outsider: $(ls "$profiles/outside")"

# A message of the runtime (a bad setting, here) goes to memprof-wrap's
# stderr even from a process whose own stderr goes to a log.
run 0 env SPPROF_UNWIND=bogus "$wrap" -q -o "$work/message.%p.mlyze" \
	sh -c "exec 2>program.err; exec $helpers/print-argv"
[ -s program.err ] && fail "the program's stderr got: $(cat program.err)"
[ "$(grep -c 'SPPROF_UNWIND=bogus is not fp, dwarf or auto' "$work/err")" -eq 2 ] ||
	fail "messages not shown by memprof-wrap: $(cat "$work/err")"
exit 0
