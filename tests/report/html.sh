#!/bin/sh
# The HTML page in a real browser (Debian's chromium, headless; skipped
# when it is missing, and under an emulator): the script runs without a
# console error, the page shows the expected functions, sites and totals,
# a link with #search and #moment shows that search and that moment, the
# screenshot is not blank, a profile of 100,000 stacks loads, and so does
# the page of a comparison (--base), with the legend of its colours.  The
# chart of a run of trend-program in leak mode draws leak_me, the site
# that grows, as a line of its own named by the legend; a profile whose
# sites hold steady levels says that none grows.  The chart of a run also
# draws the resident memory of the process, and its legend says how much
# of it malloc explains; a profile without readings of it shows neither.
# A stretch dragged across the chart shows what was allocated in it, as
# does a link with #from and #to; the trees open, a function chosen shows
# its callers, and the search opens the trees at the functions it
# matches; a page of --at MARKER opens at that moment.  The chart of a
# run that maps its own heap draws the part of the estimate held in
# anonymous mappings, and its legend says so.
set -u
. "${srcdir:-.}/tests/report/common.sh"
. "${srcdir:-.}/tests/report/trend-common.sh"

browser=
for candidate in chromium chromium-browser; do
	command -v "$candidate" >/dev/null 2>&1 && browser=$candidate && break
done
[ -n "$browser" ] || { echo "no chromium: skipped"; exit 77; }
python=$(python_with json)
[ -n "$python" ] || { echo "no python3: skipped"; exit 77; }
skipped_under_emulation "the page in chromium" \
	"its GPU process does not start under the emulator; the page is the same on every architecture" &&
	exit 77

unseen=$PWD/tests/report/unseen-program
"$gen" compile "$here/profiles/tree.txt" "$scratch/tree.mlyze" || exit 99
"$gen" large 200000 "$scratch/large.mlyze" 100000 || exit 99
cd "$scratch" || exit 99
"$report" -o tree.html tree.mlyze 2>/dev/null &&
	"$report" -f html large.mlyze >large.html 2>/dev/null &&
	"$report" -o compared.html --base large.mlyze tree.mlyze \
		2>/dev/null || exit 99
profile leak leak 8192
"$gen" compile "$here/profiles/merge-b.txt" "$scratch/steady.mlyze" || exit 99
"$report" -o leak.html leak.mlyze && "$report" -o steady.html steady.mlyze \
	2>/dev/null || exit 99

# browse PAGE[#STATE] OUT [SCREENSHOT]: the DOM after the script ran in
# OUT, the browser's log in OUT.log (in the scratch directory).
browse() {
	profile_dir=$(mktemp -d "$scratch/browser.XXXXXX") || exit 99
	set -- "$1" "$2" "${3:+--screenshot=$3}"
	watched 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--no-first-run --user-data-dir="$profile_dir" \
		--enable-logging=stderr --v=0 --window-size=1200,900 \
		${3:+"$3"} --dump-dom "file://$scratch/$1" >"$2" 2>"$2.log"
}

# page_ok NAME OUT: the script finished, and logged nothing.
page_ok() {
	[ -s "$2" ] && grep -q 'data-ready="1"' "$2" &&
		! grep -q "CONSOLE" "$2.log"
	verdict "$1: the script runs without a console error" $? \
		"$(grep CONSOLE "$2.log")"
}

# has NAME OUT TEXT...: every TEXT is in the DOM.
has() {
	name=$1 out=$2
	shift 2
	for text; do
		grep -qF -- "$text" "$out"
		verdict "$name: shows '$text'" $?
	done
}

browse tree.html tree.dom
page_ok tree tree.dom
has tree tree.dom \
	'Live bytes at the peak: 6.5 MiB ± 0 B' \
	'<td class="site">alloc_buffer (/srv/lib.py:5)</td>' \
	'<td class="site">render (/srv/app.py:21)</td>' \
	'<li>main (/srv/app.py): 6.5 MiB (100.0 %)</li>' \
	'<li>libstripped.so+0x1234: 2.0 MiB (30.8 %)</li>'

