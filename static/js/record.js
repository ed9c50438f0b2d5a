// Record-hand screen: one line per seat — tap a name (played) or the tricks they took —
// the live "3 of 5 tricks counted" line, and the remaining tricks filled in for the one
// player left without a count ("rest to …"). Small and framework-free; the form works
// without it (checkboxes and radio buttons, posted as they are).
(function () {
  "use strict";

  var KEY = "bourre.whoDefault"; // the host's choice: start from "none" or "last" hand's players

  function rowsOf(form) { return Array.prototype.slice.call(form.querySelectorAll("[data-row]")); }
  function played(row) { var box = row.querySelector("[data-played]"); return !!(box && box.checked); }
  function setPlayed(row, on) { var box = row.querySelector("[data-played]"); if (box) box.checked = on; }
  function choice(row) { return row.querySelector(".trick-opt input:checked"); }
  function pick(row, n) {
    var input = row.querySelector('.trick-opt input[value="' + n + '"]');
    if (input) input.checked = true;
  }
  function clear(row) { var c = choice(row); if (c) c.checked = false; }

  // Counts the host set by hand are kept; counts filled in automatically are worked out
  // again after every tap.
  function refill(form) {
    var size = parseInt(form.dataset.handSize || "5", 10);
    var manual = 0;
    var open = [];
    rowsOf(form).forEach(function (row) {
      if (row.dataset.auto) { clear(row); delete row.dataset.auto; }
      if (!played(row)) { clear(row); return; }
      var c = choice(row);
      if (c) manual += parseInt(c.value, 10); else open.push(row);
    });
    var active = rowsOf(form).filter(played).length;
    if (active < 2) return; // uncontested or nobody: no tricks to count
    if (open.length === 1 && manual <= size) { pick(open[0], size - manual); open[0].dataset.auto = "1"; }
    else if (open.length > 1 && manual >= size) {
      open.forEach(function (row) { pick(row, 0); row.dataset.auto = "1"; });
    }
  }

  function update(form) {
    var total = 0;
    var size = parseInt(form.dataset.handSize || "5", 10);
    rowsOf(form).forEach(function (row) {
      var on = played(row);
      row.classList.toggle("is-passed", !on);
      var c = choice(row);
      if (on && c) total += parseInt(c.value, 10);
    });
    var counter = form.querySelector("[data-counter]");
    if (counter) {
      counter.querySelector("[data-counted]").textContent = String(total);
      counter.classList.toggle("is-over", total > size);
      counter.classList.toggle("is-done", total === size);
    }
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest(".record-form");
    if (!form) return;
    var target = event.target;
    var row = target.closest("[data-row]");
    if (row && target.matches(".trick-opt input")) {
      setPlayed(row, true); // tapping a player's tricks says they played
      delete row.dataset.auto;
    }
    if (target.matches("[data-renege-who]")) {
      rowsOf(form).forEach(function (r) { if (r.dataset.name === target.value) setPlayed(r, true); });
    }
    refill(form);
    update(form);
  });
  document.addEventListener("input", function (event) {
    var form = event.target.closest(".record-form");
    if (form) update(form);
  });

  function startFrom(form, mode) {
    var last = (form.dataset.lastPlayed || "").split(",").filter(Boolean);
    rowsOf(form).forEach(function (row) {
      setPlayed(row, mode === "last" && last.indexOf(row.dataset.name) !== -1);
      clear(row);
    });
    refill(form);
    update(form);
  }

  function showDefault(form) {
    var box = form.querySelector("[data-who-default]");
    if (!box) return;
    var mode = "none";
    try { mode = localStorage.getItem(KEY) || "none"; } catch (e) { /* private mode */ }
    if (!(form.dataset.lastPlayed || "")) return; // the first hand: nothing to remember
    box.hidden = false;
    box.querySelectorAll("[data-who-default-value]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.whoDefaultValue === mode));
    });
    if (form.hasAttribute("data-fresh") && mode === "last") startFrom(form, "last");
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-who-default-value]");
    if (!button) return;
    var form = button.closest(".record-form");
    var mode = button.dataset.whoDefaultValue;
    try { localStorage.setItem(KEY, mode); } catch (e) { /* private mode */ }
    form.querySelectorAll("[data-who-default-value]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b === button));
    });
    startFrom(form, mode);
  });

  function init(root) {
    (root || document).querySelectorAll(".record-form").forEach(function (form) {
      showDefault(form);
      update(form);
    });
    // A share button only where the phone can share.
    if (!navigator.share) {
      (root || document).querySelectorAll("[data-share-url]").forEach(function (b) { b.hidden = true; });
    }
  }
  document.addEventListener("DOMContentLoaded", function () { init(document); });
  document.addEventListener("htmx:afterSettle", function (event) { init(event.target); });
})();
