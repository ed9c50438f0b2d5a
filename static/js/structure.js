// The tournament settings form: choosing a structure preset fills every field it names
// (antes, minutes per level, hands per level 0, breaks); changing one of those fields
// afterwards makes the structure the director's own ("Custom"). The server applies a
// chosen preset the same way (games.tournaments.service._apply_preset), and the table
// under the fields (games/tournament_structure.html) follows through htmx.
(function () {
  "use strict";
  var FIELDS = ["antes_text", "level_minutes", "hands_per_level", "break_every", "break_minutes"];

  function setUp(select) {
    var presets;
    try {
      presets = JSON.parse(select.getAttribute("data-presets") || "{}");
    } catch (e) {
      return;
    }
    var form = select.form;
    var field = function (name) { return form ? form.elements.namedItem(name) : null; };

    select.addEventListener("change", function () {
      var values = presets[select.value];
      if (!values) return;
      FIELDS.forEach(function (name) {
        var input = field(name);
        if (input && name in values) input.value = String(values[name]);
      });
    });

    FIELDS.forEach(function (name) {
      var input = field(name);
      if (!input) return;
      input.addEventListener("input", function () {
        var values = presets[select.value];
        if (values && String(values[name]) !== input.value) select.value = "";
      });
    });
  }

  function init() {
    document.querySelectorAll("select[data-presets]").forEach(setUp);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
