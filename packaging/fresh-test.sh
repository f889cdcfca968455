#!/bin/sh
# packaging/fresh-test.sh - runs the README's test command on a brand-new
# Debian system, as a person who has just installed one would.
#
# Usage: packaging/fresh-test.sh CHECKOUT [RELEASE]
#
# (With COMMAND=demo in the environment, the README's demo command runs
# there instead of .ci/run: the first command a new user types.)
#
# Makes a new minimal system of the Debian release RELEASE (bookworm,
# trixie...; else the environment's RELEASE, else bookworm) with
# debootstrap --variant=minbase from debootstrap's default mirror, in a
# scratch directory, copies into it
# a clean clone of the commit CHECKOUT has checked out (what is not
# committed is left out), mounts /proc, /sys and /dev (with /dev/pts and
# /dev/shm) for the test suites, and there runs .ci/run as root with CI=true, no standard
# input and a clean environment, which installs what the README says and
# runs the test command.  The mounts are undone in any case; the scratch
# directory is removed when the run passes, kept when it fails or when
# KEEP=1.  Prints the time the whole run took.
#
# Needs root (or sudo), debootstrap, git and the network that apt-get
# uses.  Exit status: that of .ci/run, 1 when the system could not be
# made, 2 on a usage error.  The packages the test command installs go
# into the new system only, never into this one.

set -eu

me=packaging/fresh-test.sh
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
	echo "usage: $me CHECKOUT [RELEASE]" >&2
	exit 2
fi
checkout=$(cd "$1" && pwd)
commit=$(git -C "$checkout" rev-parse HEAD)
release=${2:-${RELEASE:-bookworm}}
case $release in
'' | *[!a-z]*)
	echo "$me: $release: not the name of a Debian release" >&2
	exit 2
	;;
esac

case ${COMMAND:-test} in
test | demo) ;;
*)
	echo "$me: COMMAND=$COMMAND: not test or demo" >&2
	exit 2
	;;
esac

root=
[ "$(id -u)" = 0 ] || root=sudo

start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/spprof-fresh-$release.XXXXXX")
system=$work/system
mounted=

finish() {
	status=$?
	for m in $mounted; do
		$root umount -R "$m" || $root umount -R -l "$m"
	done
	if grep -qF " $work/" /proc/mounts; then
		echo "$me: still mounted under $work, left alone:" >&2
		grep -F " $work/" /proc/mounts >&2
	elif [ "$status" -ne 0 ] || [ "${KEEP:-0}" = 1 ]; then
		echo "$me: scratch directory kept: $work" >&2
	else
		$root rm -rf --one-file-system "$work"
	fi
	echo "$me: $release: $(if [ "$status" -eq 0 ]; then echo passed; else echo "failed ($status)"; fi)" \
		"in $(($(date +%s) - start)) s"
}
trap finish EXIT
trap 'exit 1' HUP INT TERM

# mount_in_system DIR MOUNT-ARGS...: mounts on DIR of the new system, and
# keeps what is mounted there from showing through to this system.
mount_in_system() {
	point=$system/$1
	shift
	$root mount "$@" "$point"
	$root mount --make-rslave "$point"
	mounted="$mounted $point"
}

echo "=== debootstrap --variant=minbase $release"
if ! $root debootstrap --variant=minbase "$release" "$system" \
	>"$work/debootstrap.log" 2>&1; then
	tail -n 30 "$work/debootstrap.log" >&2
	echo "$me: debootstrap failed" >&2
	exit 1
fi
echo "made in $(($(date +%s) - start)) s"
$root cp /etc/resolv.conf "$system/etc/resolv.conf"
mount_in_system proc -t proc proc
mount_in_system sys -t sysfs sysfs
mount_in_system dev --rbind /dev

echo "=== clean clone of $commit"
$root git clone -q --no-hardlinks --no-checkout "$checkout" \
	"$system/root/spprof-mem"
$root git -C "$system/root/spprof-mem" checkout -q --detach "$commit"

case ${COMMAND:-test} in
test)
	echo "=== bash .ci/run (CI=true) in the new system"
	run='bash .ci/run'
	;;
demo)
	echo "=== the README's demo command in the new system"
	sed -n '/<!-- demo-command -->/,/<!-- \/demo-command -->/p' \
		"$system/root/spprof-mem/README.md" |
		sed -n '/^```sh$/,/^```$/{/^```/d;p}' >"$work/demo.sh"
	[ -s "$work/demo.sh" ] || {
		echo "$me: no demo command in README.md" >&2
		exit 1
	}
	$root cp "$work/demo.sh" "$system/root/demo.sh"
	run='bash -euo pipefail /root/demo.sh'
	;;
*)
	echo "$me: COMMAND=$COMMAND: not test or demo" >&2
	exit 2
	;;
esac
$root chroot "$system" env -i HOME=/root LANG=C.UTF-8 CI=true \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	sh -c "cd /root/spprof-mem && $run" </dev/null
