/* The home drawn from the server's `home` (bot/web/protocol.py home_message): every text set with
 * textContent, never as HTML. */

function $(id) { return document.getElementById(id); }

function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) { node.className = className; }
  if (text !== undefined) { node.textContent = text; }
  return node;
}

var clocks = [];
var marked = false;  // the performance mark of the first home drawn (bench/webapp.py)  // [node, seconds left at load, running]

export function busy(on) { $("home").setAttribute("aria-busy", on ? "true" : "false"); }

export function showNote(text) { $("note").textContent = text; }

var toastTimer = 0;
export function toast(text) {
  var box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(function () { box.hidden = true; }, 4000);
}

function clockText(seconds) {
  var s = Math.max(0, Math.floor(seconds)), m = Math.floor(s / 60);
  return m + ":" + String(s % 60).padStart(2, "0");
}

// Every running clock shown `elapsed` seconds after the home came.
export function tick(elapsed) {
  tickSeeking();
  clocks.forEach(function (c) {
    c[0].textContent = clockText(c[2] ? c[1] - elapsed : c[1]);
  });
}

function gameItem(game, words, open) {
  var li = el("li");
  var button = el("button", "game");
  button.type = "button";
  button.dataset.game = game.game;
  button.appendChild(el("span", "opponent", game.opponent));
  var yours = game.turn === "you";
  var turn = yours ? words.yourTurn : words.theirTurn.replace("{name}", game.opponent);
  button.appendChild(el("span", "turn" + (yours ? " yours" : ""), turn));
  var what = game.title;
  if (game.match_to > 1) { what += " · " + game.score[0] + ":" + game.score[1]; }
  button.appendChild(el("span", "what", what));
  if (game.clock) {
    var clock = el("span", "clock");
    var mine = el("span", game.clock.running === "you" ? "running" : "");
    var theirs = el("span", game.clock.running === "them" ? "running" : "");
    clocks.push([mine, game.clock.you, game.clock.running === "you"]);
    clocks.push([theirs, game.clock.them, game.clock.running === "them"]);
    clock.appendChild(mine);
    clock.appendChild(document.createTextNode(" – "));
    clock.appendChild(theirs);
    button.appendChild(clock);
  }
  button.addEventListener("click", function () { open(game.game); });
  li.appendChild(button);
  return li;
}

function options(select, items) {
  select.textContent = "";
  items.forEach(function (item) {
    var option = el("option", "", item.name);
    option.value = item.id;
    select.appendChild(option);
  });
}

var words = {};
var search = null;  // the search going on (the server's seeking_json) and when the page learnt of it

// The quick match's search: its form, or the waiting line with its time and Stop searching.
export function showSeeking(seeking, w, serverNow) {
  words = w || words;
  var waited = seeking ? Math.max(0, (serverNow === undefined ? seeking.since : serverNow) - seeking.since) : 0;
  search = seeking ? { s: seeking, at: Date.now() / 1000 - waited } : null;
  $("quick").hidden = !!seeking;
  $("waiting").hidden = !seeking;
  $("find").disabled = false;
  $("stop-seek").disabled = false;
  if (seeking) {
    $("waiting-text").textContent = (words.looking || "").replace("{variant}", seeking.title);
    tickSeeking();
  }
}

function tickSeeking() {
  if (!search) { return; }
  var waited = Date.now() / 1000 - search.at;
  $("waiting-time").textContent = clockText(Math.max(0, waited)) + " / " + clockText(search.s.until - search.s.since);
}

export function render(home, actions) {
  var w = home.words;
  document.documentElement.lang = home.lang;
  document.documentElement.dir = home.dir;
  document.title = w.title;
  $("title").textContent = w.title;
  showNote("");

  $("games-title").textContent = w.yourGames;
  var list = $("games");
  list.textContent = "";
  clocks = [];
  home.games.forEach(function (game) { list.appendChild(gameItem(game, w, actions.open)); });
  $("no-games").textContent = w.noGames;
  $("no-games").hidden = home.games.length > 0;
  $("games-box").hidden = false;

  $("new-title").textContent = w.newGame;
  $("format-label").textContent = w.format;
  $("level-label").textContent = w.level;
  options($("format"), home.formats);
  options($("level"), home.levels);
  var level = $("level");
  if (home.levels.length > 1) { level.value = home.levels[1].id; }
  var start = $("start");
  start.textContent = w.start;
  start.disabled = false;
  $("new-game").onsubmit = function (event) {
    event.preventDefault();
    start.disabled = true;
    actions.start($("format").value, level.value, function () { start.disabled = false; });
  };
  $("new-box").hidden = false;

  $("quick-title").textContent = w.quick;
  $("quick-variant-label").textContent = w.format;
  $("quick-length-label").textContent = w.length;
  $("quick-clock-label").textContent = w.clock;
  options($("quick-variant"), home.quick.variants || []);
  options($("quick-length"), home.quick.lengths || []);
  options($("quick-clock"), home.quick.clocks || []);
  var find = $("find");
  find.textContent = w.find;
  $("stop-seek").textContent = w.stop;
  $("quick").onsubmit = function (event) {
    event.preventDefault();
    find.disabled = true;
    actions.seek($("quick-variant").value, Number($("quick-length").value), $("quick-clock").value,
      function () { find.disabled = false; });
  };
  showSeeking(home.seeking, w, home.now);
  $("quick-box").hidden = false;

  $("stats-title").textContent = w.stats;
  var stats = $("stats");
  stats.textContent = "";
  home.stats.forEach(function (line) {
    stats.appendChild(line ? el("p", /:$/.test(line) ? "head" : "", line) : el("p", "gap"));
  });
  if (!home.stats.length) { stats.appendChild(el("p", "hint", w.noHistory)); }
  $("stats-box").hidden = false;

  $("history-title").textContent = w.history;
  var history = $("history");
  history.textContent = "";
  home.history.forEach(function (line) { history.appendChild(el("li", "", line)); });
  if (!home.history.length) { history.appendChild(el("li", "hint", w.noHistory)); }
  $("history-box").hidden = false;
  tick(0);
  busy(false);
  if (!marked && window.performance && performance.mark) { marked = true; performance.mark("nardy:first-home"); }
}
