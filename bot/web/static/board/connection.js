/* The one WebSocket at ../ws (next to static/): a hello (the game, Telegram's initData), answered by the
 * welcome (the page's words, the server's time), then states in and presses out, each press with the
 * version it was made on. A lost socket connects again (backoff with jitter); a press with no answer in
 * 10 s starts a fresh connection, which asks for the truth. */

import { interactive, S, sources } from "./state.js";
import { t, welcome } from "./strings.js";
import { measureOffset } from "./clock.js";
import { fatal, render, renderConn, toast } from "./page.js";

export function connect() {
  clearTimeout(S.timer);
  if (S.fatal) { return; }
  var ws;
  try { ws = new WebSocket(S.wsURL); } catch (e) { scheduleReconnect(); return; }
  S.ws = ws;
  S.open = false;
  S.fresh = true;
  renderConn();
  ws.onopen = function () {
    if (S.ws !== ws) { return; }
    S.open = true;
    S.helloAt = Date.now();
    send({ type: "hello", game: S.game, initData: S.initData });
  };
  ws.onmessage = function (event) {
    if (S.ws !== ws) { return; }
    var message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    onMessage(message);
  };
  ws.onclose = function () {
    if (S.ws !== ws) { return; }
    S.ws = null;
    S.open = false;
    S.inflight = false;
    clearTimeout(S.answerTimer);
    render();
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  if (S.fatal) { return; }
  var delay = Math.min(10000, 400 * Math.pow(2, S.retries)) * (0.75 + Math.random() * 0.5);
  S.retries += 1;
  renderConn();
  clearTimeout(S.timer);
  S.timer = setTimeout(connect, delay);
}

function onMessage(message) {
  if (message.type === "welcome") {
    welcome(message);
    measureOffset(message.now, S.helloAt);
    render();
  } else if (message.type === "state") {
    if (message.game !== S.game || !message.view) { return; }
    if (!S.fresh && S.state && message.version < S.state.version) { return; }  // an older push
    if (S.state && message.version !== S.state.version) { S.selected = null; }
    S.fresh = false;
    S.retries = 0;
    S.state = message;
    S.inflight = false;
    clearTimeout(S.answerTimer);
    if (S.selected !== null && sources().indexOf(S.selected) < 0) { S.selected = null; }
    render();
    if (!S.drawn) {  // bench/webapp.py reads it: the time to the first board
      S.drawn = true;
      if (window.performance && performance.mark) { performance.mark("nardy:first-board"); }
    }
  } else if (message.type === "refused") {
    S.inflight = false;
    clearTimeout(S.answerTimer);
    S.selected = null;
    render();  // the board as the last state says: a dropped checker goes back
    toast(message.text || "");
  } else if (message.type === "error") {
    if (message.fatal) {
      fatal(message.text || "");
      if (S.ws) { S.ws.close(); }
    } else {
      toast(message.text || "");
    }
  }
}

function send(message) {
  if (!S.ws || !S.open) { return false; }
  S.ws.send(JSON.stringify(message));
  return true;
}

export function press(action, step) {
  if (!interactive()) { return false; }
  var message = { type: "press", version: S.state.version, action: action };
  if (step) { message.src = step.src; message.die = step.die; }
  if (!send(message)) { return false; }
  lock();
  return true;
}

// After a press: the board waits for the server (no second press) until a state or a refusal comes.
function lock() {
  S.inflight = true;
  render();
  clearTimeout(S.answerTimer);
  S.answerTimer = setTimeout(function () {  // no answer: a fresh connection asks for the truth
    if (S.inflight && S.ws) { toast(t("noAnswer")); S.ws.close(); }
  }, 10000);
}
