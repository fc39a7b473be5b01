/* The expert's better play drawn on the board as arrows, an extra layer above the board's own (draw.js):
 * each move from its point to where it lands, numbered as VIEW.last_move marks are (the mover's own
 * numbers, 25 the bar, 0 off), placed as draw.js places the last move's marks. */

import { clear, el } from "../board/dom.js";
import { BAR_W, barCenter, checkerCenter, own, R, trayBox, X_BAR, Y_MID } from "../board/geometry.js";
import { svg } from "../board/draw.js";

let layer = null;

function mount() {
  var defs = el("defs", {}, svg);
  var head = el("marker", { id: "better-head", viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 3.2,
    markerHeight: 3.2, orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0L10,5L0,10z", "class": "better-head" }, head);
  layer = el("g", { "class": "layer-better", "aria-hidden": "true" }, svg);
}

// Where a move of `side` starts or ends on the board of `view`: a point's stack, the bar, the tray.
function spot(view, side, point, index) {
  if (point === 25) { return view.game === "short" ? barCenter(view, side, 0) : [X_BAR + BAR_W / 2, Y_MID]; }
  if (point === 0) { var b = trayBox(view, side); return [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]; }
  var slot = own(view.game, view.viewer, own(view.game, side, point));
  return checkerCenter(slot, 2 + (index % 3));
}

// Draw `moves` ([{src, dst, hit}], `side`'s) on the board showing `view`; none: the layer emptied.
export function drawBetter(view, side, moves) {
  if (!layer || !layer.isConnected) { mount(); }
  clear(layer);
  layer.setAttribute("data-count", String((moves || []).length));
  (moves || []).forEach(function (m, i) {
    var a = spot(view, side, m.src, i), b = spot(view, side, m.dst, i);
    var dx = b[0] - a[0], dy = b[1] - a[1], length = Math.sqrt(dx * dx + dy * dy) || 1;
    var end = [b[0] - dx / length * R * 0.55, b[1] - dy / length * R * 0.55];
    var bow = Math.min(80, length / 3) * (a[1] < Y_MID ? 1 : -1);
    var c = [(a[0] + end[0]) / 2, (a[1] + end[1]) / 2 + bow];
    var d = "M" + a[0] + "," + a[1] + " Q" + c[0] + "," + c[1] + " " + end[0] + "," + end[1];
    var g = el("g", { "class": "better-arrow" + (m.hit ? " hit" : ""), "data-src": m.src, "data-dst": m.dst }, layer);
    el("path", { d: d, "class": "better-halo" }, g);
    el("path", { d: d, "class": "better-line", "marker-end": "url(#better-head)" }, g);
    el("circle", { cx: a[0], cy: a[1], r: 7, "class": "better-from" }, g);
  });
}