browse 'tree.html#measure=2&search=alloc_buffer' allocated.dom
page_ok "#measure=2" allocated.dom
has "#measure=2&search=alloc_buffer" allocated.dom \
	'Bytes allocated: 7.5 MiB ± 0 B' \
	'matched 7.0 MiB, 93.3 % of the total'

browse 'tree.html#moment=1.3&search=alloc_buffer' moment.dom moment.png
page_ok "#moment=1.3" moment.dom
has "#moment=1.3" moment.dom \
	'Live bytes at 1.200 s: 6.5 MiB ± 0 B' \
	'matched 6.0 MiB, 92.3 % of the total'
# A blank page of this size compresses to a few KiB.
size=$(wc -c <moment.png 2>/dev/null || echo 0)
[ "$size" -gt 20000 ]
verdict "the screenshot is not blank ($size bytes)" $?

# The page as a user drives it: a stretch dragged across the chart
# (0.95 s to 1.15 s, whose snapshots' stretches run from 0.5 s to 1.2 s)
# shows what was allocated in it (its title and its boxes: parse's are
# gone); the top-down tree opens a level at a click; alloc_buffer chosen
# in it shows its callers (parse and render, over the stretch render
# alone), render its callees; the bottom-up tree, searched for render,
# opens along every path to it.
{
	sed '/<\/body>/,$d' tree.html
	printf '<script>\n'
	cat "$here/html/interact.js"
	printf '</script>\n</body>\n</html>\n'
} >driven.html
browse driven.html driven.dom
page_ok "driven" driven.dom
"$python" - driven.dom <<'PY'
import html, json, re, sys

dom = open(sys.argv[1]).read()
found = re.search(r'data-result="([^"]*)"', dom)
if not found:
    sys.exit("the script of the test did not finish")
r = json.loads(html.unescape(found.group(1)))
print(json.dumps(r, indent=1))
def drew(boxes, function):
    return any(b.startswith(function + " ") for b in boxes)
checks = [
    ("a stretch changes the flame graph",
     r["before"] == "Live bytes at the peak: 6.5 MiB ± 0 B" and
     r["stretch"] == "Bytes allocated from 0.500 s to 1.200 s: "
                    "4.5 MiB ± 0 B"),
    # parse allocated before the stretch: its box goes, render's stays.
    ("the flame graph redraws its boxes for the stretch",
     drew(r["boxesBefore"], "parse") and drew(r["boxesBefore"], "render")
     and not drew(r["boxesStretch"], "parse")
     and drew(r["boxesStretch"], "render")),
    ("the address keeps the stretch",
     re.fullmatch(r"#from=0\.9[0-9]*&to=1\.1[0-9]*", r["address"])),
    ("a tree expands", r["rowsClosed"] == 1 and r["rowsOpen"] == 2 and
     r["opened"] == ["render (/srv/app.py)"]),
    ("a function's callers", r["chosen"].startswith("alloc_buffer") and
     r["callers"] == ["render (/srv/app.py)"]),
    # render calls alloc_buffer, and allocates 512 KiB itself.
    ("a function's callees", sorted(r["callees"]) == [
        "(itself: it allocates)", "alloc_buffer (/srv/lib.py)"]),
    ("the search finds a function in the bottom-up tree",
     r["matches"] and all(m.startswith("render") for m in r["matches"])),
]
failed = [name for name, ok in checks if not ok]
print("failed:", failed)
sys.exit(1 if failed else 0)
PY
verdict "driven: a stretch, a tree, a function's callers and callees, a search" $?

browse 'tree.html#from=0&to=0.45&search=parse' early.dom
page_ok "#from=0&to=0.45" early.dom
has "#from=0&to=0.45" early.dom \
	'Bytes allocated from 0.000 s to 0.500 s: 3.0 MiB ± 0 B' \
	'<span class="name match">parse (/srv/app.py)</span>'

