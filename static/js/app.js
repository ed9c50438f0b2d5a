// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
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
