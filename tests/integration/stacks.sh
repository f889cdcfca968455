# stacks.sh - reading call stacks out of profiles, for the tests of native
# stacks (sourced after common.sh, not run).

report=$abs_top_builddir/src/memprof-report

# stacks PROFILE: one line per stack of PROFILE as memprof-report
# symbolizes it, leaf first, frames separated by tabs, each without its
# " (file:line)".
stacks() {
	"$report" --group-by stack --top 0 --all --json "$1" | awk '
	function frame(line) {
		sub(/^ *("site": )?"/, "", line)
		sub(/",?$/, "", line)
		sub(/ \([^()]*:[0-9]+\)$/, "", line)
		return line
	}
	/^ *"site": / { if (stack != "") print stack; stack = frame($0); next }
	/^ *"callers": \[\],?$/ { next }
	/^ *"callers": \[/ { callers = 1; next }
	callers && /^ *\]/ { callers = 0; next }
	callers { stack = stack "\t" frame($0) }
	END { if (stack != "") print stack }'
}

# expect_stack PROFILE PATTERN...: some stack of PROFILE starts with
# frames that match the patterns in order: a shell glob matches one frame,
# "..." any number of frames (none included).
expect_stack() {
	profile=$1
	shift
	stacks "$profile" >"$scratch/stacks" ||
		fail "memprof-report cannot read $profile"
	awk -F '\t' -v patterns="$(printf '%s\t' "$@")" '
	function glob_to_regex(glob,   regex, i, c) {
		regex = "^"
		for (i = 1; i <= length(glob); i++) {
			c = substr(glob, i, 1)
			if (c == "*")
				regex = regex ".*"
			else if (index("[]\\^$.|?+(){}", c))
				regex = regex "\\" c
			else
				regex = regex c
		}
		return regex "$"
	}
	function matches(i, j,   k) {
		if (j > np)
			return 1
		if (pattern[j] == "...") {
			for (k = i; k <= NF + 1; k++)
				if (matches(k, j + 1))
					return 1
			return 0
		}
		return i <= NF && $i ~ regex[j] && matches(i + 1, j + 1)
	}
	BEGIN {
		np = split(patterns, pattern, "\t") - 1
		for (j = 1; j <= np; j++)
			regex[j] = glob_to_regex(pattern[j])
	}
	matches(1, 1) { found = 1; exit }
	END { exit !found }' "$scratch/stacks" || {
		sed 's/\t/ < /g; s/^/  | /' "$scratch/stacks" >&2
		fail "no stack of $profile matches: $*"
	}
}
