# trend-common.sh - sourced by compare.sh and leaks.sh after common.sh:
# runs of trend-program under the runtime, and the rows of a JSON report.
program=$PWD/tests/report/trend-program
need_runtime

# profile MODE NAME [RATE]: $scratch/NAME.mlyze of one run in MODE.  Each
# run has a seed of its own, the next of a fixed sequence, so that the
# runs of a test sample independently and every run of the test samples
# alike: the figures it prints repeat, and its verdicts never flip by
# chance.
seed=0
profile() {
	rm -f "$scratch/$2.mlyze"
	seed=$((seed + 1))
	under_runtime SPPROF_OUTPUT="$scratch/$2.mlyze" SPPROF_SEED=$seed \
		SPPROF_SAMPLING_RATE="${3:-32768}" "$program" "$1" || exit 99
}

# rows KEY...: the site and the values of KEY... of every object of the
# JSON report on standard input that names a site, one line each.
rows() {
	awk -v keys="$*" '
		BEGIN { n = split(keys, k, " ") }
		/^ *"site": / { site = $0; sub(/^ *"site": "/, "", site)
				sub(/",?$/, "", site); delete v; inside = 1 }
		inside && /^ *"[a-z_0-9]+": / {
			key = $1; gsub(/[":]/, "", key)
			value = $2; gsub(/[",]/, "", value); v[key] = value }
		inside && /^ *}/ { line = site
			for (i = 1; i <= n; i++) line = line " " v[k[i]]
			print line; inside = 0 }'
}

# grown_verdicts: of the rows "site change change_ci95 verdict" of grown
# against base on standard input, "NAMED COVERED OTHERS" (1 or 0 each):
# grow_me is called grown, its interval holds its 2 MiB, another site is
# called changed.
grown_verdicts() {
	awk -v truth=2097152 '
		$1 == "grow_me" { named = $4 == "grown"
			d = $2 - truth; covered = (d < 0 ? -d : d) <= $3 }
		$1 != "grow_me" && $4 != "none" { others = 1 }
		END { print named + 0, covered + 0, others + 0 }'
}

# false_positives: of the rows "site p_value verdict" of a program against
# itself on standard input, "ANY SITES RAW": 1 when a site is called
# changed, the sites compared, those whose own test says so (p < 0.05).
false_positives() {
	awk '{ n++ } $2 < 0.05 { raw++ } $3 != "none" { any = 1 }
	     END { print any + 0, n + 0, raw + 0 }'
}
