/* The board's geometry in SVG units, as render/layout.py draws the chat's picture: where each point, checker,
 * the bar and the trays are, for the viewer's side. Pure: no page, no state. */

export const CHECKER = 50, R = 25, POINT_W = 54, STACK = 5, BAR_STACK = 4, FRAME = 16, BAR_W = 52, TRAY_W = 66;
export const HALF_W = 6 * POINT_W, TRI_LEN = STACK * CHECKER, GAP = 72, NUM_H = 26, DIE = 46, DIE_GAP = 10;
export const SLAB_H = 15, SLAB_W = 48, CUBE = 40;
export const X_LEFT = FRAME, X_BAR = X_LEFT + HALF_W, X_RIGHT = X_BAR + BAR_W, X_RIGHT_END = X_RIGHT + HALF_W;
export const X_TRAY = X_RIGHT_END + FRAME, WIDTH = X_TRAY + TRAY_W + FRAME;
export const Y_BOARD = 56, Y_FIELD = Y_BOARD + NUM_H, Y_GAP = Y_FIELD + TRI_LEN, Y_GAP_END = Y_GAP + GAP;
export const Y_FIELD_END = Y_GAP_END + TRI_LEN, Y_BOARD_END = Y_FIELD_END + NUM_H, Y_MID = (Y_GAP + Y_GAP_END) / 2;

// engine/sides.py: a side's own number of absolute point 1..24 (an involution: also to_absolute)
export function own(game, side, point) {
  if (side === 0) { return point; }
  if (game === "short") { return 25 - point; }
  return point <= 12 ? point + 12 : point - 12;
}

export function slotX(slot) {
  var left, column;
  if (slot <= 6) { left = X_RIGHT; column = 6 - slot; }
  else if (slot <= 12) { left = X_LEFT; column = 12 - slot; }
  else if (slot <= 18) { left = X_LEFT; column = slot - 13; }
  else { left = X_RIGHT; column = slot - 19; }
  return left + column * POINT_W + POINT_W / 2;
}

export function isTop(slot) { return slot >= 13; }

export function checkerCenter(slot, index) {
  index = Math.max(0, Math.min(index, STACK - 1));
  var x = slotX(slot);
  return isTop(slot) ? [x, Y_FIELD + R + index * CHECKER] : [x, Y_FIELD_END - R - index * CHECKER];
}

export function barCenter(view, side, index) {
  index = Math.max(0, Math.min(index, BAR_STACK - 1));
  var x = X_BAR + BAR_W / 2;
  return side === view.viewer ? [x, Y_GAP - R - 5 - index * CHECKER] : [x, Y_GAP_END + R + 5 + index * CHECKER];
}

export function trayBox(view, side) {
  return side === view.viewer ? [X_TRAY + 5, Y_GAP_END, X_TRAY + TRAY_W - 5, Y_FIELD_END]
    : [X_TRAY + 5, Y_FIELD, X_TRAY + TRAY_W - 5, Y_GAP];
}

export function numberCenter(slot) {
  return [slotX(slot), isTop(slot) ? Y_BOARD + NUM_H / 2 : Y_FIELD_END + NUM_H / 2];
}

// The column of one point (its hit zone): the triangle's half of the field and half of the middle strip.
export function pointZone(slot) {
  var x = slotX(slot) - POINT_W / 2;
  return isTop(slot) ? [x, Y_FIELD, x + POINT_W, Y_MID] : [x, Y_MID, x + POINT_W, Y_FIELD_END];
}

export function zoneBox(view, key) {
  if (key === "bar") { return [X_BAR, Y_FIELD, X_RIGHT, Y_FIELD_END]; }
  if (key === "off") { return [X_RIGHT_END, Y_FIELD, WIDTH, Y_FIELD_END]; }
  return pointZone(own(view.game, view.viewer, key));
}

export function landing(view, to) {
  if (to === "off") { var b = trayBox(view, view.viewer); return [(b[0] + b[2]) / 2, b[3] - 3 - SLAB_H / 2]; }
  var n = view.points[to - 1], mine = view.viewer === 0 ? n > 0 : n < 0;
  var slot = own(view.game, view.viewer, to);
  return checkerCenter(slot, n && !mine ? 0 : Math.abs(n));
}
