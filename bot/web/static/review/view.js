/* The review drawn from its JSON (api/review): the title and result, the players' figures, the list of the
 * plays with their marks, the downloads, the dice proof; and `show(k)`: frame k on the board (the board's
 * own drawing, draw.js), the line a screen reader reads, the play marked in the list and on the graph, and
 * the expert's better play written and drawn as arrows when the play shown lost equity. Every name and text
 * goes in as textContent: none is ever HTML. */

import { S } from "../board/state.js";
import { t } from "../board/strings.js";
import { $, clear, html } from "../board/dom.js";
import { drawBoard } from "../board/draw.js";
import { drawBetter } from "./better.js";
import { drawGraph, graphAt } from "./graph.js";
import { verify } from "./proof.js";

// The words of the tables below, by their keys: the step buttons (their ids), each side's figures (the
// key of the analysis' figure), the proof's lines.
const STEP_LABELS = ["first", "back", "forward", "last"];
const FIGURES = [["errorRate", "error_rate"], ["doubtful", "doubtful"], ["errors", "errors"],
  ["blunders", "blunders"], ["decisions", "decisions"]];
const PROOF_LINES = ["commitment", "seed", "parts", "clients"];

// The review shown (its JSON), the frame shown, each play's analysis by its number, autoplay's timer, and
// whether the better play is shown on the position before the play (`before`: until the next step).
export const R = { review: null, frame: 0, judged: {}, timer: 0, before: false };

export function frames() { return R.review ? R.review.frames.length : 0; }

function sideWord(side) { return t(side === 0 ? "white" : "black"); }

// A run written left to right (a play "13/7 8/7*", dice "6-5", a loss "−0.154", a mark "?!") kept so inside
// a page read from the right: between Unicode's left-to-right isolate and its pop (nothing on a page read
// from the left).
function ltr(text) { return S.dir === "rtl" ? "\u2066" + text + "\u2069" : text; }

function dice(play) { return ltr(play.dice.join("-")); }

function loss(value) { return ltr(value.toFixed(3)); }

// What frame `k` is, in words: the start, "Play 12 of 87: Black 6-5 13/7 13/8", the result.
export function saying(k) {
  var review = R.review, plays = review.plays;
  if (k === 0) { return t("start"); }
  if (k > plays.length) { return review.result; }
  var play = plays[k - 1], judged = R.judged[play.n];
  var text = t("playOf", { n: k, total: plays.length, side: sideWord(play.side), dice: dice(play),
    play: ltr(play.text) });
  return judged && judged.mark ? text + " " + ltr(judged.mark) : text;
}

export function render(review, handlers) {
  R.review = review;
  document.title = review.title;
  $("title").textContent = review.title;
  $("result").textContent = review.result;
  $("home").textContent = t("home");
  $("plays-title").textContent = t("plays");
  $("analysis-title").textContent = t("analysis");
  $("show-better").textContent = t("showBetter");
  STEP_LABELS.forEach(function (key) {
    $(key).setAttribute("aria-label", t(key));
    $(key).title = t(key);
  });
  autoplayShown(false);
  var list = $("plays");
  clear(list);
  review.plays.forEach(function (play, i) {
    var item = html("li", "", list), button = html("button", "play side-" + play.side, item);
    button.type = "button";
    button.tabIndex = -1;
    button.dataset.frame = String(i + 1);
    html("span", "no", button, String(play.n));
    html("span", "swatch " + (play.side === 0 ? "white" : "black"), button).setAttribute("aria-hidden", "true");
    html("span", "dice", button, dice(play));
    html("span", "text", button, ltr(play.text));
    html("span", "mark", button, play.forced ? t("forced") : "");
    html("span", "loss", button, "");
    button.addEventListener("click", function () { handlers.go(i + 1); });
  });
  renderDownloads(review.downloads || [], handlers.download);
  renderProof(review.proof);
  renderAnalysis(review.analysis, handlers);
  $("cols").hidden = false;
}

