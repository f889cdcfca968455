/* report-html.js - the flame graph, the heap over time and the table of
 * memprof-report's HTML page, from the data report-html.c writes in the
 * page (the element #data).  Runs offline: no request, no library.
 *
 * The flame graph is an icicle drawn on a canvas (the root at the top),
 * built by merging the stacks into a tree; boxes narrower than half a
 * pixel are not drawn, so 100,000 stacks stay fast.  A box's estimate is
 * the sum of its stacks', its 95 % interval the root of the sum of their
 * squared intervals (the variances add up).
 *
 * A comparison (data.base) adds the base stacks to the same tree, as the
 * base estimate of each box: the widths stay those of the newer profiles,
 * and each box is coloured by its change, red where it grew and blue
 * where it shrank, beyond the 95 % interval of the change; grey within
 * it.
 *
 * The sites that grow significantly (data.growing) are drawn on the
 * chart of the heap, each its own colour and dash, under a checkbox.
 *
 * A click on the chart shows the live stacks at the nearest snapshot; a
 * stretch dragged across it shows what the stacks allocated in it, from
 * what each snapshot says they allocated since the one before (the
 * stretch widens to the snapshots around it).
 *
 * Beside the flame graph, the same stacks as trees: top-down (from the
 * callers) or bottom-up (from the sites), opened a level at a click, or
 * along every path to a function the search matches; and the callers and
 * callees of the function chosen in a tree or the flame graph.  A
 * function that recurses counts once per stack.
 */
"use strict";

const data = JSON.parse(document.getElementById("data").textContent);
const ROW = 18;
const MEASURES = ["Live bytes at the peak", "Live bytes at the end",
	"Bytes allocated"];

function formatBytes(n) {
	const units = ["KiB", "MiB", "GiB", "TiB", "PiB"];
	if (Math.abs(n) < 1023.5)
		return Math.round(n) + " B";
	let unit = -1;
	do {
		n /= 1024;
		unit++;
	} while (Math.abs(n) >= 1023.95 && unit < units.length - 1);
	return n.toFixed(1) + " " + units[unit];
}

function formatShare(part, whole) {
	return whole > 0 ? (100 * part / whole).toFixed(1) + " %" : "-";
}

const SVG = "http://www.w3.org/2000/svg";

