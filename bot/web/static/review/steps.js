/* Stepping through the review: the first / back / autoplay / forward / last buttons, the keys (ArrowLeft and
 * ArrowRight mirrored on a right-to-left page, Home, End, Space for autoplay; ArrowUp and ArrowDown move
 * along the list of plays, Enter there jumps to the play; B shows the better play on the position before
 * the play, and back), autoplay one frame a second until the end. */

import { S } from "../board/state.js";
import { $ } from "../board/dom.js";
import { autoplayShown, frames, R, show, toggleBefore } from "./view.js";

const AUTOPLAY_MS = 1000;

export function go(k) { show(k); }

function stop() {
  clearInterval(R.timer);
  R.timer = 0;
  autoplayShown(false);
}

export function toggleAutoplay() {
  if (R.timer) { stop(); return; }
  if (R.frame >= frames() - 1) { show(0); }
  autoplayShown(true);
  R.timer = setInterval(function () {
    if (R.frame >= frames() - 1) { stop(); return; }
    show(R.frame + 1);
  }, AUTOPLAY_MS);
}

function by(step) { return function () { stop(); show(R.frame + step); }; }

function to(where) { return function () { stop(); show(where === "end" ? frames() - 1 : 0); }; }

export function wire() {
  $("first").addEventListener("click", to("start"));
  $("back").addEventListener("click", by(-1));
  $("forward").addEventListener("click", by(1));
  $("last").addEventListener("click", to("end"));
  $("autoplay").addEventListener("click", toggleAutoplay);
  $("show-better").addEventListener("click", function () { stop(); toggleBefore(); });
  document.addEventListener("keydown", keyed);
}

function keyed(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || !R.review) { return; }
  var target = event.target, tag = target && target.tagName, rtl = S.dir === "rtl";
  var onControl = tag === "BUTTON" || tag === "A" || tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA";
  var action = null;
  switch (event.key) {
    case "ArrowRight": action = by(rtl ? -1 : 1); break;
    case "ArrowLeft": action = by(rtl ? 1 : -1); break;
    case "Home": action = to("start"); break;
    case "End": action = to("end"); break;
    case " ": case "Spacebar": if (!onControl) { action = toggleAutoplay; } break;
    case "b": case "B": if (tag !== "INPUT" && tag !== "TEXTAREA") { action = function () { stop(); toggleBefore(); }; } break;
    case "ArrowDown": case "ArrowUp":
      if (target && target.closest && target.closest("#plays")) {
        action = function () { along(target, event.key === "ArrowDown" ? 1 : -1); };
      }
      break;
    default: break;
  }
  if (action) {
    event.preventDefault();
    action();
  }
}

// Focus the play `step` places after `button` in the list (the list is one stop of the Tab order).
function along(button, step) {
  var all = Array.prototype.slice.call(document.querySelectorAll("#plays button.play"));
  var next = all[Math.max(0, Math.min(all.length - 1, all.indexOf(button) + step))];
  if (!next || next === button) { return; }
  button.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
}
