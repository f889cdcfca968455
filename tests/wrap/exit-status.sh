#!/bin/sh
# memprof-wrap exits with COMMAND's status (128+N when signal N killed it)
# and passes SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to it on to COMMAND.
. "${srcdir:-.}/tests/wrap/common.sh"

run 0 "$wrap" -q true
run 1 "$wrap" -q false
run 3 "$wrap" -q sh -c 'exit 3'
run 255 "$wrap" -q sh -c 'exit 255'
run 143 "$wrap" -q sh -c 'kill -TERM $$'
run 137 "$wrap" -q sh -c 'kill -KILL $$'
run 134 "$wrap" -q sh -c 'ulimit -c 0; kill -ABRT $$'

# The shell that starts memprof-wrap in the background makes it ignore
# SIGINT and SIGQUIT; a caller that does not gives the defaults back.
for signal in INT:2 TERM:15 HUP:1 QUIT:3; do
	number=${signal#*:}
	signal=${signal%:*}
	rm -f "$work/ready"
	env --default-signal "$wrap" -q "$helpers/catch-signal" "$work/ready" &
	wrap_pid=$!
	tries=0
	while [ ! -s "$work/ready" ]; do
		tries=$((tries + 1))
		[ $tries -le 500 ] || fail "catch-signal did not start"
		sleep 0.01
	done
	catcher=$(cat "$work/ready")
	kill -s $signal $wrap_pid
	# A signal lost on the way must fail the test, not hang it.
	tries=0
	while kill -0 "$catcher" 2>/dev/null; do
		tries=$((tries + 1))
		if [ $tries -gt 500 ]; then
			kill -KILL "$catcher"
			fail "SIG$signal did not reach COMMAND"
		fi
		sleep 0.01
	done
	wait $wrap_pid
	status=$?
	expected=$((100 + number))
	[ $status -eq $expected ] ||
		fail "SIG$signal: exit status $status instead of $expected"
done
exit 0
