// Record-hand screen: tricks steppers, the live "3 of 5 tricks counted" line, Play/Pass.
// Small and framework-free; the form works without it (number inputs, radio buttons).
(function () {
  "use strict";

  function rowsOf(form) { return form.querySelectorAll("[data-row]"); }

  function isPassed(row) {
    var pass = row.querySelector("input[type=radio][value=pass]");
    return !!(pass && pass.checked);
  }

  function update(form) {
    var total = 0;
    var size = parseInt(form.dataset.handSize || "5", 10);
    rowsOf(form).forEach(function (row) {
      var input = row.querySelector(".stepper-value");
      var passed = isPassed(row);
      row.classList.toggle("is-passed", passed);
      if (!input) return;
      if (passed && input.value !== "0") input.value = "0";
      input.readOnly = passed;
      row.querySelectorAll(".step").forEach(function (b) { b.disabled = passed; });
      if (!passed) total += Math.max(0, parseInt(input.value || "0", 10) || 0);
    });
    var counter = form.querySelector("[data-counter]");
    if (counter) {
      counter.querySelector("[data-counted]").textContent = String(total);
      counter.classList.toggle("is-over", total > size);
      counter.classList.toggle("is-done", total === size);
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest(".record-form .step");
    if (!button) return;
    event.preventDefault();
    var form = button.closest("form");
    var input = button.closest(".stepper").querySelector(".stepper-value");
    var max = parseInt(input.max || form.dataset.handSize || "5", 10);
    var value = (parseInt(input.value || "0", 10) || 0) + parseInt(button.dataset.step, 10);
    input.value = String(Math.min(max, Math.max(0, value)));
    update(form);
  });

  document.addEventListener("input", function (event) {
    var form = event.target.closest(".record-form");
    if (form) update(form);
  });
  document.addEventListener("change", function (event) {
    var form = event.target.closest(".record-form");
    if (form) update(form);
  });

  function init(root) {
    (root || document).querySelectorAll(".record-form").forEach(update);
    // A share button only where the phone can share.
    if (!navigator.share) {
      (root || document).querySelectorAll("[data-share-url]").forEach(function (b) { b.hidden = true; });
    }
  }
  document.addEventListener("DOMContentLoaded", function () { init(document); });
  document.addEventListener("htmx:afterSettle", function (event) { init(event.target); });
})();
