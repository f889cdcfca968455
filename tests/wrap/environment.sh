#!/bin/sh
# The environment COMMAND gets: the runtime first in LD_PRELOAD with what
# was there kept, the SPPROF_* settings, SPPROF_ROOT_PID removed, and the
# output pattern with %h expanded and %p, %% left to the runtime.
. "${srcdir:-.}/tests/wrap/common.sh"

show="$helpers/print-env LD_PRELOAD SPPROF_OUTPUT SPPROF_FOLLOW_FORK SPPROF_ROOT_PID"

run 0 "$wrap" -q $show
expect_output "LD_PRELOAD=$fake_runtime
SPPROF_OUTPUT=$work/print-env.%p.mlyze
SPPROF_FOLLOW_FORK=1
SPPROF_ROOT_PID unset"

run 0 env SPPROF_ROOT_PID=1 LD_PRELOAD="/lib/one.so /lib/two.so" \
	"$wrap" -q --no-follow-fork $show
expect_output "LD_PRELOAD=$fake_runtime:/lib/one.so /lib/two.so
SPPROF_OUTPUT=$work/print-env.%p.mlyze
SPPROF_FOLLOW_FORK=0
SPPROF_ROOT_PID unset"

# The preload is effective, in COMMAND and in what COMMAND runs.
run 0 env FAKE_RUNTIME_LOG="$work/loaded" "$wrap" -q sh -c \
	'echo $$ >pids; '"$helpers"'/print-argv x >/dev/null'
[ "$(wc -l <loaded)" -eq 2 ] || fail "runtime not loaded in both processes"
expect_in loaded "$(cat pids)"

# The manifest is a socket private to this run, with no file, and gone
# afterwards: nothing of it is open in the command.
run 0 "$wrap" -q "$helpers/print-env" SPPROF_MANIFEST
manifest=$(sed -n 's/^SPPROF_MANIFEST=//p' "$work/out")
case $manifest in @memprof-wrap.[0-9]*.*#*) ;; *) fail "manifest '$manifest'" ;; esac
socket_name=${manifest%%#*}
grep -q "$socket_name\$" /proc/net/unix && fail "socket $socket_name left open"
ls /proc/self/fd >bare-fds
run 0 "$wrap" -q ls /proc/self/fd
cmp -s bare-fds "$work/out" || fail "descriptors in the command: $(cat "$work/out")"

# Output names: %h is the host name; %p and %% go to the runtime as they
# are; relative names are anchored to the current directory; a directory
# gets the default name.
host=$(hostname)
run 0 "$wrap" -q -o 'x.%h.%p.100%%.mlyze' "$helpers/print-env" SPPROF_OUTPUT
expect_output "SPPROF_OUTPUT=$work/x.$host.%p.100%%.mlyze"
mkdir sub
run 0 "$wrap" -q -o sub "$helpers/print-env" SPPROF_OUTPUT
expect_output "SPPROF_OUTPUT=$work/sub/print-env.%p.mlyze"
run 0 "$wrap" -q -o "$work/sub/" "$helpers/print-env" SPPROF_OUTPUT
expect_output "SPPROF_OUTPUT=$work/sub/print-env.%p.mlyze"
run 0 "$wrap" -q -o sub/p.mlyze "$helpers/print-env" SPPROF_OUTPUT
expect_output "SPPROF_OUTPUT=$work/sub/p.mlyze"
mkdir 50%
cp "$helpers/print-env" 50%/show%env
run 0 "$wrap" -q -o 50%% ./50%/show%env SPPROF_OUTPUT
expect_output "SPPROF_OUTPUT=$work/50%%/show%%env.%p.mlyze"

# Bad patterns are usage errors.
too_long=$(printf '%4096s' '' | tr ' ' x)
for pattern in 'a%' 'a%x.mlyze' '%d.mlyze' '' 'dir%p/a.mlyze' "$too_long"; do
	run 2 "$wrap" -o "$pattern" "$helpers/print-argv" ran
	expect_in "$work/err" "memprof-wrap: invalid output name"
	[ -s "$work/out" ] && fail "COMMAND ran despite -o '$pattern'"
done

# An existing profile of the same name is kept, and memprof-wrap says so.
touch kept.mlyze
run 0 "$wrap" -o kept.mlyze "$helpers/print-argv"
expect_in "$work/err" "$work/kept.mlyze exists and is kept"
run 0 "$wrap" -q -o kept.mlyze "$helpers/print-argv"
grep -q "exists" "$work/err" && fail "--quiet did not quieten the note"
exit 0
