# serve-helpers.sh - shared by the tests of memprof-ctl serve and its
# clients (tests/security/serve-*.sh), sourced after
# tests/integration/common.sh and ctl-helpers.sh.  They attack as a second
# local user: they need root, to make that user.

# The test's user reaches the scratch directory (tests/security/NAME.dir,
# see make_scratch), as it does the programs of the build tree.
[ "$(id -u)" != 0 ] || open_the_way "$abs_top_builddir" ||
	fail "cannot let other users reach $abs_top_builddir"
ctl=$abs_top_builddir/src/memprof-ctl
hold=$integ_bin/hold-program
held_kib=1024
export XDG_RUNTIME_DIR=$scratch/xdg SPPROF_SAMPLING_RATE=65536
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"
command -v curl >/dev/null || fail "curl is not installed (apt-get install curl)"

# need_root WHAT - skips the test (77) unless run as root with setpriv.
need_root() {
	if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
	   ! command -v useradd >/dev/null; then
		echo "not root (or no setpriv, useradd): $1 not tested"
		exit 77
	fi
}

# add_user NAME - a user of the test's own (in $user, its uid in
# $user_uid), removed when the test ends with its /run/user directory;
# and copies of the programs it runs (copy_programs).
add_user() {
	userdel -r "$1" >/dev/null 2>&1
	useradd --no-create-home --shell /usr/sbin/nologin "$1" ||
		fail "useradd $1"
	user_uid=$(id -u "$1")
	# Left by an earlier user of the same uid: not this user's.
	rm -rf "/run/user/$user_uid"
	at_exit "rm -rf /run/user/$user_uid
		userdel $1 2>/dev/null"
	user=$1
	copy_programs
}

# as_user NAME - the command that runs what follows it as that user (no
# groups), in $as: $as curl ...  (a command, not a function, so that $!
# of $as PROGRAM & is the program's pid).
as_user() {
	as="setpriv --reuid=$(id -u "$1") --regid=$(id -g "$1") --clear-groups"
}

# copy_programs - what other users run, copied into $bin, a directory in
# /tmp that anyone may read (the build tree may be private).
copy_programs() {
	bin=$(mktemp -d /tmp/memprof-serve-test.XXXXXX) || exit 99
	at_exit "rm -rf $bin"
	cp "$hold" "$runtime_so" "$bin/" || exit 99
	chmod 755 "$bin" "$bin"/*
}

# start_user_hold NAME USER - $hold in the background as USER, under the
# runtime, registered in /run/user/UID (where root's server looks); its
# pid in $pid.
start_user_hold() {
	uid=$(id -u "$2")
	mkdir -p "/run/user/$uid/out"
	chown -R "$uid:$(id -g "$2")" "/run/user/$uid"
	chmod 700 "/run/user/$uid"
	hold_stops="$hold_stops /run/user/$uid/$1.stop"
	as_user "$2"
	$as env XDG_RUNTIME_DIR="/run/user/$uid" \
		SPPROF_OUTPUT="/run/user/$uid/out/$1.%p.mlyze" \
		SPPROF_SAMPLING_RATE=65536 LD_PRELOAD="$bin/libspprof-alloc.so.0" \
		"$bin/hold-program" $held_kib "/run/user/$uid/$1.stop" \
		>"$1.out" 2>"$1.err" &
	pid=$!
	programs="$programs $pid"
	wait_for_line $pid "$1.out" "holding"
}

# status_of [USER] URL [CURL OPTIONS...] - the HTTP status of a GET (000
# when there was no answer), run as USER when one is given ("" for the
# caller); the body in body.out.  A request that makes no progress for
# minutes is given up (000).
status_of() {
	as=
	[ -z "$1" ] || as_user "$1"
	url_=$2
	shift 2
	# The shell writes the body: USER may not write here.
	$as curl -s -m 300 -w '%{stderr}%{http_code}' "$@" "$url_" 2>&1 >body.out
}

# expect_status STATUS [USER] URL [CURL OPTIONS...] - the GET must answer
# STATUS.
expect_status() {
	want=$1
	shift
	got=$(status_of "$@")
	[ "$got" = "$want" ] ||
		fail "GET $2 as '${1:-root}': $got, not $want: $(head -c 300 body.out 2>/dev/null)"
}

# bcrypt_hash SECRET - as htpasswd -B makes it, at the lowest cost (the
# tests check many requests), by the C library's crypt (libxcrypt):
# Python's crypt module is gone since Python 3.13.
bcrypt_hash() {
	/usr/bin/python3 -c 'import ctypes, sys
crypt = ctypes.CDLL("libcrypt.so.1")
crypt.crypt_gensalt.restype = crypt.crypt.restype = ctypes.c_char_p
crypt.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong,
                                ctypes.c_char_p, ctypes.c_int]
crypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
salt = crypt.crypt_gensalt(b"$2b$", 4, None, 0)
print(crypt.crypt(sys.argv[1].encode(), salt).decode())' "$1"
}