"$report" --at parsed -o parsed.html tree.mlyze 2>/dev/null || exit 99
browse parsed.html parsed.dom
page_ok "--at parsed" parsed.dom
has "--at parsed" parsed.dom \
	'Live bytes at marker parsed: 2.0 MiB ± 0 B' \
	'<th>AT MOMENT</th>'

browse large.html large.dom
page_ok "100,000 stacks" large.dom
grep -q '<ol id="largest"><li>' large.dom
verdict "100,000 stacks: the flame graph is built" $?

browse compared.html compared.dom
page_ok "--base" compared.dom
grep -q 'id="change-legend"' compared.dom &&
	grep -q '<ol id="largest"><li>' compared.dom
verdict "--base: the flame graph of the change and its legend" $?

browse leak.html leak.dom leak.png
page_ok "a leak" leak.dom
grep -q '<input type="checkbox" id="show-growing">' leak.dom &&
	grep -q '<li><svg [^>]*>.*</svg>leak_me: +[0-9.]* [KMG]*i*B ± [0-9.]* [KMG]*i*B per marker</li>' \
		leak.dom &&
	grep -q '<path class="site-line" [^>]*data-site="leak_me: ' leak.dom
verdict "a leak: the legend names leak_me and its rate, the chart its line" \
	$? "$(grep -o '<ul class="legend" id="growth-legend">.\{0,300\}' leak.dom)"
# The run's resident memory, read by the runtime, as a line of its own
# next to the heap, and how much of it malloc explains.
grep -q '<path class="resident" d="M[0-9.]*,[0-9.]*L' leak.dom &&
	grep -q '<p class="legend" id="resident-legend">The grey line is the resident memory of the process.*malloc accounts for [0-9]* % of resident memory at the peak' \
		leak.dom
verdict "a run: the chart draws its resident memory, the legend says how much malloc explains" \
	$? "$(grep -o '<p class="legend" id="resident-legend".\{0,300\}' leak.dom)"

browse steady.html steady.dom
page_ok "no leak" steady.dom
grep -q '<li>no site grows significantly</li>' steady.dom &&
	! grep -q 'class="site-line"' steady.dom
verdict "no leak: no site grows significantly, no line" $?
# A profile without readings of resident memory (made by mlyze-gen)
# draws no such line and says nothing of it.
grep -q '<p class="legend" id="resident-legend" hidden' steady.dom &&
	! grep -q '<path class="resident" d="M' steady.dom
verdict "no readings: no resident memory line, no legend" $?

# A run that keeps its own heap in an anonymous mapping (unseen-program):
# the chart draws the part of the estimate held in mappings as a line of
# its own, which its legend names; --kind heap, and a profile without
# mappings, draw neither.
under_runtime SPPROF_SAMPLING_RATE=1 SPPROF_OUTPUT="$scratch/mapped.mlyze" \
	"$unseen" || exit 99
"$report" -o mapped.html mapped.mlyze 2>/dev/null &&
	"$report" --kind heap -o heap-only.html mapped.mlyze 2>/dev/null ||
	exit 99
browse mapped.html mapped.dom
page_ok "mappings" mapped.dom
grep -q '<path class="mapped" d="M[0-9.]*,[0-9.]*H' mapped.dom &&
	grep -q '<p class="legend" id="mapped-legend">The dotted line is the part of the estimate held in anonymous mappings' \
		mapped.dom
verdict "mappings: the chart draws the part in mappings, the legend names it" \
	$? "$(grep -o '<p class="legend" id="mapped-legend".\{0,200\}' mapped.dom)"
browse heap-only.html heap-only.dom
page_ok "--kind heap" heap-only.dom
for dom in heap-only.dom steady.dom; do
	grep -q '<p class="legend" id="mapped-legend" hidden' "$dom" &&
		! grep -q '<path class="mapped"' "$dom"
	verdict "${dom%.dom}: no line of mappings, no legend of it" $?
done
[ "$failures" -eq 0 ]
