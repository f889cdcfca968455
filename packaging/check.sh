#!/bin/sh
# packaging/check.sh - proof that spprof-mem packages the way a distribution
# ships it.
#
# Usage: packaging/check.sh [TARBALL]
#
# From a release tarball (make check-packaging passes the one make dist just
# made; without an argument the committed tree of this checkout is exported
# with git archive and turned into one), in a scratch directory:
#   1. checks that the tarball carries the packaging and that the versions
#      of configure.ac, debian/changelog and the RPM spec agree;
#   2. builds the Debian packages with dpkg-buildpackage -b in a clean
#      environment, after dpkg-checkbuilddeps, and the source package;
#   3. runs lintian -I --pedantic on both: no error and no warning allowed;
#   4. installs the .debs with apt-get, runs debian/tests/smoke from /tmp
#      with a PATH that holds no build tree, then as autopkgtest runs it
#      (debian/tests/control), purges the packages and checks that none of
#      the paths they owned is left behind;
#   5. builds the RPMs with rpmbuild -tb from the tarball;
#   6. with FRESH_SYSTEMS=1 (network, some minutes, 1 GB in the scratch
#      directory): builds the .debs again on a new Debian system with
#      nothing but build-essential and the Build-Depends (debootstrap,
#      apt-get build-dep), and runs the smoke test on a new minimal system
#      with nothing but the .debs and the test's Depends.
#
# Needs root or sudo (apt-get), dpkg-dev, debhelper, dh-python, lintian,
# autopkgtest, rpm, the Build-Depends of debian/control, and debootstrap
# for FRESH_SYSTEMS=1.  Exit status: 0 when every
# step passed, 1 at the first failure (the scratch directory is then kept),
# 2 on a usage error.  KEEP=1 keeps the scratch directory in any case.

set -eu

me=packaging/check.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
clean_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

case $# in
0) tarball= ;;
1) tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;;
*)
	echo "usage: $me [TARBALL]" >&2
	exit 2
	;;
esac

root=
[ "$(id -u)" = 0 ] || root=sudo

# Another apt or dpkg may be at work on this machine (an upgrade, a second
# check): every package operation waits up to this many seconds for it to
# finish instead of failing at once.
lock_wait=600
apt_wait="-oDPkg::Lock::Timeout=$lock_wait"

