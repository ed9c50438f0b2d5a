// The offline hand queue: "Save hand" without a connection keeps the hand on the phone
// (IndexedDB) and sends it when the connection returns. The form works without this
// file (a plain POST); with it, nothing typed at the table is lost to the Wi-Fi.
//
// An entry is keyed by the hand's idempotency key and remembers the session it was typed
// for (its own URL: it is never sent anywhere else), the session version it was typed
// against, the form's fields and the time. Entries go in the order they were typed; a
// hand typed while others wait is chained to the previous one ("after"): when that one
// lands, the next is sent for the version it left. The server decides:
// - a result (new, or "already saved" for a key it has seen: nothing is recorded twice)
//   removes the entry;
// - a refusal (the table moved on: 409; an invalid hand: 422; a hand to confirm) keeps it
//   as "returned": the record page shows it again, filled in, with the reason, until the
//   host saves it or discards it; that session's queue waits meanwhile;
// - no answer (still offline, server away) leaves it waiting for the next try (the
//   `online` event, a successful request, or every 15 s).
// A Save that meets the server away (502, 503, 504: a restart behind the proxy) is kept
// like an offline one, not left to a manual Retry: the server never recorded it, and its
// key makes a later send record it once. (A 500 is the app's own failure: the banner.)
// While hands wait, the form on screen does not mark a dealer ("D") or excused players:
// those are the server's, from before the waiting hands; once the queue has gone out,
// the form is fetched again, or, if the host has started typing, its context line and
// marks are replaced by the server's new ones.
// "Waiting to send (n)" stands above the record form and the scoreboard while any wait.
//
// A hand belongs to the login that typed it (`entry.login`, the user's id from the page's
// <body data-login>): only a page of that login sends it (`mine()`), with that page's own
// CSRF token (the one stored with the fields is dead after a logout and a new login: the
// server would answer 403). Another login's hands on the same phone (`others()`) are never
// sent under the wrong name: every logged-in page says how many wait, with "Discard them"
// behind a question; they are sent when their own login comes back. Logging out while
// one's own hands wait asks first (they stay and wait for that login). A page without a
// login (the offline page, served the same to every user of the phone) sends nothing: it
// counts the waiting hands and, when the connection returns, reloads into the real page,
// whose login sends its own. This file is loaded on every logged-in page (base.html), so
// hands go out on whatever page their login opens next. Hands kept before entries knew
// their login are taken by the first login that opens a page.
// A phone that will not keep anything (IndexedDB refused: some private windows, a full
// disk) gets no queue: Save goes to the network as without this file, so a dropped
// connection shows app.js's banner; a hand the store refuses stays typed in the form and
// the banner says it was not kept, with Retry.
(function () {
  "use strict";
  if (!window.indexedDB) return;
  var t = window.bourre && window.bourre.t ? window.bourre.t : function (k) { return k; };
  var DB = "bourre", STORE = "hands";
  var SKIP = { csrfmiddlewaretoken: 1, idempotency_key: 1, version: 1, confirmed: 1 };
  var entries = []; // a copy of the store, in order, for the synchronous checks
  var flushing = false;
  var sent = 0; // hands this page has sent from the queue
  var usable = false; // the store answered: hands can be kept on this phone

  // The login of this page ("" when none: the offline page, a logged-out page).
  function login() { return (document.body && document.body.dataset.login) || ""; }
  // The entries this page may send: its own login's. A page without a login has none.
  function mine() {
    var me = login();
    return me ? entries.filter(function (e) { return e.login === me; }) : [];
  }
  // Another login's entries: never sent from here, only counted and, after a question,
  // discarded. (Entries from before entries knew their login are taken by the first
  // login that loads them: load().)
  function others() {
    var me = login();
    return me ? entries.filter(function (e) { return e.login !== me; }) : [];
  }

  function db() {
    return new Promise(function (resolve, reject) {
      var req = indexedDB.open(DB, 1);
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE, { keyPath: "key" }); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }
  function tx(mode, work) {
    return db().then(function (conn) {
      return new Promise(function (resolve, reject) {
        var trans = conn.transaction(STORE, mode);
        var result = work(trans.objectStore(STORE));
        trans.oncomplete = function () { conn.close(); resolve(result && result.result); };
        trans.onerror = function () { conn.close(); reject(trans.error); };
      });
    });
  }
  function load() {
    return tx("readonly", function (store) { return store.getAll(); }).then(function (all) {
      all = all || [];
      // Kept by an older version of this file, before hands knew their login: the first
      // login to open a page takes them (on a host's phone, the host who typed them), or
      // nobody could ever send them. The server still checks that login may record there.
      var me = login();
      var unowned = me ? all.filter(function (e) { return e.login === undefined || e.login === null; }) : [];
      if (unowned.length) {
        return tx("readwrite", function (store) {
          unowned.forEach(function (e) { e.login = me; store.put(e); });
        }).then(load);
      }
      entries = all.sort(function (a, b) { return a.at - b.at; });
      render();
      return entries;
    });
  }
  function put(entry) { return tx("readwrite", function (store) { store.put(entry); }).then(load); }
  function drop(key) { return tx("readwrite", function (store) { store.delete(key); }).then(load); }

  function waiting(session) {
    return mine().filter(function (e) { return e.status === "waiting" && (!session || e.session === session); });
  }
  function returned(session) {
    return mine().filter(function (e) { return e.status === "returned" && e.session === session; })[0];
  }
  function randomKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  // This page's token: the one stored with a hand's fields died with the login that typed
  // it, if that login has logged out and in again since (Django rotates it at each login).
  function csrf() {
    try {
      var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
      if (headers["X-CSRFToken"]) return headers["X-CSRFToken"];
    } catch (e) { /* a form's token, below */ }
    var input = document.querySelector('input[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }

  // --- "waiting to send (n)" -----------------------------------------------------------
  function render() {
    var anchor = document.getElementById("record") || document.getElementById("board") ||
      document.querySelector("[data-offline-page] h1");
    var session = pageSession();
    renderOthers();
    // Without a login the page sends nothing; it still says how many hands wait.
    var n = login() ? waiting(session).length :
      entries.filter(function (e) { return e.status === "waiting"; }).length;
    var line = document.querySelector("[data-queue-status]");
    if (!line && anchor) {
      line = document.createElement("p");
      line.setAttribute("data-queue-status", "");
      anchor.parentNode.insertBefore(line, anchor);
    }
    if (!line) return;
    line.className = "msg msg-warning queue-status";
    line.setAttribute("role", "status");
    line.textContent = "";
    var back = session && returned(session);
    if (back && !document.querySelector(".record-form[data-replaces]")) {
      line.append(t("returned", { reason: back.reason || t("returnedGeneric") }) + " ");
      var open = document.createElement("a");
      open.href = back.page || back.url;
      open.textContent = t("openIt");
      line.append(open);
    }
    if (n) {
      var label = document.createElement("strong");
      label.textContent = t("waiting", { n: n });
      line.append(label);
      if (login()) {
        var send = document.createElement("button");
        send.type = "button";
        send.className = "btn-small";
        send.setAttribute("data-queue-send", "");
        send.textContent = flushing ? t("sending") : t("sendNow");
        send.disabled = flushing;
        line.append(" ", send);
      }
    }
    line.hidden = !line.childNodes.length;
    ahead(n);
  }
  // Another login's hands, on any page of this login: how many, and "Discard them".
  function renderOthers() {
    var n = others().length;
    var line = document.querySelector("[data-queue-others]");
    var main = document.getElementById("main");
    if (!n) { if (line) line.remove(); return; }
    if (!line) {
      if (!main) return;
      line = document.createElement("p");
      line.setAttribute("data-queue-others", "");
      line.className = "msg msg-warning queue-status";
      line.setAttribute("role", "status");
      main.insertBefore(line, main.firstChild);
    }
    line.textContent = "";
    var discard = document.createElement("button");
    discard.type = "button";
    discard.className = "btn-small secondary";
    discard.setAttribute("data-queue-discard-others", "");
    discard.textContent = t("discardOthers");
    line.append(t(n === 1 ? "othersWaitingOne" : "othersWaitingMany", { n: n }) + " ", discard);
  }
  // With hands waiting, the form on screen is for the hand after them: its number counts
  // them, and the pot and dealer it showed (the server's, before them) are not known yet.
  function ahead(n) {
    var heading = document.querySelector("#record h1[data-next-number]");
    var context = document.querySelector("#record .record-context");
    if (!heading || document.querySelector(".record-form[data-replaces]")) return;
    var base = parseInt(heading.getAttribute("data-next-number"), 10);
    if (!isNaN(base)) heading.textContent = t("recordHand", { n: base + n });
    // The dealer's "D" and the excused marks are the server's from before the waiting
    // hands (or before the ones just sent, until the fresh ones arrive): not shown.
    var section = document.getElementById("record");
    if (section) section.toggleAttribute("data-ahead", !!n || stale);
    if (!context) return;
    if (!context.hasAttribute("data-server-text")) context.setAttribute("data-server-text", context.innerHTML);
    if (n) context.textContent = t(n === 1 ? "afterWaitingOne" : "afterWaitingMany", { n: n });
    else if (!stale) context.innerHTML = context.getAttribute("data-server-text");
  }
  var stale = false; // hands went out: the form's table (pot, dealer, marks) is being fetched
  function pageSession() {
    var el = document.querySelector("[data-session]");
    return el ? el.getAttribute("data-session") : null;
  }

  // --- queueing a hand ---------------------------------------------------------------------
  function fieldsOf(form, submitter) {
    var pairs = [];
    new FormData(form).forEach(function (value, name) { pairs.push([name, String(value)]); });
    if (submitter && submitter.name) pairs.push([submitter.name, submitter.value]);
    return pairs;
  }
  function enqueue(form, submitter, said) {
    var fields = fieldsOf(form, submitter);
    var get = function (name) { var f = fields.filter(function (p) { return p[0] === name; })[0]; return f ? f[1] : ""; };
    var session = form.getAttribute("data-session");
    var before = waiting(session);
    var entry = {
      key: get("idempotency_key") || randomKey(),
      login: login(),
      session: session,
      url: form.action,
      page: window.location.pathname,
      version: parseInt(get("version"), 10),
      after: before.length ? before[before.length - 1].key : null,
      fields: fields,
      at: Date.now(),
      status: "waiting"
    };
    if (form.hasAttribute("data-replaces")) {
      // A returned hand saved again while still offline: it takes its old place.
      entry.after = null;
    }
    entries.push(entry); // at once, for the synchronous checks of the next tap
    var replaces = form.getAttribute("data-replaces");
    return put(entry).then(function () { return replaces ? resolve(replaces, null, entry.key) : null; }, function () {
      // The store refused it: the hand was neither kept nor sent. It stays in the form,
      // the queue stands aside (next Saves go to the network) and the banner says so.
      entries = entries.filter(function (e) { return e.key !== entry.key; });
      usable = false;
      render();
      if (window.bourre.banner) {
        window.bourre.banner.show(t("notKept"), function () {
          if (document.contains(form)) form.requestSubmit(submitter && form.contains(submitter) ? submitter : undefined);
        });
      }
      return Promise.reject(new Error("not kept"));
    }).then(function () {
      // The form is ready for the next hand: blank, with a key of its own.
      form.reset();
      form.removeAttribute("data-replaces");
      var key = form.querySelector('input[name="idempotency_key"]');
      if (key) key.value = randomKey();
      form.querySelectorAll(".errorlist, [data-error-summary], [data-returned]").forEach(function (el) { el.remove(); });
      form.dispatchEvent(new Event("change", { bubbles: true }));
      note(form, said || t("queued"));
      render();
    }, function () { /* said above, in the banner */ });
  }
  // A message of its kind (`marker`), in place of the one before it.
  function box(parent, before, marker, tag, className, role) {
    var old = parent.querySelector("[" + marker + "]");
    if (old) old.remove();
    var el = document.createElement(tag);
    el.className = className;
    el.setAttribute("role", role);
    el.setAttribute(marker, "");
    parent.insertBefore(el, before);
    return el;
  }
  function note(form, text) {
    var section = form.closest("section") || form.parentNode;
    box(section, form, "data-queue-note", "p", "msg msg-success", "status").textContent = text;
  }

  function recordForm(elt) {
    return elt && elt.closest ? elt.closest("form.record-form[data-session]") : null;
  }
  // Before htmx sends: offline, or hands of this session still waiting (they go first).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var detail = event.detail || {};
    var form = recordForm(detail.elt);
    if (!form || !usable) return;
    var offline = !navigator.onLine;
    if (!offline && !waiting(form.getAttribute("data-session")).length) return;
    event.preventDefault();
    var cfg = detail.requestConfig || {};
    enqueue(form, cfg.triggeringEvent && cfg.triggeringEvent.submitter).then(function () { if (!offline) flush(); });
  });
  // No answer at all (the Wi-Fi dropped mid-request): the hand may or may not have
  // arrived; queued under the same key, it is recorded once either way. Caught before
  // app.js's banner (capture on window).
  window.addEventListener("htmx:sendError", function (event) {
    var detail = event.detail || {};
    var form = recordForm(detail.elt);
    if (!form || !usable) return;
    detail.bourreQueued = true;
    var cfg = detail.requestConfig || {};
    enqueue(form, cfg.triggeringEvent && cfg.triggeringEvent.submitter);
  }, true);

  // The server away (a restart: the proxy answers 502, 503 or 504): nothing was recorded;
  // the hand waits on the phone like an offline one and goes when the server answers.
  window.addEventListener("htmx:responseError", function (event) {
    var detail = event.detail || {};
    var form = recordForm(detail.elt);
    var status = detail.xhr ? detail.xhr.status : 0;
    if (!form || !usable || [502, 503, 504].indexOf(status) < 0) return;
    detail.bourreQueued = true;
    var cfg = detail.requestConfig || {};
    enqueue(form, cfg.triggeringEvent && cfg.triggeringEvent.submitter, t("queuedServer"));
  }, true);

  // --- sending ----------------------------------------------------------------------------
  function parse(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    return tpl.content;
  }
  // Successors typed after `key` go for the version it left (`version`), or, when it
  // was not recorded (discarded), stand on their own version; `newKey` takes its place.
  function resolve(key, version, newKey) {
    var next = entries.filter(function (e) { return e.after === key; });
    return Promise.all(next.map(function (e) {
      if (newKey) e.after = newKey;
      else { e.after = null; if (version !== null) e.version = version; }
      return tx("readwrite", function (store) { store.put(e); });
    })).then(load);
  }
  function reasonOf(doc) {
    var bits = [];
    doc.querySelectorAll(".record .msg[role=status], .errorlist li, .confirm-box p").forEach(function (el) {
      var text = el.textContent.replace(/\s+/g, " ").trim();
      if (text && bits.indexOf(text) < 0) bits.push(text);
    });
    return bits.join(" ");
  }
  function sendOne(entry) {
    var body = new URLSearchParams();
    entry.fields.forEach(function (p) {
      if (p[0] === "csrfmiddlewaretoken") return; // Django reads a posted token before the header
      if (p[0] === "version") body.append("version", isNaN(entry.version) ? "" : String(entry.version));
      else body.append(p[0], p[1]);
    });
    return fetch(entry.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrf() }
    }).then(function (response) {
      return response.text().then(function (html) {
        var doc = parse(html);
        var result = doc.querySelector("section.result[data-session-version]");
        if (response.ok && result) {
          sent += 1;
          var version = parseInt(result.getAttribute("data-session-version"), 10);
          return drop(entry.key).then(function () { return resolve(entry.key, version); }).then(function () {
            chainForm(entry, version);
            return "sent";
          });
        }
        if (response.status >= 500 || response.status === 0) return "later";
        entry.status = "returned";
        // A stale refusal's page text speaks to someone who had the form open; the
        // queue's own words say what happened to a hand that waited.
        entry.reason = response.status === 409 ? t("returnedStale") : reasonOf(doc) || t("returnedGeneric");
        return put(entry).then(function () { showReturned(entry, doc); return "returned"; });
      });
    }, function () { return "later"; });
  }
  // The form on screen was typed after the queued hands: it follows them too.
  function chainForm(entry, version) {
    var form = document.querySelector('form.record-form[data-session="' + entry.session + '"]');
    var input = form && form.querySelector('input[name="version"]');
    if (input && parseInt(input.value, 10) === entry.version) input.value = String(version);
    // One hand fewer waits and one more is on the server: the number on screen holds.
    var heading = form && document.querySelector("#record h1[data-next-number]");
    var base = heading ? parseInt(heading.getAttribute("data-next-number"), 10) : NaN;
    if (!isNaN(base)) heading.setAttribute("data-next-number", String(base + 1));
  }
  // Once the queue has gone out, an untouched record form is fetched again: the next
  // hand's number, dealer and pot are the server's, not those of before the queue.
  function refreshForm() {
    var form = document.querySelector("form.record-form[data-session]");
    if (!form || !window.htmx || form.hasAttribute("data-replaces")) return settle();
    if (waiting(form.getAttribute("data-session")).length) return settle();
    if (form.querySelector("input[name=trump]:checked, .trick-opt input:checked")) return refreshTable(form);
    var done = window.htmx.ajax("GET", form.action, { target: "#record", swap: "outerHTML" });
    return done && done.then ? done.then(settle, settle) : settle();
  }
  function settle() { stale = false; render(); }
  // A form the host has started typing keeps its taps: only what the server says about
  // the table (the context line, the number, the dealer's and excused marks) is new.
  function refreshTable(form) {
    return fetch(form.action, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (response) {
      return response.ok ? response.text() : "";
    }).then(function (html) {
      var doc = parse(html);
      var context = document.querySelector("#record .record-context");
      var fresh = doc.querySelector(".record-context");
      if (context && fresh) context.setAttribute("data-server-text", fresh.innerHTML);
      var heading = document.querySelector("#record h1[data-next-number]");
      var number = doc.querySelector("h1[data-next-number]");
      if (heading && number) heading.setAttribute("data-next-number", number.getAttribute("data-next-number"));
      form.querySelectorAll("[data-row]").forEach(function (row) {
        var mine = row.querySelector("label.who");
        var theirs = Array.prototype.filter.call(doc.querySelectorAll("[data-row]"), function (r) {
          return r.getAttribute("data-name") === row.getAttribute("data-name");
        })[0];
        if (!mine || !theirs) return;
        mine.querySelectorAll("[data-table-mark]").forEach(function (el) { el.remove(); });
        theirs.querySelectorAll("label.who [data-table-mark]").forEach(function (el) { mine.appendChild(el); });
      });
    }).catch(function () { /* the old context stays: the next flush tries again */ }).then(settle);
  }

  function flush() {
    // A page without a login has nobody to send a hand as.
    if (flushing || !login()) return Promise.resolve();
    flushing = true;
    render();
    var blocked = {};
    function step() {
      var next = waiting().filter(function (e) { return !blocked[e.session] && !returned(e.session); })[0];
      if (!next) return Promise.resolve();
      return sendOne(next).then(function (outcome) {
        if (outcome === "later") return null; // no connection yet: keep the order
        if (outcome === "returned") blocked[next.session] = true;
        return step();
      });
    }
    var sentBefore = sent;
    return step().catch(function () { /* the store failed: the entries stay */ }).then(function () {
      flushing = false;
      if (sent > sentBefore) stale = true;
      render();
      if (sent > sentBefore) return refreshForm();
    });
  }

  // --- a returned hand, filled in again ------------------------------------------------
  function fill(form, entry) {
    entry.fields.forEach(function (p) {
      if (SKIP[p[0]]) return;
      form.querySelectorAll('[name="' + p[0] + '"]').forEach(function (input) {
        if (input.type === "checkbox" || input.type === "radio") input.checked = input.value === p[1];
        else if (input.type !== "hidden") input.value = p[1];
      });
    });
    // Boxes left unticked were not in the fields: untick them.
    form.querySelectorAll("input[type=checkbox]").forEach(function (tick) {
      var posted = entry.fields.some(function (p) { return p[0] === tick.name && p[1] === tick.value; });
      if (!posted) tick.checked = false;
    });
    mark(form, entry);
    form.dispatchEvent(new Event("change", { bubbles: true }));
  }
  // The form stands for the returned hand: saving it settles the entry, Discard drops it.
  function mark(form, entry) {
    form.setAttribute("data-replaces", entry.key);
    var back = box(form, form.firstChild, "data-returned", "div", "msg msg-warning", "alert");
    back.setAttribute("data-in-view", "");
    var p = document.createElement("p");
    p.textContent = t("returned", { reason: entry.reason || t("returnedGeneric") });
    var discard = document.createElement("button");
    discard.type = "button";
    discard.className = "btn-small secondary";
    discard.setAttribute("data-queue-discard", entry.key);
    discard.textContent = t("discard");
    back.append(p, discard);
  }
  function showReturned(entry, doc) {
    var here = document.getElementById("record");
    var form = here && here.querySelector('form.record-form[data-session="' + entry.session + '"]');
    if (!form) { render(); return; }
    var fresh = doc && doc.querySelector("#record");
    if (fresh && fresh.querySelector("form.record-form")) {
      // The returned box says why; the server's own notice would say it twice.
      fresh.querySelectorAll("p[data-in-view]").forEach(function (el) { el.remove(); });
      here.replaceWith(fresh);
      if (window.htmx) window.htmx.process(fresh);
      form = fresh.querySelector("form.record-form");
    }
    fill(form, entry);
    render();
    if (window.bourre && window.bourre.showErrors) window.bourre.showErrors(form.closest("section") || form);
  }
  function restore() {
    var form = document.querySelector("form.record-form[data-session]");
    if (!form || form.hasAttribute("data-replaces")) return;
    var back = returned(form.getAttribute("data-session"));
    if (back) fill(form, back);
  }

  document.addEventListener("click", function (event) {
    var send = event.target.closest("[data-queue-send]");
    if (send) { flush(); return; }
    if (event.target.closest("[data-queue-discard-others]")) {
      if (!window.confirm(t("confirmDiscardOthers"))) return;
      var theirs = others().map(function (e) { return e.key; });
      tx("readwrite", function (store) { theirs.forEach(function (key) { store.delete(key); }); }).then(load);
      return;
    }
    var discard = event.target.closest("[data-queue-discard]");
    if (!discard) return;
    var key = discard.getAttribute("data-queue-discard");
    var form = discard.closest("form");
    drop(key).then(function () { return resolve(key, null); }).then(function () {
      if (form) {
        form.removeAttribute("data-replaces");
        form.reset();
        form.dispatchEvent(new Event("change", { bubbles: true }));
      }
      discard.closest("[data-returned]").remove();
      render();
      flush();
    });
  });

  // A returned hand saved again: gone from the queue, and the ones typed after it follow.
  // (On beforeSwap: by afterRequest the form has been swapped out of the page, and its
  // events no longer reach the document.)
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail || {};
    var ok = !detail.isError && detail.xhr && detail.xhr.status < 400;
    var form = recordForm((detail.requestConfig && detail.requestConfig.elt) || detail.elt);
    if (form && form.hasAttribute("data-replaces")) {
      var doc = parse((detail.xhr && detail.xhr.responseText) || "");
      var result = ok && doc.querySelector("section.result[data-session-version]");
      // Refused again (the form comes back with its errors): the new form still stands
      // for the returned hand, with the host's corrections, not the queued fields.
      if (!result) carried = form.getAttribute("data-replaces");
      if (result) {
        var key = form.getAttribute("data-replaces");
        var version = parseInt(result.getAttribute("data-session-version"), 10);
        drop(key).then(function () { return resolve(key, version); }).then(flush);
      }
    } else if (ok && waiting().length) {
      flush(); // the connection works again
    }
  });
  var carried = null;
  document.addEventListener("htmx:afterSettle", function () {
    var form = document.querySelector("form.record-form[data-session]");
    var entry = carried && entries.filter(function (e) { return e.key === carried; })[0];
    carried = null;
    if (form && entry) mark(form, entry);
    render();
    restore();
  });
  // Hands typed offline and not yet sent go with their login: logging out asks first.
  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest("form[data-logout]");
    if (form && mine().length && !window.confirm(t("logoutWaiting"))) event.preventDefault();
  });
  // The offline page has no login to send as: back online, it becomes the page it stood
  // in for, whose login sends its own hands.
  window.addEventListener("online", function () {
    if (document.querySelector("[data-offline-page]")) {
      if (entries.length) window.location.reload();
      return;
    }
    flush();
  });
  setInterval(function () { if (navigator.onLine && waiting().length) flush(); }, 15000);

  function start() {
    load().then(function () {
      usable = true;
      restore();
      if (navigator.onLine) flush();
    }).catch(function () { /* no store (usable stays false): plain htmx, as before */ });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  window.bourre = window.bourre || {};
  window.bourre.queue = { flush: flush, entries: function () { return entries.slice(); } };
})();
