/* The Mini App's home, the entry of its modules: asks the server for the player's home (api/home), opens
 * what a Direct Link names (api/open), starts a game against the computer (api/computer) and opens a game's
 * board (../?game=<id>). Every request carries Telegram's initData (the sandbox: its cookie); the server
 * decides everything. No framework, no build step, no inline script or style (a strict CSP).
 *
 *   view.js   the page drawn from a `home` (DOM built with textContent: no name is ever HTML)
 *   main.js   this: Telegram's data, the requests, the ticking clocks
 * Telegram's script and theme are the board's (../board/telegram.js). */

import { S } from "../board/state.js";
import { joinTelegram, whenReady } from "../board/telegram.js";
import { busy, render, showInvite, showNote, showSeeking, tick, toast } from "./view.js";

const BASE = new URL("../../", import.meta.url);  // static/home/main.js -> the page's folder
const H = { initData: "", loadedAt: 0, token: "", poll: 0, words: {} };
const POLL_MS = 2000;  // how often a waiting search asks whether it is over
const REFRESH_MS = 20000;  // how often a visible home asks for its games again (whose turn, the clocks)

function request(path, body) {
  var options = {
    headers: { Authorization: "tma " + H.initData },
    credentials: "same-origin",
    cache: "no-store",
  };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  return fetch(new URL("api/" + path, BASE), options).then(function (answer) {
    return answer.json().catch(function () { return {}; }).then(function (data) {
      if (!answer.ok) { throw new Error(data.error || "HTTP " + answer.status); }
      return data;
    });
  });
}

export function openGame(id) {
  location.href = pageURL("?game=" + encodeURIComponent(id) + "&from=home");  // the board's way back here
}

// The page's address for `search` (a board, a review), with Telegram's launch data where it came in it.
function pageURL(search) {
  var to = new URL(BASE);
  to.search = search;
  to.hash = location.hash;
  return to.href;
}

// A finished game's review (static/review.html): its key "GAME/N", as /history's entry holds it.
function reviewURL(key) { return pageURL("?review=" + encodeURIComponent(key)); }

// Telegram's way to invite (Bot API 6.7+, the bot's inline mode on): the chat the player picks gets the
// bot's name typed in, and so today's inline challenge card.
function canSwitchInline() {
  var tg = S.tg;
  return !!(tg && typeof tg.switchInlineQuery === "function" && tg.isVersionAtLeast && tg.isVersionAtLeast("6.7"));
}

// Invite a friend: Telegram's inline challenge card where it can; else an invitation link (api/invite),
// shown, shared through Telegram's share sheet where the page is in Telegram, copied by Share elsewhere.
function invite(format, done) {
  if (canSwitchInline()) {
    try { S.tg.switchInlineQuery("", ["users", "groups"]); done(); return; } catch (e) { /* inline mode off */ }
  }
  request("invite", { format: format }).then(function (answer) {
    showInvite(answer);
    document.getElementById("share").onclick = function () { share(answer); };
    share(answer);
    done();
  }, function (err) {
    toast(err.message);
    done();
  });
}

function share(answer) {
  var tg = S.tg;
  if (tg && typeof tg.openTelegramLink === "function" && tg.isVersionAtLeast && tg.isVersionAtLeast("6.1")) {
    tg.openTelegramLink(answer.share);
    return;
  }
  var field = document.getElementById("invite-link");
  field.focus();
  field.select();
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(answer.link).then(function () { toast(H.words.copied); }, function () { /* selected */ });
  }
}

function load() {
  return request("home").then(function (home) {
    H.loadedAt = Date.now() / 1000;
    H.words = home.words;
    render(home, { open: openGame, start: startGame, seek: seek, invite: invite, reviewURL: reviewURL,
      inline: canSwitchInline() });
    document.getElementById("stop-seek").onclick = stopSeeking;
    waitFor(home.seeking);
  }, function (err) {
    busy(false);
    showNote(err.message);
  });
}

function startGame(format, level, done) {
  request("computer", { format: format, level: level }).then(function (answer) {
    openGame(answer.game);
  }, function (err) {
    toast(err.message);
    done();
  });
}

// Quick match: look for an opponent; paired at once, the board opens; else the page waits, asking the
// server every POLL_MS whether the search is over (paired: the board opens; timed out or stopped: the form).
function seek(variant, length, clock, done) {
  request("seek", { variant: variant, length: length, clock: clock }).then(function (answer) {
    if (answer.game) { openGame(answer.game); return; }
    showSeeking(answer.seeking);
    waitFor(answer.seeking);
  }, function (err) {
    toast(err.message);
    done();
  });
}

function waitFor(seeking) {
  clearTimeout(H.poll);
  H.token = seeking ? seeking.token : "";
  if (seeking) { H.poll = setTimeout(poll, POLL_MS); }
}

function poll() {
  request("seek").then(function (answer) {
    if (answer.seeking) { waitFor(answer.seeking); return; }
    H.token = "";
    if (answer.game) { openGame(answer.game); return; }
    showSeeking(null);
  }, function () { H.poll = setTimeout(poll, POLL_MS); });
}

function stopSeeking() {
  if (!H.token) { return; }
  document.getElementById("stop-seek").disabled = true;
  clearTimeout(H.poll);
  request("stop", { token: H.token }).then(function () {
    H.token = "";
    showSeeking(null);
  }, function (err) {
    toast(err.message);
    poll();  // over already: paired (its board opens) or timed out
  });
}

// A Direct Link's startapp (a game, an invitation) is opened once per launch: coming back from that board
// shows the home.
function openStartParam(param) {
  if (param.indexOf("tourney_") === 0) { // a tournament card's 📲 Standings (the server sends most there itself)
    location.replace("?tourney=" + encodeURIComponent(param.slice(8)) + location.hash);
    return true;
  }
  var key = "nardy:opened:" + param, seen = false;
  try { seen = !!sessionStorage.getItem(key); sessionStorage.setItem(key, "1"); } catch (e) { /* off */ }
  if (seen) { return false; }
  // A review's link, r<N>_<GAME> (a game id's 10 characters: no game id or invitation token has this shape),
  // once per launch as a game is: back from the review is the home
  var review = /^r(\d{1,6})_([A-Za-z0-9_-]{10})$/.exec(param);
  if (review) {
    location.replace("?review=" + encodeURIComponent(review[2] + "/" + review[1]) + location.hash);
    return true;
  }
  request("open", { start: param }).then(function (answer) { openGame(answer.game); }, function (err) {
    toast(err.message);
    load();
  });
  return true;
}

function start() {
  joinTelegram();
  var unsafe = (S.tg && S.tg.initDataUnsafe) || {};
  H.initData = (S.tg && S.tg.initData) || "";
  var param = unsafe.start_param || new URLSearchParams(location.search).get("tgWebAppStartParam") || "";
  if (param && openStartParam(param)) { return; }
  load();
  setInterval(function () { tick(Date.now() / 1000 - H.loadedAt); }, 1000);
  setInterval(function () { if (!document.hidden && !H.token) { load(); } }, REFRESH_MS);
  // Back from a board (the browser's back, the page kept in memory): the games as they are now.
  window.addEventListener("pageshow", function (event) { if (event.persisted) { load(); } });
}

whenReady(start);
