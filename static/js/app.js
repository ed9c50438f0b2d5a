// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  // Under the Content-Security-Policy (no inline style, no eval) htmx must not inject its
  // indicator <style> (app.css has the rules) nor compile hx-on / trigger filters.
  // htmx reads its config on DOMContentLoaded, after this deferred file has run.
  if (window.htmx) {
    window.htmx.config.includeIndicatorStyles = false;
    window.htmx.config.allowEval = false;
    window.htmx.config.allowScriptTags = false;
  }
  // Polls marked data-poll-visible ask only while the page is visible (instead of an
  // hx-trigger filter, which htmx would need eval for).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.hasAttribute("data-poll-visible") && document.visibilityState !== "visible") {
      event.preventDefault();
    }
  });
  // Copy-to-clipboard buttons: <button data-copy="text">.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    event.preventDefault();
    var text = button.getAttribute("data-copy");
    if (navigator.clipboard) {
      navigator.clipboard.writeText(text).then(function () {
        button.dataset.label = button.dataset.label || button.textContent;
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = button.dataset.label; }, 1500);
      });
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
