// Source filters and the goal counts as the page shows them (no network, no libraries).
(function () {
  "use strict";
  var rows = document.querySelectorAll(".src .l");
  var counts = {
    covered: document.querySelectorAll(".src .g.c").length,
    infeasible: document.querySelectorAll(".src .g.i").length,
    unknown: document.querySelectorAll(".src .g.u").length
  };
  var shown = document.getElementById("dom-counts");
  shown.textContent = counts.covered + " covered, " + counts.infeasible + " infeasible, " +
    counts.unknown + " open";
  Object.keys(counts).forEach(function (k) { shown.dataset[k] = counts[k]; });

  function show(which) {
    document.querySelectorAll(".src").forEach(function (view) {
      view.classList.toggle("filtered", which !== "all");
    });
    rows.forEach(function (row) {
      var keep = which === "all" ||
        (which === "goals" && row.classList.contains("has-goals")) ||
        (which === "unknown" && row.classList.contains("unknown"));
      row.classList.toggle("hidden", !keep);
    });
  }
  document.querySelectorAll("input[name=show]").forEach(function (input) {
    input.addEventListener("change", function () { show(input.value); });
  });
  // A link to a test opens its details.
  function openTarget() {
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === "DETAILS") { target.open = true; }
    if (target && target.closest("details")) { target.closest("details").open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  // A sortable table sorts by the column whose heading is clicked (again: the other way),
  // numbers by their data-value or text, names as text.
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, column) {
      th.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") === "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var key = function (row) {
          var cell = row.cells[column];
          var text = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
          return text !== "" && !isNaN(Number(text)) ? Number(text) : text.toLowerCase();
        };
        Array.from(body.rows).map(function (row, i) { return [key(row), i, row]; })
          .sort(function (a, b) {
            var order = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
            return (descending ? -order : order) || a[1] - b[1];
          })
          .forEach(function (entry) { body.appendChild(entry[2]); });
      });
    });
  });
})();
