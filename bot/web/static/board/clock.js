/* A live game's clocks, ticking between states. A state's clock is as of the server's time `at` (the save it
 * shows): each side's reserve, the side whose time runs and what is left of its delay. The page counts on
 * from there with its own clock, corrected by the offset measured at the hello (the welcome's `now`), and
 * stops at 0:00: the flag itself is the server's to apply, and its state shows the moment it is saved. */

import { S } from "./state.js";
import { t } from "./strings.js";

const TICK = 200;  // ms between redraws of a running clock

// The server's time now (unix seconds), as this page reckons it.
export function serverNow() { return Date.now() / 1000 + S.offset; }

// The welcome's `now`, taken as the server's time halfway between the hello sent and the welcome come.
export function measureOffset(now, sentAt) {
  if (typeof now !== "number") { return; }
  var here = Date.now();
  var middle = sentAt ? (sentAt + here) / 2 : here;
  S.offset = now - middle / 1000;
}

// Each side's [reserve, delay] left at server time `now`: the running side spends its delay first.
export function clockAt(clock, now) {
  var gone = Math.max(0, now - clock.at), out = [[clock.left[0], 0], [clock.left[1], 0]];
  var r = clock.running;
  if (r === 0 || r === 1) {
    out[r][1] = Math.max(0, clock.delay - gone);
    out[r][0] = Math.max(0, clock.left[r] - Math.max(0, gone - clock.delay));
  }
  return out;
}

// A reserve as a person reads it (render's clock_text): 1:05, 0:09, rounded up.
export function clockText(seconds) {
  var whole = Math.max(0, Math.ceil(seconds - 1e-9));
  var rest = whole % 60;
  return Math.floor(whole / 60) + ":" + (rest < 10 ? "0" : "") + rest;
}

// The panels' clocks as of now (page.js makes a .clock span in each panel when the state has clocks).
export function drawClocks() {
  var clock = S.state && S.state.clock;
  if (!clock) { return; }
  var now = clockAt(clock, serverNow());
  Array.prototype.forEach.call(document.querySelectorAll(".clock[data-side]"), function (node) {
    var side = +node.getAttribute("data-side"), running = clock.running === side;
    var text = clockText(now[side][0]);
    if (running && now[side][1] > 0) { text += " " + t("delay", { delay: Math.ceil(now[side][1] - 1e-9) }); }
    if (node.textContent !== text) { node.textContent = text; }
    node.classList.toggle("running", running);
    node.classList.toggle("out", running && now[side][0] <= 0 && now[side][1] <= 0);
  });
}

// Redraw the running clock every TICK ms (once, for the page's life).
export function startTicking() {
  setInterval(function () {
    var clock = S.state && S.state.clock;
    if (clock && (clock.running === 0 || clock.running === 1)) { drawClocks(); }
  }, TICK);
}