work=$(mktemp -d "${TMPDIR:-/tmp}/spprof-packaging.XXXXXX")
finish() {
	status=$?
	for proc in "$work"/*/proc; do
		if mountpoint -q "$proc"; then $root umount "$proc"; fi
	done
	if [ "$status" -ne 0 ] || [ "${KEEP:-0}" = 1 ]; then
		echo "$me: scratch directory kept: $work" >&2
	else
		$root rm -rf "$work"
	fi
}
trap finish EXIT

# Run a command with what a freshly set-up machine has: no build tree, no
# personal PATH, no variables of this session.
in_clean_env() {
	env -i HOME="${HOME:-/root}" PATH="$clean_path" LANG=C.UTF-8 "$@"
}

step() {
	printf '\n=== %s\n' "$*"
}

fail() {
	echo "$me: FAIL: $*" >&2
	exit 1
}

# Run a command quietly into a log; on failure show the log's end.
logged() {
	log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		tail -n 60 "$log" >&2
		fail "$* (full log: $log)"
	fi
}

# --- 1. the release tarball --------------------------------------------------

if [ -z "$tarball" ]; then
	step "release tarball from the committed tree (git archive, make dist)"
	git -C "$srcdir" archive --prefix=export/ HEAD | tar -x -C "$work"
	(cd "$work/export" && logged "$work/dist.log" sh -c \
		'./autogen.sh && ./configure -q && make dist-gzip')
	tarball=$(ls "$work"/export/*.tar.gz)
	mv "$tarball" "$work/"
	tarball=$work/$(basename "$tarball")
	rm -rf "$work/export"
fi
[ -f "$tarball" ] || fail "$tarball: no such file"

step "contents and versions of $(basename "$tarball")"
tar -tzf "$tarball" | sed 's|^[^/]*/||' | sort >"$work/tarball.list"
if git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	for f in $(git -C "$srcdir" ls-files COPYING debian rpm packaging); do
		grep -qx "$f" "$work/tarball.list" ||
			fail "$f: missing from the tarball"
	done
	echo "the tarball carries every file of COPYING, debian/, rpm/," \
		"packaging/ that git tracks"
else
	echo "not a git checkout: the tarball's file list is not compared"
fi

mkdir "$work/deb"
tar -xzf "$tarball" -C "$work/deb"
tree=$(echo "$work"/deb/*/)
tree=${tree%/}
version_ac=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' \
	"$tree/configure.ac")
version_deb=$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)
version_rpm=$(sed -n 's/^Version:[[:space:]]*//p' "$tree/rpm/spprof-mem.spec")
echo "configure.ac $version_ac, debian/changelog $version_deb," \
	"rpm/spprof-mem.spec $version_rpm"
if [ "$version_ac" != "$version_deb" ] || [ "$version_ac" != "$version_rpm" ]
then
	fail "the three versions differ"
fi

# --- 2. Debian packages --------------------------------------------------------

step "dpkg-checkbuilddeps"
(cd "$tree" && dpkg-checkbuilddeps) || fail "Build-Depends not installed"
echo "every Build-Depends is installed"

step "source package (dpkg-source --build)"
(cd "$work/deb" && logged "$work/source.log" \
	dpkg-source --build "$(basename "$tree")")
dsc=$(echo "$work"/deb/*.dsc)
echo "$dsc"

step "dpkg-buildpackage -us -uc -b (clean environment, PATH=$clean_path)"
start=$(date +%s)
(cd "$tree" && logged "$work/build.log" \
	in_clean_env dpkg-buildpackage -us -uc -b -j2)
grep -E '^(# [A-Z]+:|dpkg-deb: building)' "$work/build.log" || true
echo "built in $(($(date +%s) - start)) s"

# --- 3. lintian ----------------------------------------------------------------

step "lintian -I --pedantic (errors and warnings fail)"
changes=$(echo "$work"/deb/*.changes)
lintian -I --pedantic --fail-on error,warning "$changes" "$dsc" \
	>"$work/lintian.log" 2>&1 || lintian_status=$?
# lintian says so when it runs as root; that is no finding.
grep -v 'running with root privileges' "$work/lintian.log" || true
[ "${lintian_status:-0}" -eq 0 ] || fail "lintian found errors or warnings"
echo "lintian: no error, no warning"

# --- 4. install, smoke test, purge -------------------------------------------

# Every path the packages in "$@" ship, one per line, sorted: what the
# .debs carry, read before they are installed.
shipped_paths() {
	for d in "$@"; do
		dpkg-deb --fsys-tarfile "$d" | tar -t
	done | sed 's|^\./|/|; s|/$||' | grep -v '^/*$' | sort -u
}

# Of the paths read on standard input, those that exist.
existing() {
	while IFS= read -r p; do
		if [ -e "$p" ] || [ -L "$p" ]; then printf '%s\n' "$p"; fi
	done
}

# The .debs to install, debug symbols aside, as the positional parameters.
set --
for d in "$work"/deb/*.deb; do
	case $d in *-dbgsym_*) continue ;; esac
	set -- "$@" "$d"
done
for d in "$@"; do
	p=$(dpkg-deb -f "$d" Package)
	state=$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null || true)
	case $state in
	'' | not-installed) ;;
	*) fail "$p is on this system ($state): purge it first" ;;
	esac
done

step "apt-get install ./*.deb"
# Only what belongs to our packages is judged afterwards: the paths they
# ship that this system did not have (shared directories such as /usr/lib
# are not theirs), and everything below such a path.  Other programs, such
# as autopkgtest writing its own caches, are free to leave files elsewhere.
shipped_paths "$@" >"$work/owned"
existing <"$work/owned" >"$work/owned.before"
dpkg-query -W -f '${Package}\n' | sort >"$work/packages.before"
logged "$work/install.log" $root env DEBIAN_FRONTEND=noninteractive \
	apt-get "$apt_wait" install -y --no-install-recommends "$@"
dpkg-query -W -f '${Package}\n' | sort >"$work/packages.installed"
added=$(comm -13 "$work/packages.before" "$work/packages.installed" |
	tr '\n' ' ')
echo "installed: $added"
# What dpkg attributes to them once installed, its own records included.
for d in "$@"; do
	p=$(dpkg-deb -f "$d" Package)
	dpkg -L "$p"
	dpkg-query --control-path "$p"
done | grep -v '^/\.$' | sort -u - "$work/owned" >"$work/owned.installed"
comm -23 "$work/owned.installed" "$work/owned.before" >"$work/owned"

step "debian/tests/smoke, run from /tmp"
cp "$tree/debian/tests/smoke" "$work/smoke"
(cd /tmp && in_clean_env sh "$work/smoke") || fail "smoke test"

step "memprof-ctl-serve.service: installed, not enabled, verified"
unit=/usr/lib/systemd/system/memprof-ctl-serve.service
[ -f "$unit" ] || fail "$unit not installed"
! ls /etc/systemd/system/*/memprof-ctl-serve.service 2>/dev/null ||
	fail "memprof-ctl-serve.service enabled by the package"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" || fail "systemd-analyze verify $unit"
fi

step "autopkgtest of the installed packages (debian/tests/control)"
# autopkgtest installs the test's Depends with apt-get, which APT_CONFIG
# makes wait for the lock, but also runs dpkg itself, which cannot wait:
# while its log says that it found the lock taken, it is run again.
echo "DPkg::Lock::Timeout \"$lock_wait\";" >"$work/apt.conf"
give_up=$(($(date +%s) + lock_wait))
until in_clean_env $root env APT_CONFIG="$work/apt.conf" autopkgtest \
	--no-built-binaries "$dsc" -- null >"$work/autopkgtest.log" 2>&1; do
	if grep -q -e 'locked by another process' -e 'Could not get lock' \
		"$work/autopkgtest.log" && [ "$(date +%s)" -lt "$give_up" ]; then
		echo "the dpkg lock is taken; autopkgtest again in 10 s"
		sleep 10
	else
		tail -n 60 "$work/autopkgtest.log" >&2
		fail "autopkgtest (full log: $work/autopkgtest.log)"
	fi
done
grep -E '^smoke ' "$work/autopkgtest.log" | sort -u
# Its last step, removing the package that pulled in the Depends, is a
# dpkg call whose failure it ignores.
case $(dpkg-query -W -f '${db:Status-Status}' autopkgtest-satdep 2>/dev/null) in
'' | not-installed) ;;
*) logged "$work/satdep.log" $root env DEBIAN_FRONTEND=noninteractive \
	apt-get "$apt_wait" purge -y autopkgtest-satdep ;;
esac

step "apt-get purge"
# shellcheck disable=SC2086 # one package per word
logged "$work/purge.log" $root env DEBIAN_FRONTEND=noninteractive \
	apt-get "$apt_wait" purge -y $added
dpkg-query -W -f '${Package}\n' | sort >"$work/packages.after"
cmp -s "$work/packages.before" "$work/packages.after" ||
	fail "the package set differs after the purge"
existing <"$work/owned" | while IFS= read -r p; do
	find "$p" -xdev
done | sort -u >"$work/files.left"
if [ -s "$work/files.left" ]; then
	cat "$work/files.left" >&2
	fail "files left behind by the packages"
fi
echo "purged; no file left behind ($(wc -l <"$work/owned") paths of the" \
	"packages checked)"

# --- 5. RPM ---------------------------------------------------------------------

step "rpmbuild -tb $(basename "$tarball")"
mkdir "$work/rpm"
# The BuildRequires are Fedora package names, unknown to this system's rpm
# database: --nodeps (the Debian Build-Depends above cover them).
logged "$work/rpmbuild.log" in_clean_env rpmbuild --nodeps \
	--define "_topdir $work/rpm" -tb "$tarball"
for r in "$work"/rpm/RPMS/*/*.rpm; do
	echo "$(basename "$r"):"
	rpm -qlp "$r" | sed 's/^/  /'
done

# --- 6. (FRESH_SYSTEMS=1) on freshly installed Debian systems ----------------

# A new minimal Debian system of this release in $work/$1 (debootstrap
# variant $2), with /proc mounted for the test suites.
fresh_system() {
	logged "$work/debootstrap-$1.log" $root debootstrap --variant="$2" \
		"$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)" "$work/$1"
	$root mount -t proc proc "$work/$1/proc"
	$root cp /etc/resolv.conf "$work/$1/etc/resolv.conf"
}

# Run a shell command as root in the system $1, in a clean environment.
in_system() {
	$root chroot "$work/$1" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive sh -ec "$2"
}

if [ "${FRESH_SYSTEMS:-0}" = 1 ]; then
	step "fresh build system: debootstrap buildd, apt-get build-dep, build"
	fresh_system build buildd
	$root tar -xzf "$tarball" -C "$work/build/tmp"
	logged "$work/build-dep.log" in_system build \
		"apt-get $apt_wait update && apt-get $apt_wait build-dep -y /tmp/spprof-mem-*/"
	logged "$work/fresh-build.log" in_system build \
		'cd /tmp/spprof-mem-*/ && dpkg-buildpackage -us -uc -b -j2'
	grep -E '^(# [A-Z]+:|dpkg-deb: building)' "$work/fresh-build.log"

	step "fresh minimal system: apt-get install the .debs, smoke test"
	fresh_system run minbase
	$root mkdir "$work/run/tmp/debs"
	$root cp "$@" "$tree/debian/tests/smoke" "$work/run/tmp/debs/"
	# The smoke test's own needs are those of debian/tests/control.
	test_depends=$(sed -n '/^Depends:/,/^[^ ]/s/^ \([a-z0-9.+-]*\),$/\1/p' \
		"$tree/debian/tests/control" | grep -v -x -e spprof-mem \
		-e libspprof-alloc-dev -e python3-spprof | tr '\n' ' ')
	logged "$work/fresh-install.log" in_system run \
		"apt-get $apt_wait update &&
		apt-get $apt_wait install -y /tmp/debs/*.deb $test_depends"
	in_system run 'cd /tmp && sh /tmp/debs/smoke' >"$work/fresh-smoke.log" \
		2>&1 || { cat "$work/fresh-smoke.log"; fail "smoke test"; }
	grep '^smoke:' "$work/fresh-smoke.log"
fi

step "all packaging checks passed"
