#!/bin/sh
# Problems found before COMMAND runs, with the conventional exit statuses:
# 127 not found, 126 not executable, 1 when profiling cannot be set up.
# In each case COMMAND must not have run.
. "${srcdir:-.}/tests/wrap/common.sh"

# A command that leaves a trace if it runs.
printf '#!/bin/sh\n: >"%s/ran"\n' "$work" >marker
chmod +x marker

# check_error STATUS MESSAGE COMMAND...: COMMAND fails with STATUS, says
# MESSAGE, and the marker did not run.
check_error() {
	expected=$1
	message=$2
	shift 2
	rm -f ran
	run "$expected" "$@"
	expect_in "$work/err" "$message"
	[ -e ran ] && fail "COMMAND ran: $*"
	return 0
}

check_error 127 "memprof-wrap: no-such-command: command not found" \
	"$wrap" no-such-command
check_error 127 "memprof-wrap: ./missing: No such file or directory" \
	"$wrap" ./missing
check_error 127 "memprof-wrap: : command not found" "$wrap" ""
check_error 127 "memprof-wrap: marker: command not found" \
	env PATH="$work/nowhere" "$wrap" marker

cp marker not-executable
chmod -x not-executable
check_error 126 "memprof-wrap: ./not-executable: Permission denied" \
	"$wrap" ./not-executable
mkdir -p dir/dir-command path1 path2
check_error 126 "memprof-wrap: ./dir: Is a directory" "$wrap" ./dir
check_error 126 "memprof-wrap: ./marker/x: Not a directory" \
	"$wrap" ./marker/x
# Through PATH, like execvp(): a directory or a file without permission is
# passed over for a later executable, and reported when there is none.
cp not-executable path1/candidate
check_error 126 "memprof-wrap: $work/dir/dir-command: Is a directory" \
	env PATH="$work/dir:$work/path1" "$wrap" dir-command
check_error 126 "memprof-wrap: $work/path1/candidate: Permission denied" \
	env PATH="$work/path1" "$wrap" candidate
cp marker path2/candidate
run 0 env PATH="$work/path1:$work/path2" "$wrap" -q candidate
[ -e ran ] || fail "the executable later in PATH did not run"

printf '#!%s/no-such-interpreter -x\necho ran\n' "$work" >bad-interpreter
chmod +x bad-interpreter
check_error 126 "memprof-wrap: ./bad-interpreter: bad interpreter $work/no-such-interpreter: No such file or directory" \
	"$wrap" ./bad-interpreter

# The output directory is checked before COMMAND runs.
check_error 1 "memprof-wrap: output directory $work/missing-dir: No such file or directory" \
	"$wrap" -o missing-dir/p.mlyze ./marker
check_error 1 "memprof-wrap: output directory $work/marker: Not a directory" \
	"$wrap" -o marker/p.mlyze ./marker
mkdir locked
chmod 555 locked
if [ "$(id -u)" -ne 0 ]; then
	check_error 1 "memprof-wrap: output directory $work/locked: Permission denied" \
		"$wrap" -o locked/p.mlyze ./marker
else
	# The superuser may write anywhere: try as nobody instead, with copies
	# of the programs where nobody can reach them.
	command -v setpriv >/dev/null 2>&1 || fail "root, but no setpriv"
	as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
	chmod 755 "$work"
	cp "$wrap" "$fake_runtime" "$work/" || exit 99
	if $as_nobody test -x "$work/memprof-wrap"; then
		check_error 1 "memprof-wrap: output directory $work/locked: Permission denied" \
			env SPPROF_RUNTIME="$work/${fake_runtime##*/}" \
			$as_nobody "$work/memprof-wrap" -o locked/p.mlyze ./marker
	else
		echo "note: nobody cannot reach $work; unwritable directory not tested"
	fi
fi

# The runtime itself.
check_error 1 "memprof-wrap: profiler runtime $work/no-such-runtime.so: No such file or directory" \
	env SPPROF_RUNTIME="$work/no-such-runtime.so" "$wrap" ./marker
check_error 1 "memprof-wrap: profiler runtime $work/marker: not an ELF shared library" \
	env SPPROF_RUNTIME="$work/marker" "$wrap" ./marker
# A runtime for another machine cannot be preloaded into the command.  One
# is made by setting e_machine (offset 18, little-endian) to EM_AARCH64
# (183), or to EM_X86_64 (62) on aarch64.
cp "$fake_runtime" foreign-runtime.so || exit 99
[ "$(uname -m)" = aarch64 ] && machine='\076\000' || machine='\267\000'
printf "$machine" | dd of=foreign-runtime.so bs=1 seek=18 conv=notrunc 2>/dev/null
check_error 1 "memprof-wrap: /bin/sh (interpreter of ./marker): built for another architecture than the profiler runtime $work/foreign-runtime.so" \
	env SPPROF_RUNTIME="$work/foreign-runtime.so" "$wrap" ./marker
exit 0
