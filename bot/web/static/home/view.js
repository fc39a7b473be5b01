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

// An invitation made (api/invite's answer): what to do with it, its link to copy and Share.
export function showInvite(answer) {
  $("invite-text").textContent = answer.text.replace(answer.link, "").trim();
  $("invite-link").value = answer.link;
  $("invite-sent").hidden = false;
}

const SVG = "http://www.w3.org/2000/svg";
const W = 320, H = 120, PAD = 36;  // the chart's box; PAD: the side its grid's figures take

function svg(tag, attrs) {
  var node = document.createElementNS(SVG, tag);
  Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
  return node;
}

// One variant's rating chart (protocol.rating_json): its points in its span, a grid line per tick, the last
// point marked; time runs as the page reads (right to left in Persian). The figures are its name for
// screen readers (<title> and aria-label).
function chart(r, words, rtl) {
  var ratings = r.points.map(function (p) { return p[1]; });
  var low = Math.min.apply(null, ratings), high = Math.max.apply(null, ratings);
  var label = words.replace("{variant}", r.title).replace("{rating}", r.rating)
    .replace("{first}", Math.round(ratings[0])).replace("{last}", Math.round(ratings[ratings.length - 1]))
    .replace("{low}", Math.round(low)).replace("{high}", Math.round(high));
  var t0 = r.span[0], t1 = r.span[1], r0 = r.span[2], r1 = r.span[3];
  var left = rtl ? 4 : PAD, right = rtl ? W - PAD : W - 4;
  function x(t) {
    var f = (t - t0) / ((t1 - t0) || 1);
    return (rtl ? right - f * (right - left) : left + f * (right - left)).toFixed(1);
  }
  function y(v) { return (H - 6 - (v - r0) / ((r1 - r0) || 1) * (H - 12)).toFixed(1); }
  var figure = el("figure", "chart");
  var caption = el("figcaption", "", r.title);
  caption.appendChild(el("span", "figure", String(r.rating)));
  figure.appendChild(caption);
  var box = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": label });
  box.dataset.variant = r.variant;
  var title = svg("title", {});
  title.textContent = label;
  box.appendChild(title);
  r.ticks.forEach(function (v) {
    box.appendChild(svg("line", { class: "grid", x1: left, x2: right, y1: y(v), y2: y(v) }));
    var text = svg("text", { class: "tick", x: rtl ? W : 0, y: Number(y(v)) + 4, "text-anchor": rtl ? "end" : "start" });
    text.textContent = String(Math.round(v));
    box.appendChild(text);
  });
  var path = r.points.map(function (p) { return x(p[0]) + "," + y(p[1]); }).join(" ");
  if (r.points.length > 1) { box.appendChild(svg("polyline", { class: "line", points: path })); }
  var last = r.points[r.points.length - 1];
  box.appendChild(svg("circle", { class: "last", cx: x(last[0]), cy: y(last[1]), r: 4.5 }));
  figure.appendChild(box);
  return figure;
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

  $("friend-title").textContent = w.friend;
  $("invite-format-label").textContent = w.format;
  options($("invite-format"), home.formats);
  $("invite-format-box").hidden = actions.inline;  // Telegram's inline cards offer each variant themselves
  var invite = $("invite");
  invite.textContent = w.invite;
  invite.disabled = false;
  $("share").textContent = w.share;
  $("invite-form").onsubmit = function (event) {
    event.preventDefault();
    invite.disabled = true;
    actions.invite($("invite-format").value, function () { invite.disabled = false; });
  };
  $("friend-box").hidden = false;

  $("rating-title").textContent = w.rating;
  var charts = $("ratings");
  charts.textContent = "";
  (home.ratings || []).forEach(function (r) { charts.appendChild(chart(r, w.chart, home.dir === "rtl")); });
  $("rating-box").hidden = !(home.ratings || []).length;

  $("history-title").textContent = w.history;
  var history = $("history");
  history.textContent = "";
  home.history.forEach(function (entry) {
    var li = el("li"), link = el("a", "review", entry.line);
    link.href = actions.reviewURL(entry.key);
    link.setAttribute("aria-label", w.review.replace("{line}", entry.line));
    li.appendChild(link);
    history.appendChild(li);
  });
  if (!home.history.length) { history.appendChild(el("li", "hint", w.noHistory)); }
  $("history-box").hidden = false;
  tick(0);
  busy(false);
  if (!marked && window.performance && performance.mark) { marked = true; performance.mark("nardy:first-home"); }
}
