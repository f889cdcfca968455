#!/bin/sh
# arch-test.sh - build and test the committed tree on another architecture.
#
# Usage: packaging/arch-test.sh [--record] [--incremental] ARCH [MAKE-CHECK-ARGUMENTS...]
#   e.g. packaging/arch-test.sh i386
#        packaging/arch-test.sh s390x TESTS='tests/unit/test-codec'
#        packaging/arch-test.sh --record arm64
#        packaging/arch-test.sh --incremental arm64
#
# Builds (once) a Debian bookworm system of that architecture with
# debootstrap, cached under $SPPROF_ARCH_CACHE (default
# /var/cache/spprof-arch), installs the build dependencies in it, and there
# builds a clean export of HEAD (`git archive`: uncommitted changes are not
# tested) and runs `make check`.  Programs of the architecture run natively
# when the kernel can (i386 on amd64) and otherwise through qemu-user-static
# and binfmt-support (arm64, s390x, ...).  With --record, before `make
# check`, tests/report/arch-record.sh writes the test data of the
# cross-architecture test; once `make check` has passed, it is copied into
# tests/report/arch/ARCH of this checkout, to be committed.  Needs root (debootstrap, chroot,
# mounts); the mounts live in a private mount namespace and end with it.
# With --incremental, the previous run's build tree is kept and only the
# files that differ from HEAD are replaced, so that make rebuilds only what
# changed: under emulation a clean build takes the better part of an hour.
# Environment: SPPROF_ARCH_MIRROR (a Debian mirror; default: the one apt
# uses here, else deb.debian.org), JOBS (make -j, 2).
set -eu

usage="usage: $0 [--record] [--incremental] ARCH [MAKE-CHECK-ARGUMENTS...]"
record=
incremental=
while [ $# -ge 1 ]; do
	case $1 in
	--record) record=1 ;;
	--incremental) incremental=1 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
arch=$1
shift
suite=bookworm

# The Debian archive that apt uses on this machine, which is known to be
# reachable from it (a CI machine may reach only its own mirror).
apt_mirror() {
	{
		sed -n 's|^URIs:[[:space:]]*\([^[:space:]]*/debian\)/\{0,1\}[[:space:]]*$|\1|p' \
			/etc/apt/sources.list.d/*.sources
		sed -n 's|^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*/debian\)/\{0,1\}[[:space:]].*|\2|p' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list
	} 2>/dev/null | head -n 1
}
mirror=${SPPROF_ARCH_MIRROR:-$(apt_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}
cache=${SPPROF_ARCH_CACHE:-/var/cache/spprof-arch}
jobs=${JOBS:-2}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
root=$cache/$suite-$arch

# What the build and `make check` need: debian/control's Build-Depends
# (without the packaging tools), autotools for the git export, and the
# programs that tests run when they are there (gdb for attach, Go's pprof
# and Prometheus as clients of the endpoint, Chromium for the HTML view).
packages="autoconf automake libtool pkg-config check libjansson-dev
libelf-dev libdw-dev zlib1g-dev libmicrohttpd-dev python3 python3-dev python3-pytest
python3-numpy gdb golang-go prometheus curl chromium"

die() { echo "arch-test: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
for tool in debootstrap unshare git; do
	command -v $tool >/dev/null || die "$tool is not installed"
done
git -C "$srcdir" rev-parse --verify -q HEAD >/dev/null ||
	die "$srcdir is not a git checkout: nothing committed to test"
git -C "$srcdir" diff --quiet HEAD ||
	echo "arch-test: uncommitted changes are not tested" >&2

# Runs a command as root inside the system, with /proc, /sys and /dev.
in_system() {
	unshare --mount --propagation private sh -eu -c '
		root=$1; shift
		mount -t proc proc "$root/proc"
		mount -t sysfs sysfs "$root/sys"
		mount --rbind /dev "$root/dev"
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' in_system "$root" "$@"
}

# The base system: both debootstrap stages run the architecture's own
# programs, natively or through qemu (binfmt), alike for every ARCH.
make_base() {
	tmp=$root.partial
	rm -rf "$tmp"
	debootstrap --arch="$arch" --foreign --variant=buildd \
		--include="$(echo $packages | tr ' ' ,)" "$suite" "$tmp" \
		"$mirror" || die "debootstrap of $arch failed"
	chroot "$tmp" /bin/true 2>/dev/null ||
		die "cannot run $arch programs here: install qemu-user-static and binfmt-support (update-binfmts --enable qemu-<cpu>)"
	chroot "$tmp" /debootstrap/debootstrap --second-stage ||
		die "second stage of debootstrap for $arch failed"
	mv "$tmp" "$root"
}

# Replaces in the kept build tree the files that differ from HEAD, leaving
# the others (and their times) alone.
update_tree() {
	export_dir=$root/build/export
	rm -rf "$export_dir"
	mkdir -p "$export_dir"
	git -C "$srcdir" archive --format=tar HEAD | tar -x -C "$export_dir"
	(cd "$export_dir" && find . -type f) | while read -r file; do
		cmp -s "$export_dir/$file" "$tree/$file" || {
			mkdir -p "$(dirname "$tree/$file")"
			cp "$export_dir/$file" "$tree/$file"
		}
	done
	rm -rf "$export_dir"
}

mkdir -p "$cache"
exec 9>"$cache/$arch.lock"
flock 9 # one run per architecture at a time
start=$(date +%s)
[ -x "$root/usr/bin/make" ] || make_base
# Cheap when nothing is missing; picks up packages added to the list.
if in_system dpkg-query -W -f '${db:Status-Abbrev}\n' $packages 2>&1 |
	grep -qv '^ii'; then
	in_system dpkg --configure -a
	in_system apt-get update
	in_system apt-get install -y --no-install-recommends $packages
fi

tree=$root/build/spprof
if [ -n "$incremental" ] && [ -f "$tree/Makefile" ]; then
	update_tree
else
	rm -rf "$root/build"
	mkdir -p "$tree"
	git -C "$srcdir" archive --format=tar HEAD | tar -x -C "$tree"
fi
echo "arch-test: $arch: building $(git -C "$srcdir" rev-parse --short HEAD)"
in_system sh -euc '
	cd /build/spprof
	if [ ! -f Makefile ]; then
		./autogen.sh
		./configure PYTHON=/usr/bin/python3
	fi
	jobs=$0 record=$1
	shift
	make -j"$jobs"
	if [ -n "$record" ]; then
		make -j"$jobs" tests/report/alloc-program tests/report/mlyze-gen
		sh tests/report/arch-record.sh recorded
	fi
	make -j"$jobs" check "$@"
' "$jobs" "$record" "$@" || {
	echo "arch-test: $arch: FAILED after $(($(date +%s) - start)) s;" \
	     "logs under $root/build/spprof" >&2
	exit 1
}
if [ -n "$record" ]; then
	rm -rf "$srcdir/tests/report/arch/$arch"
	cp -r "$root/build/spprof/recorded" "$srcdir/tests/report/arch/$arch"
	echo "arch-test: $arch: recorded in tests/report/arch/$arch"
fi
echo "arch-test: $arch: make check passed in $(($(date +%s) - start)) s"
