/* The board drawn in SVG from the server's state, as render/board.py draws the chat's picture: the frame
 * and points once (mount), then at each state the checkers, the last move's marks, the dice, the cube and
 * the zones a press can land on (lit destinations, movable checkers). It draws; it never decides. */

import { BAR_STACK, BAR_W, barCenter, checkerCenter, CUBE, DIE, DIE_GAP, GAP, HALF_W, isTop, landing, NUM_H,
  numberCenter, own, POINT_W, R, SLAB_H, SLAB_W, slotX, STACK, TRAY_W, trayBox, TRI_LEN, WIDTH, X_BAR,
  X_LEFT, X_RIGHT, X_TRAY, Y_BOARD, Y_BOARD_END, Y_FIELD, Y_FIELD_END, Y_GAP, Y_GAP_END, Y_MID, zoneBox
} from "./geometry.js";
import { destinations, interactive, S, sources } from "./state.js";
import { t } from "./strings.js";
import { clear, el } from "./dom.js";

// The board's <svg> and its layers, bottom to top (drag: a checker in a finger's or the mouse's hand).
export let svg = null;
export const layers = {};

const PIP_SPOTS = {
  1: [[0.5, 0.5]],
  2: [[0.27, 0.27], [0.73, 0.73]],
  3: [[0.27, 0.27], [0.5, 0.5], [0.73, 0.73]],
  4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
  5: [[0.27, 0.27], [0.73, 0.27], [0.5, 0.5], [0.27, 0.73], [0.73, 0.73]],
  6: [[0.27, 0.25], [0.73, 0.25], [0.27, 0.5], [0.73, 0.5], [0.27, 0.75], [0.73, 0.75]]
};

// Take `node` (the page's <svg>) as the board: its layers made, the frame and the points drawn.
export function mount(node) {
  svg = node;
  ["static", "zones", "checkers", "marks", "targets", "dice", "drag"].forEach(function (name) {
    layers[name] = el("g", { "class": "layer-" + name }, svg);
  });
  drawStatic();
}

// The board as the state says (an empty board before the first state).
export function drawBoard() {
  var state = S.state;
  svg.setAttribute("aria-label", t("board"));
  ["checkers", "marks", "dice", "zones", "targets", "drag"].forEach(function (k) { clear(layers[k]); });
  if (!state) { return; }
  var view = state.view;
  svg.setAttribute("data-game", view.game);
  svg.setAttribute("data-viewer", view.viewer);
  svg.setAttribute("data-version", state.version);
  drawCheckers(view);
  drawLastMove(view);
  drawDice(view);
  drawCube(view);
  drawZones(view);
  svg.classList.toggle("locked", !interactive());
}

function drawStatic() {
  var g = layers.static;
  el("rect", { x: 0, y: Y_BOARD, width: WIDTH, height: Y_BOARD_END - Y_BOARD, "class": "frame" }, g);
  [X_LEFT, X_RIGHT].forEach(function (left) {
    el("rect", { x: left, y: Y_FIELD, width: HALF_W, height: Y_FIELD_END - Y_FIELD, "class": "field" }, g);
  });
  el("rect", { x: X_BAR, y: Y_BOARD, width: BAR_W, height: Y_BOARD_END - Y_BOARD, "class": "bar" }, g);
  [X_BAR, X_RIGHT].forEach(function (x) {
    el("line", { x1: x, y1: Y_BOARD, x2: x, y2: Y_BOARD_END, "class": "bar-edge" }, g);
  });
  for (var slot = 1; slot <= 24; slot++) {
    var x = slotX(slot), half = (POINT_W - 4) / 2, length = TRI_LEN - 10;
    var base = isTop(slot) ? Y_FIELD : Y_FIELD_END, tip = isTop(slot) ? Y_FIELD + length : Y_FIELD_END - length;
    el("polygon", {
      points: (x - half) + "," + base + " " + (x + half) + "," + base + " " + x + "," + tip,
      "class": "tri " + (slot % 2 ? "tri-dark" : "tri-light")
    }, g);
    var c = numberCenter(slot);
    el("text", { x: c[0], y: c[1], "class": "num" }, g, String(slot));
  }
  [[X_TRAY + 5, Y_GAP_END, X_TRAY + TRAY_W - 5, Y_FIELD_END], [X_TRAY + 5, Y_FIELD, X_TRAY + TRAY_W - 5, Y_GAP]]
    .forEach(function (b) {
      el("rect", { x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1], rx: 6, "class": "tray-bg" }, g);
    });
}

function drawChecker(parent, side, centre, attrs, count) {
  var g = el("g", { "class": "checker " + (side === 0 ? "white" : "black"), "data-side": side,
    transform: "translate(" + centre[0] + " " + centre[1] + ")" }, parent);
  Object.keys(attrs).forEach(function (k) { g.setAttribute(k, attrs[k]); });
  el("circle", { r: R - 0.5, "class": "edge" }, g);
  el("circle", { r: R - 2.5, "class": "rim" }, g);
  el("circle", { r: R * 0.82, "class": "face" }, g);
  el("circle", { r: R * 0.52, "class": "ring" }, g);
  if (count) { el("text", { y: 1, "class": "count" }, g, String(count)); }
  return g;
}

