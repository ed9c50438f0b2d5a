// Small progressive enhancements; every page works without this file.
//
// The words this file and the other scripts show live in TEXT below, in English:
// window.bourre.text. A page in another language carries them translated in a
// <template data-bourre-text> (templates/_js_text.html: no inline script under the CSP),
// read once here; a word it lacks stays English. Also here: the failure banner every htmx request
// shares (window.bourre.banner), "errors in view" after a refused submission
// (window.bourre.showErrors) and the service worker's registration.
window.bourre = window.bourre || {};
window.bourre.text = {
  offline: "No connection. Nothing was sent; check the Wi-Fi and try again.",
  busy: "The server is busy (it asked to wait {s} s). Nothing was saved; try again.",
  serverError: "Something went wrong on the server ({status}). Nothing was saved; try again.",
  timeout: "The server took too long to answer. Try again: nothing is recorded twice.",
  stale: "The table changed on another phone. Reload to see it.",
  refused: "That was refused ({status}). Reload the page and try again.",
  retry: "Retry",
  dismiss: "Dismiss",
  errorsOne: "Not saved: 1 problem to fix",
  errorsMany: "Not saved: {n} problems to fix",
  show: "show",
  queued: "Saved on this phone: it will be sent when the connection returns.",
  queuedServer: "The server did not answer (it may be restarting): the hand is kept on this phone and sent when it answers.",
  notKept: "No connection, and this phone would not keep the hand (private window or full storage). Nothing was saved: it is still in the form; try again when the connection returns.",
  waiting: "Waiting to send ({n})",
  sendNow: "Send now",
  sending: "Sending…",
  returned: "A hand typed offline was not recorded: {reason} It is filled in below: check it and save it again, or discard it.",
  returnedGeneric: "the server refused it.",
  recordHand: "Record hand {n}",
  afterWaitingOne: "Pot and dealer follow once the waiting hand is sent.",
  afterWaitingMany: "Pot and dealer follow once the {n} waiting hands are sent.",
  returnedStale: "the table moved on while it waited (another hand was recorded, or the seats or rules changed).",
  discard: "Discard it",
  openIt: "Open it",
  othersWaitingOne: "1 hand typed offline under another login is waiting on this phone.",
  othersWaitingMany: "{n} hands typed offline under another login are waiting on this phone.",
  discardOthers: "Discard them",
  confirmDiscardOthers: "Discard the hands typed offline under another login? They will never be sent, and this cannot be undone.",
  logoutWaiting: "Hands you typed offline have not been sent yet. Log out anyway? They will wait for you to log in again.",
  offlineSince: "Offline — last updated {time}",
  moveFailed: "Your move was not sent. Try again.",
  playDraw: "Play, draw {n}",
  copied: "Copied",
  copyByHand: "Selected: copy it"
};
(function () {
  // Deferred, so the body is parsed: take the page's translations over the English.
  var holder = document.querySelector("template[data-bourre-text]");
  if (!holder) return;
  holder.content.querySelectorAll("[data-key]").forEach(function (el) {
    var said = el.textContent.trim();
    if (said) window.bourre.text[el.getAttribute("data-key")] = said;
  });
})();
window.bourre.t = function (key, values) {
  var s = window.bourre.text[key] || key;
  Object.keys(values || {}).forEach(function (k) { s = s.split("{" + k + "}").join(String(values[k])); });
  return s;
};

