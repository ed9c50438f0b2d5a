// Record-hand screen: one line per seat — tap a name (played) or the tricks they took —
// the live "3 of 5 tricks counted" line, and the remaining tricks filled in for the one
// player left without a count ("rest to …"). Small and framework-free; the form works
// without it (checkboxes and radio buttons, posted as they are).
//
// The taps of a hand not yet saved are kept in this tab (sessionStorage: per tab, gone
// when it closes), under the login (<body data-login>, as queue.js keys its hands), the
// session and the form's version: a reload, or the phone's browser dropping the tab,
// brings them back into the blank form of that same hand, with a line saying so. A form
// the server re-showed (409/422: it carries the posted values) is never filled from it,
// only kept; the result screen of a saved hand, or a form of another version, clears it.
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
    saveDraft(form);
  });
  document.addEventListener("input", function (event) {
    var form = event.target.closest(".record-form");
    if (form) { update(form); saveDraft(form); }
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
    saveDraft(form);
  });

  // --- the taps kept in this tab ----------------------------------------------------------
  function draftKey(session) {
    var login = (document.body && document.body.dataset.login) || "";
    return "bourre.recordDraft." + login + "." + session;
  }
  function versionOf(form) {
    var v = form.querySelector('input[name="version"]');
    return v ? v.value : "";
  }
  // What the host set: the named fields, less the ones the server writes.
  var SERVER_FIELDS = /^(csrfmiddlewaretoken|idempotency_key|version|player_\d+|for_v.*)$/;
  function tapsOf(form) {
    var taps = [];
    form.querySelectorAll("input[name], textarea[name]").forEach(function (el) {
      if (el.disabled || SERVER_FIELDS.test(el.name)) return;
      if (el.type === "checkbox" || el.type === "radio") {
        // "nobody" reneged and an uncorrected renege are the blank form's own choices.
        if (el.checked && el.value && !(el.name === "renege_kind" && el.value === "uncorrected")) taps.push([el.name, el.value]);
      } else if (el.type !== "hidden" && el.value.trim()) {
        taps.push([el.name, el.value]);
      }
    });
    return taps;
  }
  function readDraft(form) {
    try { return JSON.parse(sessionStorage.getItem(draftKey(form.dataset.session)) || "null"); } catch (e) { return null; }
  }
  function saveDraft(form) {
    if (!form.hasAttribute("data-draft")) return;
    var key = draftKey(form.dataset.session);
    var taps = tapsOf(form);
    var auto = rowsOf(form).filter(function (r) { return r.dataset.auto; }).map(function (r) { return r.dataset.name; });
    try {
      if (taps.length) sessionStorage.setItem(key, JSON.stringify({ version: versionOf(form), taps: taps, auto: auto }));
      else sessionStorage.removeItem(key); // a blank form (or one the queue emptied) keeps nothing
    } catch (e) { /* private mode or full: the form still works, it is just not kept */ }
  }
  function dropDraft(session) {
    try { sessionStorage.removeItem(draftKey(session)); } catch (e) { /* nothing kept */ }
  }
  function restoreDraft(form) {
    var draft = readDraft(form);
    if (!draft) return;
    if (draft.version !== versionOf(form)) { dropDraft(form.dataset.session); return; } // another hand's taps
    if (form.getAttribute("data-draft") !== "restore") return; // the server's own values come first
    var done = 0;
    form.querySelectorAll("input[type=checkbox], input[type=radio]").forEach(function (el) {
      if (SERVER_FIELDS.test(el.name)) return;
      var on = draft.taps.some(function (p) { return p[0] === el.name && p[1] === el.value; });
      if (el.type === "checkbox" || on) { if (el.checked !== on) done += 1; el.checked = on; }
    });
    draft.taps.forEach(function (p) {
      var el = form.querySelector('input[type=text][name="' + p[0] + '"], textarea[name="' + p[0] + '"]');
      if (el && !el.disabled && !SERVER_FIELDS.test(el.name)) { el.value = p[1]; done += 1; }
    });
    rowsOf(form).forEach(function (row) {
      if ((draft.auto || []).indexOf(row.dataset.name) !== -1) row.dataset.auto = "1";
    });
    // "More" is not opened for restored taps: open, it is a sheet over the seats the host
    // is about to tap again (its fields keep their values and are saved with the hand).
    if (!done) return;
    var section = form.closest("section") || document;
    var line = section.querySelector("[data-draft-restored]");
    if (!line) return;
    line.hidden = false;
    line.scrollIntoView({ block: "nearest" });
  }

  function init(root) {
    var scope = root || document;
    // A hand just saved: its taps are done with.
    var saved = scope.matches && scope.matches("[data-hand-saved]") ? [scope] : [];
    saved.concat(Array.prototype.slice.call(scope.querySelectorAll("[data-hand-saved]"))).forEach(function (el) {
      dropDraft(el.getAttribute("data-hand-saved"));
    });
    scope.querySelectorAll(".record-form").forEach(function (form) {
      showDefault(form);
      if (form.hasAttribute("data-draft")) {
        // A reload opens the form at its top, where the line saying the taps are back
        // is (the browser would scroll back to where the host was, past it).
        if ("scrollRestoration" in history) history.scrollRestoration = "manual";
        restoreDraft(form);
      }
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
