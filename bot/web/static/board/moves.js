/* The legal moves as buttons, for the keyboard and for screen readers: one button a checker's destination
 * ("From point 13 to point 7"), the same steps a tap or a drag makes (the state's steps: the page never
 * decides legality). The list stays out of sight until it holds the focus; Tab reaches it. */

import { own } from "./geometry.js";
import { destinations, interactive, S, sources } from "./state.js";
import { t } from "./strings.js";
import { $, clear, html } from "./dom.js";

// What a screen reader says of a step: its points by the numbers drawn on them (the player's own), or the
// bar, or off the board.
export function stepName(from, to) {
  var view = S.state.view;
  if (from === "bar") { return t("enter", { dst: own(view.game, view.viewer, to) }); }
  var src = own(view.game, view.viewer, from);
  if (to === "off") { return t("bearOff", { src: src }); }
  return t("move", { src: src, dst: own(view.game, view.viewer, to) });
}

// The list of moves for the state now (empty when the player has none to make).
export function drawMoves() {
  var box = $("moves");
  clear(box);
  box.setAttribute("aria-label", t("moves"));
  if (!S.state || S.state.you === null) { return; }
  sources().forEach(function (from) {
    var to = destinations(from);
    Object.keys(to).forEach(function (key) {
      var step = to[key], where = key === "off" ? "off" : +key;
      var b = html("button", "move", box, stepName(from, where));
      b.type = "button";
      b.setAttribute("data-src", step.src);
      b.setAttribute("data-die", step.die);
      b.disabled = !interactive();
    });
  });
}