(function () {
  "use strict";
  var t = window.bourre.t;
  // Under the Content-Security-Policy (no inline style, no eval) htmx must not inject its
  // indicator <style> (app.css has the rules) nor compile hx-on / trigger filters.
  // htmx reads its config on DOMContentLoaded, after this deferred file has run. (The
  // timeout and response handling come from base.html's htmx-config meta.)
  if (window.htmx) {
    window.htmx.config.includeIndicatorStyles = false;
    window.htmx.config.allowEval = false;
    window.htmx.config.allowScriptTags = false;
  }

  // --- the failure banner -----------------------------------------------------------
  // One for the page, at the top of its content: what happened in the table's words, and
  // Retry, which sends the same request again (a hand's idempotency key makes that safe).
  var banner = null;
  var retryAction = null;
  function bannerElement() {
    if (banner) return banner;
    banner = document.createElement("div");
    banner.className = "net-banner";
    banner.setAttribute("role", "alert");
    banner.hidden = true;
    var text = document.createElement("p");
    text.setAttribute("data-banner-text", "");
    var retry = document.createElement("button");
    retry.type = "button";
    retry.className = "btn-small";
    retry.setAttribute("data-banner-retry", "");
    retry.textContent = window.bourre.text.retry;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "linklike net-banner-close";
    close.setAttribute("aria-label", window.bourre.text.dismiss);
    close.textContent = "×";
    banner.append(text, retry, close);
    retry.addEventListener("click", function () {
      var again = retryAction;
      hideBanner();
      if (again) again();
    });
    close.addEventListener("click", hideBanner);
    // In the page's flow, at the top of its content (sticky under the bar when scrolled):
    // it pushes the heading and the pot/dealer line down instead of covering them.
    var main = document.getElementById("main");
    if (main) main.insertBefore(banner, main.firstChild);
    else document.body.appendChild(banner);
    return banner;
  }
  function showBanner(message, retry) {
    var el = bannerElement();
    el.querySelector("[data-banner-text]").textContent = message;
    retryAction = retry || null;
    el.querySelector("[data-banner-retry]").hidden = !retry;
    el.hidden = false;
  }
  function hideBanner() {
    if (banner) banner.hidden = true;
    retryAction = null;
  }
  // What a failed answer means, in plain words: status 0 = no answer at all.
  function describe(status, retryAfter, timedOut) {
    if (timedOut) return t("timeout");
    if (!status || !navigator.onLine) return t("offline");
    if (status === 503) return t("busy", { s: parseInt(retryAfter, 10) || 15 });
    if (status === 409 || status === 412) return t("stale");
    if (status >= 500) return t("serverError", { status: status });
    return t("refused", { status: status });
  }
  window.bourre.banner = { show: showBanner, hide: hideBanner, describe: describe };

  // Polls (data-poll-visible) do not shout: the line above them says since when the page
  // has not been refreshed, and goes away with the next answer.
  var lastOk = {};
  // A time of day as the page's language writes it ("14.05" in Finnish, "2:05 PM" in
  // English, "오후 2:05" in Korean). Sundanese, which browsers may not know, falls back to
  // Indonesian's conventions, as its server-side formats do (bourre_site/formats/su).
  function timeOfDay(when) {
    var lang = document.documentElement.lang || "en";
    var locales = lang === "su" ? ["su", "id"] : [lang];
    try {
      return when.toLocaleTimeString(locales, { hour: "numeric", minute: "2-digit" });
    } catch (e) {
      return ("0" + when.getHours()).slice(-2) + ":" + ("0" + when.getMinutes()).slice(-2);
    }
  }
  function pollId(elt) { return elt.id || "poll"; }
  function pollFailed(elt) {
    var id = pollId(elt);
    var line = document.querySelector('[data-poll-status="' + id + '"]');
    if (!line) {
      line = document.createElement("p");
      line.className = "msg msg-warning poll-status";
      line.setAttribute("role", "status");
      line.setAttribute("data-poll-status", id);
      elt.parentNode.insertBefore(line, elt);
    }
    line.textContent = t("offlineSince", { time: timeOfDay(lastOk[id] || new Date()) });
  }
  function pollOk(elt) {
    var id = pollId(elt);
    lastOk[id] = new Date();
    var line = document.querySelector('[data-poll-status="' + id + '"]');
    if (line) line.remove();
  }
  window.bourre.poll = { failed: pollFailed, ok: pollOk };
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-poll-visible]").forEach(function (elt) { lastOk[pollId(elt)] = new Date(); });
  });

  function isPoll(elt) { return !!(elt && elt.hasAttribute && elt.hasAttribute("data-poll-visible")); }
  function retryOf(detail) {
    var elt = detail.elt;
    var form = elt && (elt.tagName === "FORM" ? elt : elt.closest && elt.closest("form[hx-post]"));
    var cfg = detail.requestConfig || {};
    var submitter = cfg.triggeringEvent && cfg.triggeringEvent.submitter;
    return function () {
      if (form && document.contains(form)) form.requestSubmit(submitter && form.contains(submitter) ? submitter : undefined);
      else if (cfg.verb && cfg.path) window.htmx.ajax(cfg.verb.toUpperCase(), cfg.path, { source: elt });
    };
  }
  function failed(event, timedOut) {
    var detail = event.detail || {};
    var xhr = detail.xhr || {};
    // The record form's offline queue takes over when the network is away (queue.js).
    if (detail.bourreQueued) return;
    if (isPoll(detail.elt)) { pollFailed(detail.elt); return; }
    var status = timedOut ? 0 : xhr.status || 0;
    var wait = xhr.getResponseHeader ? xhr.getResponseHeader("Retry-After") : null;
    showBanner(describe(status, wait, timedOut), retryOf(detail));
    // Nothing stays disabled: htmx gives back hx-disabled-elt, this covers the rest.
    var elt = detail.elt;
    if (elt && elt.querySelectorAll) {
      elt.querySelectorAll("button[disabled][data-busy]").forEach(function (b) { b.disabled = false; });
    }
  }
  document.addEventListener("htmx:responseError", function (e) { failed(e, false); });
  document.addEventListener("htmx:sendError", function (e) { failed(e, false); });
  document.addEventListener("htmx:timeout", function (e) { failed(e, true); });
  // An answer that is no error (also a poll's 304): on beforeSwap, because by afterRequest
  // an element swapped out of the page no longer sends its events to the document.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail || {};
    if (detail.isError || !detail.xhr || detail.xhr.status >= 400) return;
    var elt = (detail.requestConfig && detail.requestConfig.elt) || detail.elt;
    if (isPoll(elt)) pollOk(elt);
    else hideBanner();
  });

  // --- errors in view -----------------------------------------------------------------
  // After a refused submission (a plain POST's page or an htmx swap): sections holding an
  // error open, the first error is scrolled to the middle of the screen (clear of the
  // sticky bar at the top and the Save bar at the bottom) and takes the focus, and a
  // short summary sits next to the primary button.
  function errorsIn(root) {
    var found = [];
    var scope = root.querySelectorAll ? root : document;
    if (scope.matches && scope.matches(".errorlist, [data-in-view]")) found.push(scope);
    scope.querySelectorAll(".errorlist, [data-in-view]").forEach(function (el) {
      if (el.matches("[data-in-view]") || el.querySelector("li")) found.push(el);
    });
    return found;
  }
  function reveal(el) {
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    var box = el.closest(".field, .seat-row, fieldset") || el;
    var control = box.querySelector('[aria-invalid="true"]');
    if (!control) {
      if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
      control = el;
    }
    control.focus({ preventScroll: true });
    el.scrollIntoView({ block: "center" });
  }
  function showErrors(root) {
    var errors = errorsIn(root || document);
    if (!errors.length) return false;
    errors.forEach(function (el) {
      for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    });
    var first = errors[0];
    reveal(first);
    var form = first.closest("form");
    if (form) summarise(form, first);
    return true;
  }
  // A form that saves nothing says so in its own words (data-summary-one, -many: "Nothing
  // deleted: …"), or has no summary at all (data-no-summary: the login form, whose error
  // already says what happened).
  function summarise(form, first) {
    var old = form.querySelector("[data-error-summary]");
    if (old) old.remove();
    var n = form.querySelectorAll(".errorlist li").length;
    if (!n || form.hasAttribute("data-no-summary")) return;
    var buttons = form.querySelectorAll("button[type=submit], button:not([type])");
    var primary = buttons[buttons.length - 1];
    if (!primary) return;
    var p = document.createElement("p");
    p.className = "error-summary";
    p.setAttribute("data-error-summary", "");
    var link = document.createElement("a");
    link.href = "#";
    var own = form.getAttribute(n === 1 ? "data-summary-one" : "data-summary-many");
    link.textContent = own ? own.replace("{n}", n) : n === 1 ? t("errorsOne") : t("errorsMany", { n: n });
    link.addEventListener("click", function (event) { event.preventDefault(); reveal(first); });
    p.appendChild(link);
    primary.parentNode.insertBefore(p, primary);
  }
  window.bourre.showErrors = showErrors;
  document.addEventListener("DOMContentLoaded", function () {
    var main = document.getElementById("main");
    if (main && main.querySelector("form .errorlist li, form [data-in-view]")) showErrors(main);
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var root = event.target;
    if (root && root.querySelector && !isPoll(root)) showErrors(root);
  });

  // --- the installable app --------------------------------------------------------------
  // The service worker (served from the site's root, so it covers every page) caches the
  // static files and the offline page. Browsers allow it on https and on localhost only.
  var sw = document.querySelector('meta[name="bourre-sw"]');
  if (sw && "serviceWorker" in navigator && window.isSecureContext) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(sw.content, { scope: "/" }).catch(function () { /* the app works without it */ });
    });
  }

  // Polls marked data-poll-visible ask only while the page is visible (instead of an
  // hx-trigger filter, which htmx would need eval for).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.hasAttribute("data-poll-visible") && document.visibilityState !== "visible") {
      event.preventDefault();
    }
  });
  // Copy-to-clipboard buttons: <button data-copy="text">. The clipboard API exists on
  // https and localhost only; a phone on the table's Wi-Fi (plain http) gets the older
  // copy command, and where that fails too the text is selected (an input beside the
  // button, as the payment hand-off has) and the button says to copy it by hand.
  function says(button, words) {
    button.dataset.label = button.dataset.label || button.textContent;
    button.textContent = words;
    setTimeout(function () { button.textContent = button.dataset.label; }, 2500);
  }
  function copyByHand(button, text) {
    var field = button.parentNode && button.parentNode.querySelector("input[data-select-all]");
    var scratch = null;
    if (!field) {
      scratch = field = document.createElement("textarea");
      scratch.value = text;
      scratch.setAttribute("readonly", "");
      scratch.style.position = "fixed";
      scratch.style.opacity = "0";
      document.body.appendChild(scratch);
    }
    field.focus();
    field.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    if (scratch) scratch.remove();
    says(button, done ? window.bourre.text.copied : window.bourre.text.copyByHand);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    event.preventDefault();
    var text = button.getAttribute("data-copy");
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        says(button, window.bourre.text.copied);
      }, function () { copyByHand(button, text); });
    } else {
      copyByHand(button, text);
    }
  });
  // Share buttons: <button data-share-url="..." data-share-title="...">.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-share-url]");
    if (!button || !navigator.share) return;
    event.preventDefault();
    navigator.share({ title: button.dataset.shareTitle || document.title, url: button.dataset.shareUrl });
  });
  // Read-only links and keys select themselves when tapped: <input data-select-all>.
  // (Handlers live here, not in on* attributes: the Content-Security-Policy forbids those.)
  document.addEventListener("click", function (event) {
    var input = event.target.closest("input[data-select-all]");
    if (input) input.select();
  });
  // A form whose action cannot be taken back asks first: <form data-confirm="question">
  // (the question comes translated with the page). Without JavaScript it just submits.
  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.getAttribute("data-confirm"))) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
  // A select that submits its form when changed: <select data-autosubmit>.
  document.addEventListener("change", function (event) {
    var select = event.target.closest("select[data-autosubmit]");
    if (select && select.form) select.form.requestSubmit();
  });
})();

// After a swap that asks for it (the roster after "Add player"), the typing goes on in
// the same field: the phone keyboard stays open for the next name.
document.addEventListener("htmx:afterSettle", function (event) {
  var field = event.target.querySelector && event.target.querySelector("[data-keep-focus]");
  if (field) field.focus();
});

// A new club's time zone starts from the phone's own (the server cannot know it).
document.addEventListener("DOMContentLoaded", function () {
  var select = document.querySelector("select[data-browser-tz]");
  if (!select || !window.Intl) return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && select.querySelector('option[value="' + zone + '"]')) select.value = zone;
});

// A page that answers a plain POST (a form shown again with its problems, a correction's
// confirmation) would make Back ask to send the form again, a browser page a person at
// the table cannot read: its history entry becomes a plain visit of the same address.
(function () {
  var main = document.getElementById("main");
  if (main && main.hasAttribute("data-after-post") && window.history.replaceState) {
    window.history.replaceState(window.history.state, "", window.location.href);
  }
})();
