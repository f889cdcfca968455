# emulation.sh - sourced by test scripts: whether programs run here under
# a user-mode emulator (qemu-user, as packaging/arch-test.sh runs arm64 or
# s390x programs on amd64), which renders part of Linux in its own way:
# a process sees its /proc/self as the emulator rebuilds it, signal
# handlers return through a trampoline of the emulator's, some prctl()
# operations are missing, and code runs many times slower.
#
# emulator: the emulator's program, empty on the real processor.  The
# kernel's /proc entry of this shell tells, as another process (readlink)
# reads it: an emulator rebuilds only its own process's entries.
emulator=$(readlink "/proc/$$/exe" 2>/dev/null)
case ${emulator##*/} in
qemu-*) ;;
*) emulator= ;;
esac

# How many times longer than on the real processor a time limit is.
if [ -n "$emulator" ]; then
	slowdown=10
else
	slowdown=1
fi

# skipped_under_emulation WHAT WHY: true, having said that WHAT is not
# checked and WHY, when programs run under an emulator.
skipped_under_emulation() {
	[ -n "$emulator" ] || return 1
	echo "skipped under ${emulator##*/}: $1 ($2)"
}