// The analysis (or, while it is null, the line saying it is under way): each side's figures, each play's
// loss and mark in the list, the graph.
export function renderAnalysis(analysis, handlers) {
  var review = R.review;
  review.analysis = analysis;
  R.judged = {};
  $("analysing").hidden = !!analysis;
  $("analysing").textContent = analysis ? "" : t("analysing");
  $("retry").hidden = true;
  $("figures").hidden = !analysis;
  $("graph-box").hidden = !analysis;
  if (!analysis) { return; }
  analysis.plays.forEach(function (judged) { R.judged[judged.n] = judged; });
  renderFigures(analysis.sides || []);
  document.querySelectorAll("#plays button.play").forEach(function (button) {
    var play = review.plays[+button.dataset.frame - 1], judged = R.judged[play.n];
    if (!judged) { return; }
    button.querySelector(".mark").textContent = judged.mark ? ltr(judged.mark) : "";
    button.querySelector(".loss").textContent = judged.loss > 0 ? ltr("−" + judged.loss.toFixed(3)) : "";
    if (judged.mark) { button.classList.add("marked", judged.mark === "??" ? "blunder" : judged.mark === "?" ?
      "error" : "doubtful"); }
  });
  var marks = analysis.plays.filter(function (j) { return j.mark; }).map(function (j) {
    return { frame: frameOf(j.n), mark: j.mark, side: j.side };
  });
  $("graph-title").textContent = t("graph");
  drawGraph($("graph"), analysis.chances || [], marks, S.dir === "rtl", t("graph"), handlers.go);
}

// The analysis could not be had now (the workers are busy): its words and a button to ask again.
export function analysisFailed(message, retry) {
  $("analysing").hidden = false;
  $("analysing").textContent = message;
  var button = $("retry");
  button.textContent = t("retry");
  button.hidden = false;
  button.disabled = false;
  button.onclick = function () { button.disabled = true; retry(); };
}

function frameOf(n) {
  var plays = R.review.plays;
  for (var i = 0; i < plays.length; i++) { if (plays[i].n === n) { return i + 1; } }
  return 0;
}

function renderFigures(sides) {
  var table = $("figures");
  clear(table);
  var head = html("tr", "", html("thead", "", table));
  html("th", "", head, "");
  R.review.names.forEach(function (name, side) {
    var cell = html("th", "", head);
    cell.scope = "col";
    html("span", "swatch " + (side === 0 ? "white" : "black"), cell).setAttribute("aria-hidden", "true");
    html("span", "who", cell, name);
    if (R.review.you === side) { html("span", "you", cell, t("you")); }
  });
  var body = html("tbody", "", table);
  FIGURES.forEach(function (row) {
    var line = html("tr", "", body), label = html("th", "", line, t(row[0]));
    label.scope = "row";
    sides.forEach(function (side) {
      var value = side[row[1]];
      html("td", "", line, row[1] === "error_rate" ? Number(value).toFixed(1) : String(value));
    });
  });
}

function renderDownloads(downloads, download) {
  var list = $("downloads");
  clear(list);
  $("downloads-title").textContent = t("downloads");
  $("downloads-box").hidden = !downloads.length;
  downloads.forEach(function (d) {
    var link = html("a", "download", html("li", "", list), t(d.kind));
    link.href = d.url;
    link.setAttribute("download", d.name);
    link.dataset.kind = d.kind;
    link.addEventListener("click", function (event) { download(event, d); });
  });
}

