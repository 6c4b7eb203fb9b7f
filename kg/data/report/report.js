"use strict";
// The report's only script: sortable tables, the topic-pair selector, and folded lists that open when a link
// points into them. No network, no libraries.
(function () {
  function cellValue(row, i, numeric) {
    var c = row.cells[i];
    var t = c ? (c.getAttribute("data-sort") || c.textContent) : "";
    if (numeric) { var v = parseFloat(t); return isNaN(v) ? -Infinity : v; }
    return t.toLowerCase();
  }
  function sortBy(table, th) {
    var i = th.cellIndex, numeric = th.classList.contains("num");
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, i, numeric), y = cellValue(b, i, numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.tHead.rows[0].addEventListener("click", function (e) {
      var th = e.target.closest("th");
      if (th) { sortBy(table, th); }
    });
  });
  var pick = document.getElementById("pair");
  if (pick) {
    var show = function () {
      document.querySelectorAll(".pair").forEach(function (p) { p.hidden = p.id !== "pair-" + pick.value; });
    };
    pick.addEventListener("change", show);
    show();
  }
  // a link to something inside a folded list (a tool, a piece of evidence) opens the list and the thing itself
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (!el) { return; }
    var folded = false;
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === "DETAILS" && !d.open) { d.open = true; folded = true; }
    }
    if (folded) { el.scrollIntoView(); }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
}());