// `attrs` with what a screen reader says of a stack ("Point 13: White, 5": the word `key` of the page) on
// its first checker; the others are hidden from it.
function spoken(attrs, index, key, args, side, count) {
  if (index > 0) { attrs["aria-hidden"] = "true"; return attrs; }
  args.side = t(side === 0 ? "white" : "black");
  args.count = count;
  attrs.role = "img";
  attrs["aria-label"] = t(key, args);
  return attrs;
}

function drawCheckers(view) {
  var g = layers.checkers;
  view.points.forEach(function (n, i) {
    if (!n) { return; }
    var side = n > 0 ? 0 : 1, height = Math.abs(n), slot = own(view.game, view.viewer, i + 1);
    var drawn = Math.min(height, STACK);
    for (var k = 0; k < drawn; k++) {
      var label = height > STACK && k === STACK - 1 ? height : 0;
      drawChecker(g, side, checkerCenter(slot, k), spoken({ "data-point": i + 1, "data-index": k }, k,
        "onPoint", { n: slot }, side, height), label);
    }
  });
  [0, 1].forEach(function (side) {
    var on = view.bar[side];
    for (var k = 0; k < Math.min(on, BAR_STACK); k++) {
      var label = k === BAR_STACK - 1 && on > BAR_STACK ? on : 0;
      drawChecker(g, side, barCenter(view, side, k), spoken({ "data-point": "bar", "data-index": k }, k,
        "onBar", {}, side, on), label);
    }
    var box = trayBox(view, side);
    var tray = el("g", spoken({ "class": "tray " + (side === 0 ? "white" : "black"), "data-side": side }, 0,
      "borneOff", {}, side, view.off[side]), g);
    for (var j = 0; j < view.off[side]; j++) {
      var y = side === view.viewer ? box[3] - 3 - (j + 1) * SLAB_H : box[1] + 3 + j * SLAB_H;
      el("rect", { x: (box[0] + box[2] - SLAB_W) / 2, y: y + 1, width: SLAB_W, height: SLAB_H - 2, rx: 5,
        "class": "slab" }, tray);
    }
    var cy = side === view.viewer ? Y_GAP + GAP * 3 / 4 : Y_GAP + GAP / 4;
    el("text", { x: X_TRAY + TRAY_W / 2, y: cy, "class": "tray-count" }, tray, String(view.off[side]));
  });
}

// The last move as render/board.py marks it: numbers lit, rings where checkers arrived, dashed ghosts
// where they left, a red badge where a blot was hit, the mover's tray ringed when one was borne off.
function drawLastMove(view) {
  var g = layers.marks, mover = view.last_mover;
  if (mover === null || mover === undefined || !view.last_move || !view.last_move.length) { return; }
  var left = {}, arrived = {}, hits = {};
  view.last_move.forEach(function (m) {
    var src = m.src === 25 ? 0 : own(view.game, mover, m.src);
    var dst = m.dst === 0 ? 25 : own(view.game, mover, m.dst);
    left[src] = (left[src] || 0) + 1;
    arrived[dst] = (arrived[dst] || 0) + 1;
    if (m.hit && dst !== 25) { hits[dst] = true; }
  });
  var points = Object.keys(left).concat(Object.keys(arrived)).map(Number)
    .filter(function (p, i, all) { return all.indexOf(p) === i; });
  points.forEach(function (point) {
    var net = (arrived[point] || 0) - (left[point] || 0), k;
    if (point === 0) {
      var onBar = view.bar[mover];
      for (k = onBar; k < Math.min(onBar + left[point], BAR_STACK); k++) { ghost(g, barCenter(view, mover, k)); }
      return;
    }
    if (point === 25) {
      var b = trayBox(view, mover);
      el("rect", { x: b[0] - 3, y: b[1] - 3, width: b[2] - b[0] + 6, height: b[3] - b[1] + 6, rx: 8,
        "class": "mark-tray" }, g);
      return;
    }
    var slot = own(view.game, view.viewer, point), c = numberCenter(slot);
    el("rect", { x: c[0] - (POINT_W - 10) / 2, y: c[1] - (NUM_H - 6) / 2, width: POINT_W - 10, height: NUM_H - 6,
      rx: (NUM_H - 6) / 2, "class": "mark-num-bg", "data-point": point }, g);
    el("text", { x: c[0], y: c[1], "class": "mark-num" }, g, String(slot));
    var height = Math.abs(view.points[point - 1]);
    if (net > 0) {
      var seen = {};
      for (k = Math.max(0, height - net); k < height; k++) {
        var idx = Math.min(k, STACK - 1);
        if (!seen[idx]) { seen[idx] = true; ring(g, checkerCenter(slot, idx)); }
      }
    } else if (net < 0) {
      for (k = height; k < Math.min(height - net, STACK); k++) { ghost(g, checkerCenter(slot, k)); }
    }
  });
  Object.keys(hits).map(Number).forEach(function (point) {
    var slot = own(view.game, view.viewer, point), height = Math.abs(view.points[point - 1]);
    var c = checkerCenter(slot, Math.max(0, Math.min(height, STACK) - 1));
    badge(g, [c[0] + R - 5, c[1] - R + 5]);
  });
  if (Object.keys(hits).length && view.game === "short") {
    var victim = 1 - mover, onBar2 = view.bar[victim];
    if (onBar2) {
      var c2 = barCenter(view, victim, Math.min(onBar2, BAR_STACK) - 1);
      badge(g, [c2[0] + R - 5, c2[1] - R + 5]);
    }
  }
}

