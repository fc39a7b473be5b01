/* Pointer input: tap and drag on one path, as lichess's chessground does (pointer events, mouse and finger
 * alike). A pointer goes down on a movable checker (it is selected, its destinations light up), moves (a
 * drag) or not (a tap), and a destination is chosen by a drop or by a second tap; a second tap on the
 * selected checker puts it down. What is directly under the pointer wins over the finger's slack. */

import { landing, zoneBox } from "./geometry.js";
import { destinations, destKeys, interactive, S, sources } from "./state.js";
import { layers, svg, topChecker } from "./draw.js";
import { render } from "./page.js";
import { press } from "./connection.js";
import { animate, centreOf, pending, place } from "./motion.js";

// Listen to the board's pointer (the board is mounted).
export function listen() {
  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", onPointerCancel);
  svg.addEventListener("lostpointercapture", onPointerCancel);
  svg.addEventListener("contextmenu", function (e) { e.preventDefault(); });
}

function toBoard(event) {
  var m = svg.getScreenCTM();
  if (!m) { return null; }
  var p = svg.createSVGPoint();
  p.x = event.clientX;
  p.y = event.clientY;
  p = p.matrixTransform(m.inverse());
  return [p.x, p.y];
}

function unitsPerPixel() {
  var m = svg.getScreenCTM();
  return m && m.a ? 1 / m.a : 1;
}

// What a press at board coordinates p is aimed at, among `groups` of zones (absolute points, "bar" or
// "off"), each group a meaning (the lit destinations, the movable checkers): {group, key} or null. The zone
// directly under p wins (the first group holding it); only on a spot that means nothing to the press (an
// empty column, the opponent's, the frame) does the finger's slack reach the nearest zone within it, so
// that narrow points on a phone still take a sloppy tap. The slack (more than half a point on a phone)
// never takes a press away from the checker under the finger.
function aim(p, groups) {
  if (!p) { return null; }
  var view = S.state.view, slack = 14 * unitsPerPixel(), best = null, bestDistance = Infinity;
  for (var i = 0; i < groups.length; i++) {
    for (var j = 0; j < groups[i].length; j++) {
      var b = zoneBox(view, groups[i][j]);
      var dx = Math.max(b[0] - p[0], 0, p[0] - b[2]), dy = Math.max(b[1] - p[1], 0, p[1] - b[3]);
      var d = Math.sqrt(dx * dx + dy * dy);
      if (d === 0) { return { group: i, key: groups[i][j] }; }
      if (d < bestDistance) { bestDistance = d; best = { group: i, key: groups[i][j] }; }
    }
  }
  return bestDistance <= slack ? best : null;
}

// The lit destination a press or a drop at p is aimed at, or null.
function destAt(p, from) {
  var hit = aim(p, [destKeys(from), sources()]);
  return hit && hit.group === 0 ? hit.key : null;
}

export function select(from) {
  S.selected = from;
  render();
  if (from !== null && S.tg && S.tg.HapticFeedback) { S.tg.HapticFeedback.selectionChanged(); }
}

// Send the step of the selected checker to `to`; the checker then waits there, dimmed (from `startAt`:
// where a drag dropped it).
function moveTo(to, startAt) {
  var from = S.selected, step = destinations(from)[to];
  if (!step) { return false; }
  var target = landing(S.state.view, to);
  S.selected = null;
  if (!press("move", step)) { S.selected = from; return false; }
  var piece = topChecker(from);
  if (piece) { pending(piece, startAt || centreOf(piece), target); }
  return true;
}

function onPointerDown(event) {
  if (event.button > 0 || !interactive()) { return; }
  if (S.gesture) { return; }  // a second finger
  var p = toBoard(event);
  var hit = aim(p, [S.selected !== null ? destKeys(S.selected) : [], sources()]);
  if (hit && hit.group === 0) {
    event.preventDefault();
    moveTo(hit.key);
    return;
  }
  var from = hit ? hit.key : null;
  if (from === null) {
    if (S.selected !== null) { select(null); }
    return;
  }
  event.preventDefault();
  var wasSelected = S.selected === from;
  if (!wasSelected) { select(from); }
  var piece2 = topChecker(from);
  S.gesture = { id: event.pointerId, from: from, start: p, wasSelected: wasSelected, piece: piece2,
    origin: piece2 ? centreOf(piece2) : p, floating: null, over: null };
  try { svg.setPointerCapture(event.pointerId); } catch (e) { /* the pointer is gone already */ }
}

function onPointerMove(event) {
  var g = S.gesture;
  if (!g || event.pointerId !== g.id) { return; }
  var p = toBoard(event);
  if (!p) { return; }
  if (!g.floating) {
    var moved = Math.hypot(p[0] - g.start[0], p[1] - g.start[1]) / unitsPerPixel();
    if (moved < 6 || !g.piece) { return; }
    g.floating = g.piece.cloneNode(true);
    g.floating.classList.add("floating");
    g.floating.classList.remove("movable");
    g.floating.removeAttribute("data-point");
    g.floating.removeAttribute("transform");
    layers.drag.appendChild(g.floating);
    g.piece.classList.add("lifted");
    svg.classList.add("dragging");
  }
  event.preventDefault();
  place(g.floating, p);
  var over = destAt(p, g.from);
  if (over !== g.over) {
    var zones = layers.zones.querySelectorAll(".zone.over");
    Array.prototype.forEach.call(zones, function (z) { z.classList.remove("over"); });
    if (over !== null) {
      var zone = layers.zones.querySelector('.zone[data-point="' + over + '"]');
      if (zone) { zone.classList.add("over"); }
    }
    g.over = over;
  }
}

function onPointerUp(event) {
  var g = S.gesture;
  if (!g || event.pointerId !== g.id) { return; }
  S.gesture = null;
  svg.classList.remove("dragging");
  if (!g.floating) {  // a tap: a second tap on the selected checker puts it down
    if (g.wasSelected) { select(null); }
    return;
  }
  var p = toBoard(event), to = destAt(p, g.from);
  if (to !== null && moveTo(to, p)) { return; }
  snapBack(g, p);
}

function onPointerCancel(event) {
  var g = S.gesture;
  if (!g || event.pointerId !== g.id) { return; }
  S.gesture = null;
  svg.classList.remove("dragging");
  if (g.floating) { snapBack(g, toBoard(event) || g.origin); }
}

// A drop that sends nothing: the checker flies back to its point, and the board is the state's again.
function snapBack(g, p) {
  S.selected = null;
  var floating = g.floating;
  animate(floating, p, g.origin, true).then(function () { render(); });
}
