/* The page around the board: the players' panels, the status lines, the buttons the state offers, the
 * connection's line and the toasts; render() draws the board and all of it from the state. */

import { interactive, S } from "./state.js";
import { t } from "./strings.js";
import { $, clear, html } from "./dom.js";
import { drawBoard } from "./draw.js";
import { drawClocks } from "./clock.js";
import { drawMoves } from "./moves.js";

const BUTTONS = ["undo", "done", "roll", "double", "take", "pass", "hint", "rematch", "resign"];
// The page's own symbol before each button's word (the word comes from the catalogue).
const SYMBOLS = { undo: "↶", done: "✓", roll: "⚂", take: "✓", pass: "✕", resign: "⚑", hint: "?", rematch: "↻" };

export function render() {
  var state = S.state;
  document.documentElement.lang = S.lang;
  document.documentElement.dir = S.dir;
  drawBoard();
  S.gesture = null;
  renderConn();
  $("home-link").textContent = (S.dir === "rtl" ? "→ " : "← ") + t("home");
  if (!state) { return; }
  var view = state.view;
  drawPanel($("panel-top"), view, 1 - view.viewer);
  drawPanel($("panel-bottom"), view, view.viewer);
  $("status").textContent = view.status || "";
  var match = $("match");
  match.hidden = !(view.match_to > 1);
  match.textContent = view.match_to > 1 ? t("match", { n: view.match_to }) : "";  // the score: in the panels
  var message = $("message");
  message.hidden = !state.message;
  message.textContent = state.message || "";
  drawButtons();
  drawMoves();
  drawClocks();
  keepFocus();
}

// After a move made from the keyboard, the focus stays on the moves (or the buttons once none are left).
function keepFocus() {
  if (!S.keepFocus || !interactive()) { return; }
  S.keepFocus = false;
  var next = document.querySelector("#moves button:not([disabled])") ||
    document.querySelector("#buttons button:not([disabled])");
  if (next) { next.focus(); }
}

function drawPanel(node, view, side) {
  clear(node);
  node.className = "panel" + (view.to_move === side ? " turn" : "") + (view.winner === side ? " winner" : "");
  node.setAttribute("data-side", side);
  html("span", "swatch " + (side === 0 ? "white" : "black"), node);
  html("span", "name", node, view.names[side] || t(side === 0 ? "white" : "black"));
  if (view.winner === side) { html("span", "star", node, "★"); }
  if (S.state.you === side) { html("span", "you", node, t("you")); }
  if (view.match_to > 1) { html("span", "score", node, String(view.score[side])); }
  if (S.state.clock) { html("span", "clock", node).setAttribute("data-side", side); }
  var pips = html("span", "pips", node);
  html("span", "pips-label", pips, t("pips") + " ");
  html("b", "pips-value", pips, String(view.pips[side]));
}

function label(action, view) {
  var cube = view.cube || 1;
  var word = t(action, action === "double" || action === "take" ? { value: cube * 2 } : undefined);
  return SYMBOLS[action] ? SYMBOLS[action] + " " + word : word;
}

function drawButtons() {
  var box = $("buttons"), state = S.state;
  clear(box);
  if (!state) { return; }
  if (state.you !== null) {
    BUTTONS.forEach(function (action) {
      if ((state.actions || []).indexOf(action) < 0) { return; }
      var b = html("button", "action " + action, box, label(action, state.view));
      b.type = "button";
      b.setAttribute("data-action", action);
      b.disabled = !interactive();
    });
  }
  if (typeof state.review === "string" && state.review) { drawReviewLink(box, state.review); }
}

// The finished game's review (static/review.html, "GAME/N"), a player's and a watcher's (the review checks
// who may see it): a link in the page's folder, Telegram's launch data kept.
function drawReviewLink(box, game) {
  var to = new URL("./", location.href);
  to.search = "?review=" + encodeURIComponent(game);
  to.hash = location.hash;
  var link = html("a", "action review", box, (S.dir === "rtl" ? "\u25C2 " : "\u25B8 ") + t("review"));
  link.href = to.href;
  link.setAttribute("data-game", game);
}

export function toast(text) {
  var node = $("toast");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(S.toastTimer);
  S.toastTimer = setTimeout(function () { node.hidden = true; }, 4000);
}

export function renderConn() {
  var node = $("conn");
  if (S.fatal) { return; }
  if (S.open && S.state && !S.fresh) { node.hidden = true; }
  else {
    node.hidden = false;
    node.textContent = t(S.retries > 0 || S.state ? "reconnecting" : "connecting");
  }
  if (S.state && S.state.you === null && S.open) { node.hidden = false; node.textContent = t("watching"); }
}

export function fatal(text) {
  S.fatal = true;
  var node = $("conn");
  node.hidden = false;
  node.textContent = text;
  node.classList.add("error");
}
