/* The standings page: a tournament's table (an arena: places, points, streaks, who plays now, the time left)
 * or bracket (a knockout), read from tourney/standings every few seconds (the answer says how often), with
 * Telegram's signed initData; its words come with every answer, from the bot's catalogues
 * (bot/web/tourney_words.py). No inline script or style: the page's CSP forbids them. */

import { whenReady } from "../board/telegram.js";

const PREFIX = "tourney_"; // bot/model/tournament.py STANDINGS_START

var state = { tg: null, id: "", initData: "", words: {}, timer: 0 };

function el(tag, text, cls) {
  var node = document.createElement(tag);
  if (text !== undefined && text !== null) { node.textContent = String(text); }
  if (cls) { node.className = cls; }
  return node;
}

function w(key, values) {
  var text = state.words[key] || key;
  Object.keys(values || {}).forEach(function (name) { text = text.split("{" + name + "}").join(values[name]); });
  return text;
}

function clock(seconds) {
  var m = Math.floor(seconds / 60), s = seconds % 60;
  return m + ":" + (s < 10 ? "0" : "") + s;
}

function setStatus(text) { document.getElementById("status").textContent = text; }

function arenaTable(view) {
  var table = el("table"), head = el("tr");
  ["#", "", w("points"), "", ""].forEach(function (h, i) { head.appendChild(el("th", h, i === 2 ? "num" : "")); });
  table.appendChild(head);
  view.standings.forEach(function (line) {
    var row = el("tr", undefined, view.you && line.name === view.you ? "you" : "");
    row.appendChild(el("td", line.place, "num"));
    row.appendChild(el("td", line.name, "name"));
    row.appendChild(el("td", line.points, "num points"));
    row.appendChild(el("td", line.fire ? "🔥" : ""));
    row.appendChild(el("td", line.playing ? "🎲" : ""));
    table.appendChild(row);
  });
  return table;
}

function bracket(view) {
  var box = el("div");
  view.rounds.forEach(function (level, i) {
    if (i === view.rounds.length - 1) { return; } // the champion's slot: shown in the status
    box.appendChild(el("h2", w("round", { n: i + 1 })));
    var list = el("ol", undefined, "round");
    for (var k = 0; k + 1 < level.length; k += 2) {
      list.appendChild(el("li", [level[k], level[k + 1]].map(function (name) {
        return name === null ? "…" : name === "" ? w("bye") : name;
      }).join(" — ")));
    }
    box.appendChild(list);
  });
  return box;
}

function show(view) {
  state.words = view.words || {};
  document.documentElement.lang = view.lang || "en";
  document.documentElement.dir = view.dir || "ltr";
  document.getElementById("title").textContent = "🏆 " + (view.title || "") + " · " + view.format;
  if (view.stage === "over") { setStatus(w("finished")); }
  else if (view.stage === "cancelled") { setStatus(w("cancelled")); }
  else if (view.starts_in !== null) { setStatus(w("startsIn", { time: clock(view.starts_in) })); }
  else if (view.left !== null) { setStatus(w("timeLeft", { time: clock(view.left) })); }
  else { setStatus(""); }
  var table = document.getElementById("table");
  table.replaceChildren();
  if (view.standings) { table.appendChild(el("h2", w("standings"))); table.appendChild(arenaTable(view)); }
  else if (view.rounds) { table.appendChild(el("h2", w("bracket"))); table.appendChild(bracket(view)); }
  else {
    table.appendChild(el("h2", w("players")));
    var names = el("ul", undefined, "games");
    (view.players || []).forEach(function (name) { names.appendChild(el("li", name)); });
    table.appendChild(names);
  }
  var playing = document.getElementById("playing");
  playing.replaceChildren();
  if (view.playing.length) {
    playing.appendChild(el("h2", w("playingNow")));
    var games = el("ul", undefined, "games");
    view.playing.forEach(function (pair) { games.appendChild(el("li", pair[0] + " — " + pair[1])); });
    playing.appendChild(games);
  }
}

function poll() {
  fetch("tourney/standings", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ initData: state.initData, id: state.id }),
    credentials: "same-origin",
  }).then(function (response) {
    if (!response.ok) {
      setStatus(response.status === 404 || response.status === 401 ? w("noTourney") : String(response.status));
      if (response.status >= 500) { state.timer = setTimeout(poll, 5000); }
      return null;
    }
    return response.json();
  }).then(function (view) {
    if (!view) { return; }
    show(view);
    if (view.stage === "signup" || view.stage === "running") {
      state.timer = setTimeout(poll, Math.max(1, view.poll) * 1000);
    }
  }).catch(function () { state.timer = setTimeout(poll, 5000); });
}

function start() {
  var tg = window.Telegram && window.Telegram.WebApp;
  state.tg = tg && tg.initData !== undefined ? tg : null;
  var unsafe = (state.tg && state.tg.initDataUnsafe) || {};
  var params = new URLSearchParams(location.search);
  var startParam = unsafe.start_param || params.get("tgWebAppStartParam") || "";
  state.id = startParam.indexOf(PREFIX) === 0 ? startParam.slice(PREFIX.length) : params.get("tourney") || "";
  state.initData = (state.tg && state.tg.initData) || "";
  if (state.tg && state.tg.ready) { state.tg.ready(); }
  state.words = { noTourney: "No tournament to show: open the standings from the group's tournament card." };
  if (!state.id) { setStatus(w("noTourney")); return; }
  poll();
}

whenReady(start);
