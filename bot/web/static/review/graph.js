/* The win-chance graph over the game: white's chance at each frame (analysis.chances) as a line over a 50%
 * line, the plays marked ?, ?? (and ?!) as dots of their side, a cursor on the frame shown. Touched,
 * clicked or dragged, it jumps to that frame; focused, it is a slider that the page's keys move. Runs right
 * to left on a right-to-left page, as the play buttons do. */

import { clear, el } from "../board/dom.js";

const W = 600, H = 130, PAD = 12;
const G = { node: null, count: 0, rtl: false, cursor: null, pick: null, down: false };

function x(k) {
  var at = G.count > 1 ? PAD + k * (W - 2 * PAD) / (G.count - 1) : W / 2;
  return G.rtl ? W - at : at;
}

function y(chance) { return PAD + (1 - chance) * (H - 2 * PAD); }

// Draw `chances` (one per frame) on `node`, each mark {frame, mark, side} a dot; `pick(frame)` on a touch.
export function drawGraph(node, chances, marks, rtl, label, pick) {
  G.node = node; G.count = chances.length; G.rtl = rtl; G.pick = pick;
  clear(node);
  node.setAttribute("aria-label", label);
  node.setAttribute("aria-valuemax", String(Math.max(0, chances.length - 1)));
  el("rect", { x: 0, y: 0, width: W, height: H, rx: 8, "class": "graph-bg" }, node);
  el("line", { x1: PAD, y1: y(0.5), x2: W - PAD, y2: y(0.5), "class": "graph-half" }, node);
  el("text", { x: rtl ? W - 4 : 4, y: y(0.5) - 4, "class": "graph-label" + (rtl ? " end" : "") }, node, "50%");
  var line = chances.map(function (c, k) { return x(k).toFixed(1) + "," + y(c).toFixed(1); }).join(" ");
  el("polygon", { points: x(0).toFixed(1) + "," + y(0) + " " + line + " " + x(chances.length - 1).toFixed(1) +
    "," + y(0), "class": "graph-area" }, node);
  el("polyline", { points: line, "class": "graph-line" }, node);
  marks.forEach(function (m) {
    if (m.frame >= chances.length) { return; }
    el("circle", { cx: x(m.frame), cy: y(chances[m.frame]), r: m.mark === "?!" ? 3.5 : 5.5,
      "class": "graph-mark side-" + m.side + (m.mark === "??" ? " blunder" : ""), "data-frame": m.frame }, node);
  });
  G.cursor = el("line", { x1: x(0), y1: 2, x2: x(0), y2: H - 2, "class": "graph-cursor" }, node);
  if (!node.dataset.wired) {
    node.dataset.wired = "1";
    node.addEventListener("pointerdown", function (e) { G.down = true; jump(e); });
    node.addEventListener("pointermove", function (e) { if (G.down) { jump(e); } });
    ["pointerup", "pointercancel", "pointerleave"].forEach(function (name) {
      node.addEventListener(name, function () { G.down = false; });
    });
  }
}

function jump(event) {
  var box = G.node.getBoundingClientRect();
  if (!box.width || G.count < 1) { return; }
  var at = (event.clientX - box.left) / box.width * W;
  if (G.rtl) { at = W - at; }
  var k = Math.round((at - PAD) / (W - 2 * PAD) * (G.count - 1));
  event.preventDefault();
  G.pick(Math.max(0, Math.min(G.count - 1, k)));
}

// The cursor on frame `k`, and what a screen reader says of the slider.
export function graphAt(k, text) {
  if (!G.node || !G.cursor) { return; }
  G.cursor.setAttribute("x1", x(k));
  G.cursor.setAttribute("x2", x(k));
  G.node.setAttribute("aria-valuenow", String(k));
  G.node.setAttribute("aria-valuetext", text);
}
