/* The buttons under the board (the state's actions: a press each; resigning asks first), the list of moves
 * (moves.js: a step each) and the keys. */

import { S } from "./state.js";
import { t } from "./strings.js";
import { $ } from "./dom.js";
import { press } from "./connection.js";
import { select } from "./input.js";

// Listen to the buttons, the resign dialog and Escape (which closes the dialog, or puts a checker down).
export function listen() {
  $("buttons").addEventListener("click", onButton);
  $("moves").addEventListener("click", onMove);
  $("confirm-yes").addEventListener("click", function () { answer(true); });
  $("confirm-no").addEventListener("click", function () { answer(false); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { if (!$("confirm").hidden) { answer(false); } else if (S.selected !== null) { select(null); } }
  });
}

function onButton(event) {
  var button = event.target.closest("button[data-action]");
  if (!button || button.disabled) { return; }
  var action = button.getAttribute("data-action");
  if (action === "resign") { ask(); return; }
  S.selected = null;
  press(action);
}

// A move from the list of moves (moves.js): the step it names, as a tap would send it.
function onMove(event) {
  var button = event.target.closest("button[data-src]");
  if (!button || button.disabled) { return; }
  S.selected = null;
  S.keepFocus = true;
  press("move", { src: +button.getAttribute("data-src"), die: +button.getAttribute("data-die") });
}

function ask() {
  $("confirm-text").textContent = t("confirm");
  $("confirm-yes").textContent = t("yes");
  $("confirm-no").textContent = t("no");
  $("confirm").hidden = false;
  $("confirm-no").focus();
}

function answer(yes) {
  $("confirm").hidden = true;
  if (yes) { press("resign"); }
}
