# second-user.sh - sourced by tests that play a second local user against
# root's tools.
#
# second_user NAME: creates the user NAME (no home, no login shell) and
# sets $second_uid and $second_gid; the caller removes it with
# remove_second_user, from its exit trap.  Skips the test (77) with a
# message when not root, or when the user cannot be made.  NAME is the
# test's own, so that tests running at once never share one.

second_user() {
	second_name=$1
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: playing a second user needs root"
		exit 77
	fi
	# One left by a test that was killed.
	userdel "$second_name" >/dev/null 2>&1
	if ! useradd --no-create-home --user-group --shell /usr/sbin/nologin \
		"$second_name" >/dev/null 2>&1; then
		echo "SKIP: cannot create the user $second_name (useradd)"
		exit 77
	fi
	second_uid=$(id -u "$second_name")
	second_gid=$(id -g "$second_name")
}

remove_second_user() {
	[ -n "${second_name:-}" ] && userdel "$second_name" >/dev/null 2>&1
	return 0
}

# as_second_user COMMAND...: runs COMMAND as that user, without groups.
as_second_user() {
	setpriv --reuid="$second_uid" --regid="$second_gid" --clear-groups "$@"
}