function renderProof(proof) {
  $("proof-title").textContent = t("proof");
  $("proof-box").hidden = false;
  var verdict = $("proof-verdict"), list = $("proof");
  clear(list);
  if (!proof) { verdict.textContent = t("noProof"); return; }
  var values = { commitment: proof.commitment, seed: proof.seed, parts: (proof.parts || []).join(" "),
    clients: (proof.clients || []).join(" · ") };
  PROOF_LINES.forEach(function (key) {
    if (!values[key]) { return; }
    html("dt", "", list, t(key));
    html("dd", "hex", list, values[key]);
  });
  verdict.textContent = t("checking");
  verdict.className = "verdict";
  verify(proof).then(function (answer) {
    verdict.dataset.result = answer.ok ? "verified" : answer.failed;
    verdict.classList.add(answer.ok ? "ok" : "bad");
    verdict.textContent = answer.ok ? "✓ " + t("verified") + " · " + t("rollsChecked", { count: answer.count })
      : "✗ " + t(answer.failed, answer.args);
  });
}

// The position before play `k` (frame k - 1's checkers) with that play's dice to play: where the better
// play's arrows start from checkers that are still there.
function before(k, play) {
  var view = Object.assign({}, R.review.frames[k - 1]);
  view.dice = play.dice.slice();
  view.dice_used = [];
  view.last_move = [];
  view.last_mover = null;
  view.to_move = play.side;
  view.winner = null;
  return view;
}

// Frame `k` everywhere: the board, the spoken line, the list, the graph, the better play (drawn on the
// position after the play made, or before it while "Show the better play" is pressed: a step lets go).
export function show(k) {
  var review = R.review, n = review.frames.length;
  k = Math.max(0, Math.min(n - 1, k));
  if (k !== R.frame) { R.before = false; }
  R.frame = k;
  var play = k >= 1 && k <= review.plays.length ? review.plays[k - 1] : null;
  var judged = play ? R.judged[play.n] : null;
  var lost = !!(judged && judged.loss > 0), earlier = lost && R.before;
  var view = earlier ? before(k, play) : review.frames[k];
  S.state = { view: view, version: k, you: null, steps: [] };
  drawBoard();
  var board = $("board");
  board.setAttribute("data-frame", String(k));
  board.setAttribute("data-before", earlier ? "1" : "0");
  var words = saying(k);
  $("now").textContent = words;
  var better = $("better"), toggle = $("show-better");
  if (lost) {
    drawBetter(view, judged.side, judged.best_moves);
    better.textContent = t("better", { play: ltr(judged.best), loss: loss(judged.loss) });
    better.hidden = false;
  } else {
    drawBetter(view, 0, []);
    better.textContent = judged ? t("bestPlay") : "";
    better.hidden = !judged;
  }
  toggle.hidden = !lost;
  toggle.setAttribute("aria-pressed", earlier ? "true" : "false");
  board.setAttribute("data-better", lost ? "1" : "0");
  var list = $("plays"), inList = list.contains(document.activeElement), current = null;
  list.querySelectorAll("button.play").forEach(function (button) {
    var here = +button.dataset.frame === k || (k === 0 && button.dataset.frame === "1") ||
      (k > review.plays.length && +button.dataset.frame === review.plays.length);
    button.tabIndex = here ? 0 : -1;
    if (+button.dataset.frame === k) { button.setAttribute("aria-current", "step"); current = button; }
    else { button.removeAttribute("aria-current"); }
    if (here && !current) { current = button; }
  });
  if (current) {
    if (inList) { current.focus({ preventScroll: true }); }
    var top = current.offsetTop - list.offsetTop, bottom = top + current.offsetHeight;
    if (top < list.scrollTop) { list.scrollTop = top; }
    else if (bottom > list.scrollTop + list.clientHeight) { list.scrollTop = bottom - list.clientHeight; }
  }
  graphAt(k, words);
}

// "Show the better play" (its button, the key B): the position before the play shown with the better
// play's arrows, or back to the play made; nothing where the play shown lost nothing.
export function toggleBefore() {
  if ($("show-better").hidden) { return; }
  R.before = !R.before;
  show(R.frame);
}

export function autoplayShown(on) {
  var button = $("autoplay");
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.setAttribute("aria-label", t(on ? "pause" : "autoplay"));
  button.title = t(on ? "pause" : "autoplay");
  button.querySelector(".icon").textContent = on ? "❚❚" : "▶";
}