function ring(g, c) { el("circle", { cx: c[0], cy: c[1], r: R + 2, "class": "mark-arrived" }, g); }

function ghost(g, c) { el("circle", { cx: c[0], cy: c[1], r: R - 4, "class": "mark-left" }, g); }

function badge(g, c) {
  var b = el("g", { "class": "mark-hit", transform: "translate(" + c[0] + " " + c[1] + ")" }, g);
  el("circle", { r: 10.5 }, b);
  el("path", { d: "M-4,-4L4,4M-4,4L4,-4" }, b);
}

function drawDice(view) {
  var g = layers.dice, dice = view.dice || [];
  if (!dice.length) { return; }
  var expanded = dice.length === 2 && dice[0] === dice[1] ? dice.concat(dice) : dice.slice();
  var remaining = {};
  (view.dice_used || []).forEach(function (d) { remaining[d] = (remaining[d] || 0) + 1; });
  var roller = view.to_move === null || view.to_move === undefined ? view.viewer : view.to_move;
  var count = expanded.length, total = count * DIE + Math.max(0, count - 1) * DIE_GAP;
  var centre = roller === view.viewer ? X_RIGHT + HALF_W / 2 : X_LEFT + HALF_W / 2;
  var x0 = centre - total / 2, y0 = Y_GAP + (GAP - DIE) / 2;
  expanded.forEach(function (value, i) {
    var used = (remaining[value] || 0) > 0;
    if (used) { remaining[value] -= 1; }
    var x = x0 + i * (DIE + DIE_GAP);
    var die = el("g", { "class": "die " + (roller === 0 ? "white" : "black") + (used ? " used" : ""),
      "data-value": value, transform: "translate(" + x + " " + y0 + ")" }, g);
    el("rect", { width: DIE, height: DIE, rx: 9, "class": "die-face" }, die);
    PIP_SPOTS[value].forEach(function (s) {
      el("circle", { cx: s[0] * DIE, cy: s[1] * DIE, r: DIE * 0.095, "class": "pip" }, die);
    });
  });
}

function drawCube(view) {
  if (view.cube === null || view.cube === undefined) { return; }
  var x = X_BAR + BAR_W / 2, owner = view.cube_owner, y;
  if (view.cube_offered || owner === null || owner === undefined) { y = Y_MID; }
  else if (owner === view.viewer) { y = Y_FIELD_END - CUBE / 2 - 4; }
  else { y = Y_FIELD + CUBE / 2 + 4; }
  var value = view.cube_offered ? view.cube * 2 : view.cube;
  var g = el("g", { "class": "cube" + (view.cube_offered ? " offered" : ""), "data-value": value,
    transform: "translate(" + x + " " + y + ")" }, layers.dice);
  el("rect", { x: -CUBE / 2, y: -CUBE / 2, width: CUBE, height: CUBE, rx: 5 }, g);
  el("text", { y: 1, "class": value < 10 ? "" : "small" }, g, String(value));
}

export function topChecker(from) {
  var list = svg.querySelectorAll('.checker[data-point="' + from + '"]');
  var side = S.state.view.viewer, top = null;
  for (var i = 0; i < list.length; i++) { if (+list[i].getAttribute("data-side") === side) { top = list[i]; } }
  return top;
}

function drawZones(view) {
  var g = layers.zones, movable = sources(), dests = S.selected !== null ? destinations(S.selected) : {};
  var keys = [];
  for (var p = 1; p <= 24; p++) { keys.push(p); }
  keys.push("bar", "off");
  keys.forEach(function (key) {
    var b = zoneBox(view, key), classes = "zone";
    if (Object.prototype.hasOwnProperty.call(dests, key)) { classes += " lit"; }
    if (movable.indexOf(key) >= 0) { classes += " movable"; }
    if (S.selected === key) { classes += " selected"; }
    el("rect", { x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1], "class": classes, "data-point": key }, g);
  });
  if (!S.state || S.state.you === null) { return; }
  movable.forEach(function (from) {
    var top = topChecker(from);
    if (top) { top.classList.add(from === S.selected ? "selected" : "movable"); }
  });
  Object.keys(dests).forEach(function (to) {
    var key = to === "off" ? "off" : +to, c = landing(view, key);
    el("circle", { cx: c[0], cy: c[1], r: R - 3, "class": "target", "data-point": key }, layers.targets);
  });
}
