/* Injected by html.sh after the page's own script, in a copy of the page
 * kept in the test's scratch directory: acts as a user would (drags a
 * stretch across the chart, opens a tree two levels, chooses a function, searches
 * the bottom-up tree) and writes what the page showed after each step
 * (titles, the boxes the flame graph drew, rows of the trees) as JSON in
 * the body's data-result attribute. */
"use strict";
(function () {
	const result = {};
	const title = () => document.getElementById("flame-title").textContent;
	/* The names of the boxes the flame graph drew, root first. */
	const boxes = () => flame.drawn.flat().map(([, , node]) =>
		frameName(node));
	const box = chart.svg.getBoundingClientRect();
	const mouse = (target, type, time) => target.dispatchEvent(
		new MouseEvent(type, { bubbles: true, clientX: box.left +
			chart.x(time), clientY: box.top + 50 }));

	result.before = title();
	result.boxesBefore = boxes();
	mouse(chart.svg, "mousedown", 0.95);
	mouse(chart.svg, "mousemove", 1.15);
	mouse(window, "mouseup", 1.15);
	result.stretch = title();
	result.boxesStretch = boxes();
	result.address = location.hash;
	result.rowsClosed = document.querySelectorAll("#tree li").length;
	document.querySelector("#tree .twisty:not([disabled])").click();
	result.rowsOpen = document.querySelectorAll("#tree li").length;
	result.opened = Array.from(document.querySelectorAll("#tree li li > .name"),
		(e) => e.textContent);
	document.querySelector("#tree li li .twisty:not([disabled])").click();
	Array.from(document.querySelectorAll("#tree .name")).find((e) =>
		e.textContent.startsWith("alloc_buffer")).click();
	result.chosen = document.getElementById("relatives-title").textContent;
	result.callers = Array.from(document.querySelectorAll("#callers td.site"),
		(e) => e.textContent);
	Array.from(document.querySelectorAll("#tree .name")).find((e) =>
		e.textContent.startsWith("render")).click();
	result.callees = Array.from(document.querySelectorAll("#callees td.site"),
		(e) => e.textContent);
	const kind = document.getElementById("tree-kind");
	kind.value = "bottom-up";
	kind.dispatchEvent(new Event("change"));
	const search = document.getElementById("search");
	search.value = "render";
	search.dispatchEvent(new Event("input"));
	result.matches = Array.from(document.querySelectorAll("#tree .name.match"),
		(e) => e.textContent);
	document.body.setAttribute("data-result", JSON.stringify(result));
})();
