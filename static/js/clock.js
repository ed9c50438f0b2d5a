// The tournament clock: ticks locally from the seconds left at the server's timestamp
// (data-server-time, ms), and asks the page to refresh when the level ends.
(function () {
  "use strict";
  var timer = null;

  function fmt(seconds) {
    var s = Math.max(0, Math.ceil(seconds));
    var m = Math.floor(s / 60);
    var r = s % 60;
    return m + ":" + (r < 10 ? "0" : "") + r;
  }

  function start() {
    if (timer) {
      clearInterval(timer);
      timer = null;
    }
    var el = document.querySelector("[data-clock]");
    if (!el) return;
    var left = parseInt(el.getAttribute("data-seconds-left"), 10);
    var serverTime = parseInt(el.getAttribute("data-server-time"), 10);
    if (isNaN(left) || isNaN(serverTime)) return;
    var running = el.getAttribute("data-running") === "1";
    // The deadline in server time; the offset maps this machine's clock onto the server's.
    var offset = Date.now() - serverTime;
    var deadline = serverTime + left * 1000;
    var fired = false;
    function tick() {
      var rest = running ? (deadline - (Date.now() - offset)) / 1000 : left;
      el.textContent = fmt(rest);
      // Times counted from the end of this level (the next break): the same tick.
      document.querySelectorAll("[data-clock-plus]").forEach(function (other) {
        var plus = parseInt(other.getAttribute("data-clock-plus"), 10);
        if (!isNaN(plus)) other.textContent = fmt(rest + plus);
      });
      if (running && rest <= 0 && !fired) {
        fired = true;
        document.body.dispatchEvent(new CustomEvent("clock-zero"));
      }
    }
    tick();
    if (running) timer = setInterval(tick, 250);
  }

  document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("htmx:afterSettle", start);
})();
