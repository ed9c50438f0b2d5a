// Digital hands: keep the board live and send moves without reloading the page.
// Without this file the page still works: forms post normally and a <noscript> refresh
// keeps the board current. A move that gets no answer or a 5xx shows app.js's banner with
// Retry (the same move again) and gives the buttons back; a poll that fails shows
// "offline — last updated", and the next one that answers takes it away.
// A refused move (409: another phone acted first, the table moved on) brings the board
// as it is now with the server's sentence; that sentence is kept on the board, over the
// polls that follow, until the player moves again, taps Dismiss or the hand changes,
// and is scrolled into view: a refusal is never silent.
(function () {
  "use strict";
  var PERIOD = 1000; // the issue asks for others' moves within about two seconds
  var busy = false;
  var timer = null;

  function board() { return document.getElementById("board"); }

  function parse(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    return tpl.content.getElementById("board");
  }

  function install(next) {
    var cur = board();
    if (!cur || !next) return;
    // A poll answered before a move but arriving after it must not roll the board back.
    if (next.dataset.hand === cur.dataset.hand && +next.dataset.seq < +cur.dataset.seq) return;
    // The table page's buttons (deal, cancel) live outside the board: reload when the
    // hand starts or ends.
    var reload = document.querySelector("[data-dg-reload]") && next.dataset.status !== cur.dataset.status;
    // Keep discards being picked while somebody else declares (simultaneous declaring).
    cur.querySelectorAll("input[name=discard]:checked").forEach(function (box) {
      var same = next.querySelector('input[name=discard][value="' + box.value + '"]');
      if (same && !same.disabled) same.checked = true;
    });
    // And the play-by-play stays open if it was.
    var log = cur.querySelector("details.dg-log");
    var nextLog = next.querySelector("details.dg-log");
    if (log && nextLog && log.open) nextLog.open = true;
    var wasMyTurn = cur.dataset.yourTurn === "1";
    keepRefusal(cur, next);
    cur.replaceWith(next);
    // The board's own htmx parts (the coach's Hint button, the review after a hand).
    if (window.htmx) window.htmx.process(next);
    if (reload) window.location.reload();
    turnCue(!wasMyTurn);
  }

  // The refusal the last move got (the server's .dg-error): a poll's board has none, so
  // it is carried over to the same place, until the next move, Dismiss or a new hand.
  var refusal = null;
  function keepRefusal(cur, next) {
    if (!refusal || next.querySelector(".dg-error")) return;
    if (next.dataset.hand !== refusal.hand) { refusal = null; return; }
    var at = next.querySelector(".dg-play") || next;
    at.insertBefore(refusal.node.cloneNode(true), at.firstChild);
  }
  function noteRefusal(status) {
    var cur = board();
    var error = cur && cur.querySelector(".dg-error");
    refusal = null;
    if (!error || status < 400) return;
    if (!error.querySelector(".dg-dismiss")) {
      var close = document.createElement("button");
      close.type = "button";
      close.className = "btn-small secondary dg-dismiss";
      close.textContent = window.bourre && window.bourre.t ? window.bourre.t("dismiss") : "Dismiss";
      error.appendChild(document.createTextNode(" "));
      error.appendChild(close);
    }
    refusal = { hand: cur.dataset.hand, node: error.cloneNode(true) };
    error.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("click", function (event) {
    var close = event.target.closest && event.target.closest(".dg-dismiss");
    if (!close) return;
    refusal = null;
    var error = close.closest(".dg-error");
    if (error) error.remove();
  });

  // "Your turn": the page title says so (a phone in a pocket shows it in the tab), and
  // the phone buzzes once when the turn arrives, where the browser allows it.
  var baseTitle = document.title.replace(/^Your turn · /, "");
  function turnCue(arrived) {
    var cur = board();
    var mine = !!cur && cur.dataset.yourTurn === "1";
    document.title = mine ? "Your turn · " + baseTitle : baseTitle;
    if (mine && arrived && navigator.vibrate) {
      try { navigator.vibrate(200); } catch (e) { /* not allowed yet: the title is enough */ }
    }
  }

  // A tap on the board skips the rest of the reveal: every new move shows at once.
  document.addEventListener("pointerdown", function (event) {
    var cur = board();
    if (cur && cur.contains(event.target)) cur.classList.add("dg-skip");
  });

  function poll() {
    var cur = board();
    if (!cur || busy || document.visibilityState !== "visible") return;
    var url = cur.dataset.pollUrl;
    if (!url) return;
    busy = true;
    var sep = url.indexOf("?") < 0 ? "?" : "&";
    var query = "seen=" + encodeURIComponent(cur.dataset.seq) + "&hand=" + encodeURIComponent(cur.dataset.hand || "");
    fetch(url + sep + query, {
      headers: { "HX-Request": "true", "If-None-Match": cur.dataset.etag || "" },
      cache: "no-store",
      credentials: "same-origin"
    }).then(function (response) {
      // An answer, even "nothing new" (304): the page is live again.
      if (response.status === 200 || response.status === 304) polled(true);
      if (response.status === 200) return response.text().then(function (html) { install(parse(html)); });
      // The link was reissued (404) or another phone holds the seat (403): the page says so.
      if (response.status === 404 || response.status === 403) window.location.reload();
      else if (response.status !== 304) polled(false);
    }).catch(function () { polled(false); }) // offline for a moment: the next poll tries again
      .then(function () { busy = false; });
  }

  // A poll that fails says since when the board is not current (app.js); the next one
  // that answers takes the line away and gives back any button a failed move left off.
  function polled(ok) {
    var cur = board();
    var shared = window.bourre && window.bourre.poll;
    if (!cur || !shared) return;
    if (ok) {
      shared.ok(cur);
      cur.querySelectorAll("form[data-digital] button[disabled][data-busy]").forEach(function (b) {
        b.disabled = false;
        b.removeAttribute("data-busy");
      });
    } else {
      shared.failed(cur);
    }
  }

  function start() {
    if (timer === null) timer = setInterval(poll, PERIOD);
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") poll();
  });

  // Moves: post the form, show the answer (also a refusal, which explains itself).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    // Moves, and the next deal from a seat (a form of its own: it is no move).
    if (!form.matches("form[data-digital], form[data-digital-deal]")) return;
    event.preventDefault();
    var data = new FormData(form, event.submitter);
    var by = event.submitter;
    // Browsers that ignore FormData's submitter argument: add the tapped button's value.
    if (by && by.name && !data.has(by.name)) data.append(by.name, by.value);
    send(form, data);
  });

  // A move that gets no answer or a server error: the banner says so (app.js) and Retry
  // sends the same move again; the buttons come back at once.
  function send(form, data) {
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { if (!b.disabled) { b.disabled = true; b.setAttribute("data-busy", ""); } });
    function release() {
      buttons.forEach(function (b) { if (b.hasAttribute("data-busy")) { b.disabled = false; b.removeAttribute("data-busy"); } });
    }
    function failed(status, retryAfter) {
      release();
      var shared = window.bourre && window.bourre.banner;
      if (!shared) return;
      var t = window.bourre.t;
      var text = status >= 500 || !status ? shared.describe(status, retryAfter, false) : t("refused", { status: status });
      shared.show(t("moveFailed") + " " + text, function () { send(form, data); });
    }
    busy = true;
    refusal = null; // a new move: the last refusal is answered
    fetch(form.action, {
      method: "POST",
      body: data,
      headers: { "HX-Request": "true" },
      credentials: "same-origin"
    }).then(function (response) {
      if (response.status >= 500) { failed(response.status, response.headers.get("Retry-After")); return null; }
      return response.text().then(function (html) {
        var next = parse(html);
        if (window.bourre && window.bourre.banner) window.bourre.banner.hide();
        if (!next) { window.location.reload(); return; } // not a board (the seat was taken or reissued)
        install(next);
        noteRefusal(response.status);
      });
    }).catch(function () { failed(0, null); })
      .then(function () { busy = false; });
  }

  // Declaring: the Play button says how many cards will be exchanged.
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches("form[data-digital] input[name=discard]")) return;
    var form = box.form;
    var n = form.querySelectorAll("input[name=discard]:checked").length;
    var play = form.querySelector("[data-play-label]");
    if (play) play.textContent = window.bourre.t("playDraw", { n: n });
  });

  // Tapping a dimmed card shows why; tapping another closes the first.
  document.addEventListener("toggle", function (event) {
    var opened = event.target;
    if (!opened.matches || !opened.matches("details.pc-illegal") || !opened.open) return;
    document.querySelectorAll("details.pc-illegal[open]").forEach(function (d) {
      if (d !== opened) d.open = false;
    });
  }, true);

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