/* An HTML element, or an SVG one in `namespace`. */
function element(tag, attributes, text, namespace) {
	const e = namespace ? document.createElementNS(namespace, tag)
		: document.createElement(tag);
	for (const key in attributes || {})
		e.setAttribute(key, attributes[key]);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

/* ---- the tree of stacks ---- */

function newNode(frame, parent) {
	return { frame: frame, parent: parent, children: new Map(), value: 0,
		variance: 0, samples: 0, base: 0, baseVariance: 0,
		depth: parent ? parent.depth + 1 : 0 };
}

/* The child of `node` for `frame`, made when new. */
function childOf(node, frame) {
	let child = node.children.get(frame);
	if (!child) {
		child = newNode(frame, node);
		node.children.set(frame, child);
	}
	return child;
}

/* The base stacks of a comparison, by measure m, into the boxes' base. */
function addBase(root, m) {
	const b = data.base;
	for (let i = 0; i < b.stacks.length; i++) {
		const value = b.values[m][i];
		if (!(value > 0))
			continue;
		const variance = b.intervals[m][i] * b.intervals[m][i];
		let node = root;
		root.base += value;
		root.baseVariance += variance;
		for (const frame of b.stacks[i]) {
			node = childOf(node, frame);
			node.base += value;
			node.baseVariance += variance;
		}
	}
}

/* What the flame graph shows: for each listed stack, its value, 95 %
 * interval and samples; with a comparison, the base of measure `baseOf`
 * (undefined: none).  Bottom-up (`upward`), each stack starts at its
 * site. */
function buildTree(stacks, values, intervals, samples, baseOf, upward) {
	const root = newNode(-1, null);
	let height = 1;
	root.source = { stacks: stacks, values: values, intervals: intervals,
		samples: samples };
	for (let i = 0; i < stacks.length; i++) {
		const value = values[i];
		if (!(value > 0))
			continue;
		const variance = intervals[i] * intervals[i];
		const frames = data.stacks[stacks[i]];
		let node = root;
		root.value += value;
		root.variance += variance;
		root.samples += samples[i];
		for (const frame of upward ? frames.slice().reverse() : frames) {
			const child = childOf(node, frame);
			child.value += value;
			child.variance += variance;
			child.samples += samples[i];
			node = child;
		}
		if (node.depth + 1 > height)
			height = node.depth + 1;
	}
	root.height = height;
	if (data.base && baseOf !== undefined)
		addBase(root, baseOf);
	sortChildren(root);
	return root;
}

/* Children from the largest: the boxes too narrow to draw come last, and
 * are drawn together as one. */
function sortChildren(root) {
	const pending = [root];
	while (pending.length) {
		const node = pending.pop();
		node.kids = Array.from(node.children.values()).sort((a, b) =>
			b.value - a.value);
		for (const kid of node.kids)
			pending.push(kid);
	}
}

/* The children of `node` from index `first` on, as one box. */
function smallerBoxes(node, first) {
	const rest = { frame: -2, parent: node, depth: node.depth + 1,
		value: 0, variance: 0, samples: 0, count: 0, base: 0,
		baseVariance: 0 };
	for (let i = first; i < node.kids.length; i++) {
		rest.value += node.kids[i].value;
		rest.base += node.kids[i].base;
		rest.baseVariance += node.kids[i].baseVariance;
		rest.variance += node.kids[i].variance;
		rest.samples += node.kids[i].samples;
		rest.count++;
	}
	return rest;
}

function allStacks() {
	const all = new Array(data.stacks.length);
	for (let i = 0; i < all.length; i++)
		all[i] = i;
	return all;
}

/* ---- the flame graph ---- */

const flame = {
	canvas: document.getElementById("flame"),
	root: null, focus: null, title: "", query: "", compared: false,
	drawn: [], /* by row: boxes drawn, [x, width, node] */
};

function hashName(name) {
	let h = 2166136261;
	for (let i = 0; i < name.length; i++)
		h = Math.imul(h ^ name.charCodeAt(i), 16777619);
	return (h >>> 0) / 4294967296;
}

/* Warm colours for native code, blues for Python, greys for what has no
 * name; matches of a search in purple: never red against green alone. */
function boxColour(node) {
	if (node.frame === -2)
		return "#eaeef2";
	if (node.frame < 0)
		return "#d0d7de";
	const name = data.frames[node.frame];
	if (flame.query && name.toLowerCase().includes(flame.query))
		return "#a626a4";
	if (flame.compared)
		return changeColour(node);
	const h = hashName(name);
	switch (data.kinds[node.frame]) {
	case 0:
		return "hsl(" + (22 + 28 * h) + ",85%," + (58 + 14 * h) + "%)";
	case 1:
		return "hsl(" + (195 + 30 * h) + ",65%," + (62 + 14 * h) + "%)";
	default:
		return "hsl(210,8%," + (70 + 12 * h) + "%)";
	}
}

/* Red where a box grew since the base, blue where it shrank, the deeper
 * the larger the change against the box; grey within the noise. */
function changeColour(node) {
	const change = node.value - node.base;
	if (Math.abs(change) <= Math.sqrt(node.variance + node.baseVariance))
		return "hsl(210,8%,84%)";
	const strength = Math.min(1, Math.abs(change) /
		Math.max(node.value, node.base));
	return "hsl(" + (change > 0 ? 0 : 220) + ",75%," +
		(86 - 36 * strength) + "%)";
}

function frameName(node) {
	if (node.frame === -2)
		return node.count + " boxes too narrow to draw";
	return node.frame < 0 ? "all" : data.frames[node.frame];
}

function drawBox(ctx, node, x, y, width) {
	ctx.fillStyle = boxColour(node);
	ctx.fillRect(x, y, Math.max(width - 1, 0.5), ROW - 1);
	if (width > 28) {
		ctx.fillStyle = "#1f2328";
		const name = frameName(node);
		const fit = Math.floor((width - 6) / 6.6);
		ctx.fillText(fit < name.length ? name.slice(0, Math.max(fit - 1, 1)) +
			"…" : name, x + 3, y + 13);
	}
	flame.drawn[node.depth].push([x, width, node]);
}

/* The focus's ancestors full width, then its subtree in proportion. */
function drawFlame() {
	const canvas = flame.canvas, focus = flame.focus, root = flame.root;
	const width = canvas.parentElement.clientWidth;
	const ratio = window.devicePixelRatio || 1;
	const height = Math.max(root.height, 1) * ROW + 2;
	canvas.width = width * ratio;
	canvas.height = height * ratio;
	canvas.style.height = height + "px";
	const ctx = canvas.getContext("2d");
	ctx.scale(ratio, ratio);
	ctx.font = "11px system-ui, sans-serif";
	ctx.clearRect(0, 0, width, height);
	flame.drawn = [];
	for (let d = 0; d <= root.height; d++)
		flame.drawn.push([]);
	for (let n = focus.parent; n; n = n.parent)
		drawBox(ctx, n, 0, n.depth * ROW, width);
	if (!(focus.value > 0))
		return;
	const scale = width / focus.value;
	const pending = [[focus, 0]];
	while (pending.length) {
		const [node, x] = pending.pop();
		drawBox(ctx, node, x, node.depth * ROW, node.value * scale);
		if (!node.kids)
			continue;
		let childX = x, i = 0;
		for (; i < node.kids.length; i++) {
			const cw = node.kids[i].value * scale;
			if (cw < 0.5)
				break;
			pending.push([node.kids[i], childX]);
			childX += cw;
		}
		if (i < node.kids.length)
			drawBox(ctx, smallerBoxes(node, i), childX,
				(node.depth + 1) * ROW, (node.value * scale) -
				(childX - x));
	}
}

function boxAt(event) {
	const rect = flame.canvas.getBoundingClientRect();
	const x = event.clientX - rect.left, row = Math.floor(
		(event.clientY - rect.top) / ROW);
	for (const [bx, bw, node] of flame.drawn[row] || [])
		if (x >= bx && x < bx + bw)
			return node;
	return null;
}

function describe(node) {
	const tip = document.getElementById("tip");
	tip.replaceChildren(
		element("div", { class: "name" }, frameName(node)),
		element("div", {}, formatBytes(node.value) + " ± " +
			formatBytes(Math.sqrt(node.variance)) + " (95 %)"),
		element("div", {}, formatShare(node.value, flame.root.value) +
			" of " + flame.title.toLowerCase() +
			(flame.focus !== flame.root ? ", " + formatShare(node.value,
				flame.focus.value) + " of the zoomed box" : "")),
		element("div", {}, node.samples + " sample" +
			(node.samples === 1 ? "" : "s")));
	if (flame.compared)
		tip.append(element("div", {}, "change since the base: " +
			(node.value >= node.base ? "+" : "-") +
			formatBytes(Math.abs(node.value - node.base)) + " ± " +
			formatBytes(Math.sqrt(node.variance +
				node.baseVariance)) + " (95 %), base " +
			formatBytes(node.base)));
}

function showTree(root, title) {
	flame.root = flame.focus = root;
	flame.compared = Boolean(data.base) && root.base > 0;
	flame.title = title;
	document.getElementById("flame-title").textContent = title + ": " +
		formatBytes(root.value) + " ± " + formatBytes(Math.sqrt(
			root.variance));
	drawFlame();
	searchFlame();
	listLargest();
	showCallTree();
	showRelatives();
}

/* Matching boxes, counted once where they nest. */
function searchFlame() {
	const status = document.getElementById("search-status");
	const query = document.getElementById("search").value.trim().toLowerCase();
	flame.query = query;
	drawFlame();
	if (!query) {
		status.textContent = "";
		return;
	}
	let matched = 0;
	const pending = [flame.root];
	while (pending.length) {
		const node = pending.pop();
		if (node.frame >= 0 &&
		    data.frames[node.frame].toLowerCase().includes(query)) {
			matched += node.value;
			continue;
		}
		for (const child of node.children.values())
			pending.push(child);
	}
	status.textContent = "matched " + formatBytes(matched) + ", " +
		formatShare(matched, flame.root.value) + " of the total";
}

/* Whether the search matches the node's function. */
function matches(node) {
	return flame.query !== "" && node.frame >= 0 &&
		data.frames[node.frame].toLowerCase().includes(flame.query);
}

/* The widest boxes as text, for reading without the canvas. */
function listLargest() {
	const nodes = [];
	const pending = Array.from(flame.root.kids);
	while (pending.length) {
		const node = pending.pop();
		nodes.push(node);
		if (node.value * 200 >= flame.root.value)
			for (const kid of node.kids)
				pending.push(kid);
	}
	nodes.sort((a, b) => b.value - a.value);
	const list = document.getElementById("largest");
	list.replaceChildren(...nodes.slice(0, 30).map((node) =>
		element("li", {}, frameName(node) + ": " + formatBytes(
			node.value) + " (" + formatShare(node.value,
			flame.root.value) + ")")));
}

/* The view in the address (#measure=1&search=parse or #moment=2.5), so
 * that a link shows what its sender saw. */
function saveState() {
	const state = new URLSearchParams();
	const measure = document.getElementById("measure").value;
	if (measure === "moment") {
		state.set("moment", chart.moment.toFixed(6));
	} else if (measure === "stretch") {
		state.set("from", chart.stretch[0].toFixed(6));
		state.set("to", chart.stretch[1].toFixed(6));
	} else {
		state.set("measure", measure);
	}
	if (flame.query)
		state.set("search", flame.query);
	history.replaceState(null, "", "#" + state.toString());
}

function loadState() {
	const state = new URLSearchParams(location.hash.slice(1));
	const measure = Number(state.get("measure"));
	if (state.has("moment"))
		showMoment(Number(state.get("moment")));
	else if (state.has("from") && state.has("to"))
		showStretch(Number(state.get("from")), Number(state.get("to")));
	else if (measure >= 0 && measure < MEASURES.length &&
		 state.has("measure"))
		showMeasure(measure);
	if (state.has("search")) {
		document.getElementById("search").value = state.get("search");
		searchFlame();
		showCallTree();
	}
}

function showMeasure(m) {
	document.getElementById("measure").value = String(m);
	showTree(buildTree(allStacks(), data.values[m], data.intervals[m],
		data.samples[m], m), MEASURES[m]);
	chart.moment = chart.stretch = null;
	drawChart();
}

/* ---- the heap over time ---- */

const chart = { svg: document.getElementById("chart"), moment: null,
	stretch: null, /* [from, to] shown in the flame graph */
	dragFrom: null, dragTo: null, /* a stretch being dragged */
	x: null, y: null, end: 0 };
function svg(tag, attributes, text) {
	return element(tag, attributes, text, SVG);
}

function chartScales(width, height) {
	let top = 1, end = 0;
	for (const p of data.profiles) {
		end = Math.max(end, p.end);
		top = Math.max(top, p.peak[1] + p.peak[2]);
		for (let i = 0; i < p.timeline.length; i += 3) {
			top = Math.max(top, p.timeline[i + 1] + p.timeline[i + 2]);
			end = Math.max(end, p.timeline[i]);
		}
		for (let i = 0; i < p.resident.length; i += 2) {
			top = Math.max(top, p.resident[i + 1]);
			end = Math.max(end, p.resident[i]);
		}
	}
	end = end > 0 ? end : 1;
	const left = 64, bottom = 20;
	chart.end = end;
	chart.x = (t) => left + (width - left - 10) * t / end;
	chart.time = (x) => (x - left) / (width - left - 10) * end;
	chart.y = (b) => height - bottom - (height - bottom - 10) * b / top;
	return top;
}

function drawAxes(width, height, top) {
	const g = svg("g", {});
	g.append(svg("line", { class: "axis", x1: 64, x2: width - 10,
		y1: chart.y(0), y2: chart.y(0) }));
	g.append(svg("line", { class: "axis", x1: 64, x2: 64, y1: 10,
		y2: chart.y(0) }));
	for (let k = 0; k <= 4; k++) {
		const b = top * k / 4, t = chart.end * k / 4;
		g.append(svg("text", { x: 60, y: chart.y(b) + 4,
			"text-anchor": "end" }, formatBytes(b)));
		g.append(svg("text", { x: chart.x(t), y: height - 5,
			"text-anchor": "middle" }, t.toFixed(t < 10 ? 2 : 1) + " s"));
	}
	return g;
}

/* The resident memory, read now and then: a line from reading to
 * reading. */
function drawResident(r) {
	let line = "";
	for (let i = 0; i < r.length; i += 2)
		line += (i ? "L" : "M") + chart.x(r[i]).toFixed(1) + "," +
			chart.y(r[i + 1]).toFixed(1);
	return svg("path", { class: "resident", d: line });
}

/* The part of the heap in anonymous mappings, as steps too. */
function drawMapped(m) {
	let line = "";
	for (let i = 0; i < m.length; i += 2) {
		const x = chart.x(m[i]).toFixed(1);
		const y = chart.y(m[i + 1]).toFixed(1);
		line += (i ? "H" + x + "V" : "M" + x + ",") + y;
	}
	if (m.length)
		line += "H" + chart.x(chart.end).toFixed(1);
	return svg("path", { class: "mapped", d: line });
}

/* The heap holds its value until the next point: steps, not slopes. */
function drawProfile(p) {
	const g = svg("g", {});
	const t = p.timeline;
	let upper = "", lower = "", line = "";
	for (let i = 0; i < t.length; i += 3) {
		const x = chart.x(t[i]).toFixed(1);
		const high = chart.y(t[i + 1] + t[i + 2]).toFixed(1);
		const low = chart.y(Math.max(t[i + 1] - t[i + 2], 0)).toFixed(1);
		const y = chart.y(t[i + 1]).toFixed(1);
		upper += (i ? "H" + x + "V" : "M" + x + ",") + high;
		lower = "V" + low + "H" + x + lower;
		line += (i ? "H" + x + "V" : "M" + x + ",") + y;
	}
	if (t.length) {
		const last = chart.x(chart.end).toFixed(1);
		upper += "H" + last;
		lower = "H" + last + lower;
		line += "H" + last;
	}
	g.append(svg("path", { class: "band", d: upper + lower + "Z" }));
	g.append(svg("path", { class: "heap", d: line }));
	g.append(drawResident(p.resident));
	if (p.mapped)
		g.append(drawMapped(p.mapped));
	if (p.kept_from !== undefined) { /* a profile with a size limit */
		const x = chart.x(p.kept_from);
		g.append(svg("line", { class: "marker", x1: x, x2: x, y1: 10,
			y2: chart.y(0) }));
		g.append(svg("text", { x: x - 4, y: 22, "text-anchor": "end" },
			"before: one point per checkpoint; after: every event"));
	}
	let markerRow = 0;
	for (const [time, kind, label, bytes] of p.marks) {
		const x = chart.x(time);
		if (kind === "gc") {
			g.append(svg("path", { class: "gc", d: "M" + (x - 3) + "," +
				(chart.y(0) + 1) + "l3,-6l3,6Z" }));
			continue;
		}
		g.append(svg("line", { class: "marker", x1: x, x2: x, y1: 10,
			y2: chart.y(0) }));
		const right = x > chart.x(chart.end * 0.8);
		g.append(svg("text", { class: "marker-label", x: right ? x - 3 : x + 3,
			y: 20 + 12 * (markerRow++ % 3),
			"text-anchor": right ? "end" : "start" },
		label + " (" + formatBytes(bytes) + ")"));
	}
	g.append(drawPeak(p.peak));
	return g;
}

/* The estimate of the peak with its interval: at its moment, or, when no
 * moment stands out, as a level across the run. */
function drawPeak([pt, pb, pci, single, share]) {
	const g = svg("g", {});
	if (!single) {
		g.append(svg("rect", { class: "peak-level", x: chart.x(0),
			width: chart.x(chart.end) - chart.x(0),
			y: chart.y(pb + pci),
			height: chart.y(Math.max(pb - pci, 0)) - chart.y(pb + pci) }));
		g.append(svg("text", { class: "peak-label", x: chart.x(0) + 6,
			y: chart.y(pb + pci) - 4 },
		"no single peak: the heap stayed within ± " + formatBytes(pci) +
			" of " + formatBytes(pb) + " for " + Math.round(100 * share) +
			" % of the run"));
		return g;
	}
	const right = chart.x(pt) > chart.x(chart.end * 0.8);
	g.append(svg("line", { class: "peak-interval", x1: chart.x(pt),
		x2: chart.x(pt), y1: chart.y(pb + pci),
		y2: chart.y(Math.max(pb - pci, 0)) }));
	g.append(svg("circle", { class: "peak", cx: chart.x(pt), cy: chart.y(pb),
		r: 4 }));
	g.append(svg("text", { class: "peak-label",
		x: chart.x(pt) + (right ? -6 : 6), y: chart.y(pb) + 14,
		"text-anchor": right ? "end" : "start" },
	"peak " + formatBytes(pb) + " ± " + formatBytes(pci) + " at " +
		pt.toFixed(3) + " s"));
	return g;
}

/* The growing sites: colours and dashes that tell them apart without
 * relying on red and green (Okabe and Ito's palette). */
const GROWING_STYLES = [["#e69f00", ""], ["#cc79a7", "6 3"],
	["#009e73", "2 2"], ["#d55e00", "8 3 2 3"], ["#000000", "1 3"]];
const growing = document.getElementById("show-growing");

/* A growing site's live bytes at the snapshots, as steps like the heap. */
function drawGrowingSite(site, index) {
	const [colour, dash] = GROWING_STYLES[index % GROWING_STYLES.length];
	const g = svg("g", { class: "growing" });
	for (const s of site.series) {
		let line = "";
		for (let i = 0; i < s.length; i += 2) {
			const x = chart.x(s[i]).toFixed(1);
			const y = chart.y(s[i + 1]).toFixed(1);
			line += (i ? "H" + x + "V" : "M" + x + ",") + y;
		}
		if (line)
			g.append(svg("path", { class: "site-line", d: line,
				stroke: colour, "stroke-dasharray": dash,
				"data-site": site.label }));
	}
	return g;
}

/* The legend and checkbox of the growing sites, when the data has them. */
function showGrowingLegend() {
	if (!data.growing)
		return;
	const legend = document.getElementById("growth-legend");
	document.getElementById("growth").hidden = false;
	growing.checked = data.growing.length > 0;
	growing.disabled = data.growing.length === 0;
	if (!data.growing.length)
		legend.append(element("li", {}, "no site grows significantly"));
	data.growing.forEach((site, i) => {
		const [colour, dash] = GROWING_STYLES[i % GROWING_STYLES.length];
		const key = svg("svg", { width: 28, height: 10 });
		key.append(svg("line", { x1: 0, x2: 28, y1: 5, y2: 5,
			stroke: colour, "stroke-width": 2,
			"stroke-dasharray": dash }));
		const item = element("li");
		item.append(key, site.label);
		legend.append(item);
	});
	growing.addEventListener("change", drawChart);
}

function drawChart() {
	const s = chart.svg;
	const width = s.clientWidth || 800, height = s.clientHeight || 220;
	s.setAttribute("viewBox", "0 0 " + width + " " + height);
	const top = chartScales(width, height);
	s.replaceChildren(drawAxes(width, height, top),
		...data.profiles.map(drawProfile));
	if (data.growing && growing.checked)
		s.append(...data.growing.map(drawGrowingSite));
	if (chart.moment !== null) {
		const x = chart.x(chart.moment);
		s.append(svg("line", { class: "moment", x1: x, x2: x, y1: 10,
			y2: chart.y(0) }));
	}
	const stretch = chart.dragFrom !== null ?
		[chart.dragFrom, chart.dragTo] : chart.stretch;
	if (stretch) {
		const left = chart.x(Math.min(...stretch));
		s.append(svg("rect", { class: "stretch", x: left, y: 10,
			width: Math.max(chart.x(Math.max(...stretch)) - left, 1),
			height: chart.y(0) - 10 }));
	}
}

function chartTime(event) {
	const rect = chart.svg.getBoundingClientRect();
	return Math.min(Math.max(chart.time(event.clientX - rect.left), 0),
		chart.end);
}

/* A click shows the snapshot nearest it; a drag, the stretch. */
function followDrag() {
	chart.svg.addEventListener("mousedown", (event) => {
		chart.dragFrom = chart.dragTo = chartTime(event);
		event.preventDefault();
	});
	chart.svg.addEventListener("mousemove", (event) => {
		if (chart.dragFrom === null)
			return;
		chart.dragTo = chartTime(event);
		drawChart();
	});
	window.addEventListener("mouseup", (event) => {
		if (chart.dragFrom === null)
			return;
		const from = chart.dragFrom, to = chartTime(event);
		chart.dragFrom = chart.dragTo = null;
		if (Math.abs(chart.x(to) - chart.x(from)) < 4)
			showMoment(to);
		else
			showStretch(Math.min(from, to), Math.max(from, to));
		saveState();
	});
}

/* What a profile's snapshots say its stacks allocated, by stretch of
 * time: [from, to, stacks, bytes, intervals, samples]; the last runs to
 * the end.  A profile with a size limit knows nothing before kept_from. */
function allocationBuckets(p) {
	const buckets = [];
	let from = p.kept_from !== undefined ? p.kept_from :
		(p.timeline.length ? p.timeline[0] : 0);
	for (const snap of p.snapshots) {
		buckets.push([from, Math.max(snap[0], from), ...snap.slice(7, 11)]);
		from = Math.max(snap[0], from);
	}
	buckets.push([from, Math.max(p.end, from), ...p.allocated_after]);
	return buckets;
}

/* The stacks' allocations in the snapshots' stretches that overlap
 * [from, to] (an instant takes the stretch around it). */
function showStretch(from, to) {
	const sums = new Map();
	let first = Infinity, last = -Infinity, unknown = false;
	for (const p of data.profiles) {
		if (p.kept_from !== undefined && from < p.kept_from)
			unknown = true;
		for (const [start, end, stacks, bytes, intervals, samples] of
			allocationBuckets(p)) {
			const overlaps = end > start ? start < to && end > from :
				start >= from && start <= to;
			if (!overlaps)
				continue;
			first = Math.min(first, start);
			last = Math.max(last, end);
			for (let i = 0; i < stacks.length; i++) {
				const sum = sums.get(stacks[i]) || [0, 0, 0];
				sum[0] += bytes[i];
				sum[1] += intervals[i] * intervals[i];
				sum[2] += samples[i];
				sums.set(stacks[i], sum);
			}
		}
	}
	const stacks = Array.from(sums.keys());
	chart.moment = null;
	chart.stretch = [from, to];
	document.getElementById("measure").value = "stretch";
	showTree(buildTree(stacks, stacks.map((s) => sums.get(s)[0]),
		stacks.map((s) => Math.sqrt(sums.get(s)[1])),
		stacks.map((s) => sums.get(s)[2])),
	"Bytes allocated from " + (first <= last ? first : from).toFixed(3) +
		" s to " + (first <= last ? last : to).toFixed(3) + " s" +
		(unknown ? " (a size limit left no events before " +
			"the first checkpoint kept)" : ""));
	drawChart();
}

function showMoment(time) {
	let best = null;
	for (const p of data.profiles)
		for (const snap of p.snapshots)
			if (!best || Math.abs(snap[0] - time) <
			    Math.abs(best[0] - time))
				best = snap;
	if (!best)
		return;
	const [t, , , stacks, values, intervals, samples] = best;
	chart.moment = t;
	chart.stretch = null;
	document.getElementById("measure").value = "moment";
	showTree(buildTree(stacks, values, intervals, samples),
		"Live bytes at " + t.toFixed(3) + " s");
	drawChart();
}

/* ---- the trees: top-down, bottom-up, callers and callees ---- */

/* Rows a tree shows at most when the search opens it. */
const TREE_ROWS = 400;
const trees = { chosen: -1 /* the function whose relatives show */ };

function treeRow(node, total) {
	const row = element("li", { role: "treeitem" });
	const twisty = element("button", { type: "button", class: "twisty",
		"aria-label": "open" }, node.kids.length ? "▸" : "");
	twisty.disabled = !node.kids.length;
	const name = element("span", { class: matches(node) ? "name match" :
		"name" }, frameName(node));
	name.addEventListener("click", () => chooseFunction(node.frame));
	row.append(twisty, name, element("span", { class: "amount" },
		formatBytes(node.value) + " ± " + formatBytes(Math.sqrt(
			node.variance)) + " · " + formatShare(node.value,
			total)));
	twisty.addEventListener("click", () => {
		const open = row.getAttribute("aria-expanded") === "true";
		if (open) {
			row.querySelector("ul").remove();
			row.setAttribute("aria-expanded", "false");
			twisty.textContent = "▸";
		} else {
			openRow(row, node, total, null, { rows: TREE_ROWS });
		}
	});
	return row;
}

/* The node's children under its row. */
function openRow(row, node, total, leads, budget) {
	const list = element("ul", { role: "group" });
	fillList(list, node, total, leads, budget);
	row.append(list);
	row.setAttribute("aria-expanded", "true");
	row.querySelector(".twisty").textContent = "▾";
}

/* The rows of the node's children: those leading to a match of the
 * search when `leads` tells them (opened in turn), else all. */
function fillList(list, node, total, leads, budget) {
	for (const kid of node.kids) {
		if (leads && !leads.has(kid))
			continue;
		if (budget.rows-- <= 0)
			break;
		const kidRow = treeRow(kid, total);
		list.append(kidRow);
		if (leads && !matches(kid))
			openRow(kidRow, kid, total, leads, budget);
	}
}

/* The nodes on a path from the root to a match of the search. */
function leadingToMatches(root) {
	const leads = new Set();
	const visit = (node) => {
		let found = matches(node);
		for (const kid of node.kids)
			found = visit(kid) || found;
		if (found)
			leads.add(node);
		return found;
	};
	visit(root);
	return leads;
}

/* The stacks of the flame graph as the tree chosen, its first level
 * open, or every path to a match of the search. */
function showCallTree() {
	const upward = document.getElementById("tree-kind").value ===
		"bottom-up";
	const s = flame.root.source;
	const root = upward ? buildTree(s.stacks, s.values, s.intervals,
		s.samples, undefined, true) : flame.root;
	const top = document.getElementById("tree");
	const status = document.getElementById("tree-status");
	top.replaceChildren();
	if (!root || !(root.value > 0)) {
		status.textContent = "nothing to show";
		return;
	}
	const leads = flame.query ? leadingToMatches(root) : null;
	const budget = { rows: TREE_ROWS };
	fillList(top, root, root.value, leads, budget);
	status.textContent = leads ? (leads.size ? "paths to the functions " +
		"that match" : "no function matches") +
		(budget.rows < 0 ? "; the first " + TREE_ROWS + " rows" : "") : "";
}

function chooseFunction(frame) {
	if (frame < 0)
		return;
	trees.chosen = frame;
	showRelatives();
}

/* A list of [frame, value, variance], the largest first, as rows. */
function relativeRows(sums, total) {
	return Array.from(sums.entries()).sort((a, b) => b[1][0] - a[1][0])
		.slice(0, 50).map(([frame, [value, variance]]) => {
			const row = element("tr");
			const name = element("td", { class: "site" }, frame === -1 ?
				"(the root: nothing calls it)" : frame === -3 ?
				"(itself: it allocates)" : data.frames[frame]);
			if (frame >= 0)
				name.addEventListener("click", () =>
					chooseFunction(frame));
			row.append(element("td", {}, formatBytes(value)),
				element("td", {}, formatBytes(Math.sqrt(variance))),
				element("td", {}, formatShare(value, total)), name);
			return row;
		});
}

function addTo(sums, key, value, variance) {
	const sum = sums.get(key) || [0, 0];
	sum[0] += value;
	sum[1] += variance;
	sums.set(key, sum);
}

/* The callers and callees of the chosen function, over the stacks that
 * the flame graph shows, each stack counted once per relative. */
function showRelatives() {
	const box = document.getElementById("relatives");
	const s = flame.root.source, frame = trees.chosen;
	box.hidden = frame < 0 || !s;
	if (box.hidden)
		return;
	const callers = new Map(), callees = new Map();
	let value = 0, variance = 0;
	for (let i = 0; i < s.stacks.length; i++) {
		const frames = data.stacks[s.stacks[i]];
		if (!(s.values[i] > 0) || !frames.includes(frame))
			continue;
		const v = s.values[i], w = s.intervals[i] * s.intervals[i];
		const above = new Set(), below = new Set();
		value += v;
		variance += w;
		frames.forEach((f, k) => {
			if (f !== frame)
				return;
			above.add(k > 0 ? frames[k - 1] : -1);
			below.add(k + 1 < frames.length ? frames[k + 1] : -3);
		});
		above.forEach((f) => addTo(callers, f, v, w));
		below.forEach((f) => addTo(callees, f, v, w));
	}
	document.getElementById("relatives-title").textContent =
		data.frames[frame] + ": " + formatBytes(value) + " ± " +
		formatBytes(Math.sqrt(variance)) + " (95 %)";
	document.querySelector("#callers tbody").replaceChildren(
		...relativeRows(callers, value));
	document.querySelector("#callees tbody").replaceChildren(
		...relativeRows(callees, value));
}

/* ---- the table of sites ---- */

function fillTable() {
	const head = document.querySelector("#sites thead tr");
	head.replaceChildren(...data.sites.columns.map((c, i) =>
		element("th", i === data.sites.columns.length - 1 ?
			{ class: "site" } : {}, c)));
	const body = document.querySelector("#sites tbody");
	body.replaceChildren(...data.sites.rows.map((row) => {
		const tr = element("tr");
		const [site, live, interval, share, samples, allocs, allocated,
			rough] = row;
		tr.append(element("td", rough ? { class: "rough" } : {},
			formatBytes(live)), element("td", {}, formatBytes(interval)),
		element("td", {}, (100 * share).toFixed(1) + " %"),
		element("td", {}, samples), element("td", {}, allocs),
		element("td", {}, formatBytes(allocated)),
		element("td", { class: "site" }, site));
		return tr;
	}));
}

/* ---- wiring ---- */

function start() {
	document.title = data.title;
	document.getElementById("title").textContent = data.title;
	document.getElementById("summary").textContent = data.summary;
	if (data.resident_note) {
		document.getElementById("resident-note").textContent =
			data.resident_note;
		document.getElementById("resident-legend").hidden = false;
	}
	if (data.profiles.some(p => p.mapped))
		document.getElementById("mapped-legend").hidden = false;
	const measure = document.getElementById("measure");
	if (data.moment_title !== undefined) {
		MEASURES.push(data.moment_title);
		measure.querySelector("option[value=moment]").before(element(
			"option", { value: "3" }, data.moment_title));
	}
	measure.value = String(data.measure);
	measure.addEventListener("change", () => {
		if (measure.value !== "moment")
			showMeasure(Number(measure.value));
		saveState();
	});
	document.getElementById("search").addEventListener("input", () => {
		searchFlame();
		showCallTree();
		saveState();
	});
	document.getElementById("reset").addEventListener("click", () => {
		flame.focus = flame.root;
		drawFlame();
	});
	flame.canvas.addEventListener("click", (event) => {
		const node = boxAt(event);
		if (node && node.frame !== -2) {
			flame.focus = node;
			drawFlame();
			if (node.frame >= 0)
				chooseFunction(node.frame);
		}
	});
	const tip = document.getElementById("tip");
	flame.canvas.addEventListener("mousemove", (event) => {
		const node = boxAt(event);
		tip.style.display = node ? "block" : "none";
		if (!node)
			return;
		describe(node);
		tip.style.left = Math.min(event.clientX + 12,
			window.innerWidth - tip.offsetWidth - 4) + "px";
		tip.style.top = (event.clientY + 14) + "px";
	});
	flame.canvas.addEventListener("mouseleave", () => {
		tip.style.display = "none";
	});
	followDrag();
	document.getElementById("tree-kind").addEventListener("change",
		showCallTree);
	let resizing = 0;
	window.addEventListener("resize", () => {
		cancelAnimationFrame(resizing);
		resizing = requestAnimationFrame(() => {
			drawFlame();
			drawChart();
		});
	});
	if (data.base)
		document.getElementById("flame-box").before(element("p",
			{ class: "legend", id: "change-legend" },
			"Compared with the base profiles: width is the newer " +
			"estimate; red boxes grew, blue ones shrank, beyond " +
			"the 95 % interval of the change; grey ones changed " +
			"within the noise."));
	fillTable();
	showGrowingLegend();
	showMeasure(data.measure);
	loadState();
	document.body.setAttribute("data-ready", "1");
}

start();
