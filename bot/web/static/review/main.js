/* A finished game's review, the entry of its modules: asks the server for the review (api/review?game=GAME/N,
 * the page's ?review=), draws it with the board's own modules (../board/draw.js and its geometry, words,
 * theme), asks for the analysis while it is not there yet (api/review/analysis; busy: a button to ask
 * again), downloads the record through Telegram where it can, and goes back to the home by Telegram's
 * BackButton. Every request carries Telegram's initData (the sandbox: its cookie); the server decides
 * who may see what. No framework, no build step, no inline script or style (a strict CSP).
 *
 *   view.js    the page drawn from the review (textContent only: no name is ever HTML), `show(frame)`
 *   steps.js   the buttons, the keys, autoplay
 *   better.js  the expert's better play as arrows on the board
 *   graph.js   the win-chance graph
 *   proof.js   the dice checked with crypto.subtle */

import { S } from "../board/state.js";
import { $ } from "../board/dom.js";
import { mount } from "../board/draw.js";
import { joinTelegram, whenReady } from "../board/telegram.js";
import { analysisFailed, R, render, renderAnalysis, show } from "./view.js";
import { go, wire } from "./steps.js";

const BASE = new URL("../../", import.meta.url);  // static/review/main.js -> the page's folder

function request(path, game) {
  var url = new URL("api/" + path, BASE);
  url.searchParams.set("game", game);
  return fetch(url, {
    headers: { Authorization: "tma " + S.initData },
    credentials: "same-origin",
    cache: "no-store",
  }).then(function (answer) {
    return answer.json().catch(function () { return {}; }).then(function (data) {
      if (!answer.ok) { throw new Error(data.error || "HTTP " + answer.status); }
      return data;
    });
  });
}

function home() {
  var to = new URL(BASE);
  to.hash = location.hash;  // Telegram's launch data, where it came in the address
  return to.href;
}

// A record's file: by Telegram's own download (Bot API 8.0) inside Telegram, else the link as it is.
function download(event, d) {
  var tg = S.tg;
  if (!tg || typeof tg.downloadFile !== "function") { return; }
  if (tg.isVersionAtLeast && !tg.isVersionAtLeast("8.0")) { return; }
  event.preventDefault();
  tg.downloadFile({ url: new URL(d.url, BASE).href, file_name: d.name });
}

function askAnalysis() {
  request("review/analysis", S.game).then(function (answer) {
    renderAnalysis(answer.analysis, { go: go });
    show(R.frame);
    if (performance.mark) { performance.mark("nardy:review-analysed"); }
  }, function (err) { analysisFailed(err.message, askAnalysis); });
}

function note(text) {
  $("note").textContent = text;
  $("review").setAttribute("aria-busy", "false");
}

function start() {
  joinTelegram();
  S.initData = (S.tg && S.tg.initData) || "";
  $("home").href = home();
  if (S.tg) {
    var back = S.tg.BackButton;
    if (back && back.show && back.onClick) {
      back.onClick(function () { location.href = home(); });
      back.show();
    }
  }
  S.game = new URLSearchParams(location.search).get("review") || "";
  if (!S.game) { note("No game to review."); return; }
  mount($("board"));
  request("review", S.game).then(function (review) {
    S.words = review.words || {};
    S.lang = review.lang || "en";
    S.dir = review.dir === "rtl" ? "rtl" : "ltr";
    document.documentElement.lang = S.lang;
    document.documentElement.dir = S.dir;
    render(review, { go: go, download: download });
    wire();
    show(0);
    $("review").setAttribute("aria-busy", "false");
    if (performance.mark) { performance.mark("nardy:review-ready"); }
    if (!review.analysis) { askAnalysis(); } else if (performance.mark) { performance.mark("nardy:review-analysed"); }
  }, function (err) { note(err.message); });
}

whenReady(start);
