/* The nardy board page (issue 24): draws the server's state in SVG and sends presses; it never decides
 * legality. One WebSocket at ../ws (next to static/): hello, then states in, presses out.
 * Drag and tap share one code path (pointer events), as lichess's chessground does: a pointer goes down
 * on a movable checker (it is selected, its destinations light up), moves (a drag) or not (a tap), and a
 * destination is chosen by a drop or by a second tap. Geometry mirrors render/layout.py.
 * No framework, no build step, no inline script or style (the page runs under a strict CSP). */
(function () {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var SCRIPT = document.currentScript;  // set only while this file runs: kept to find the socket next to it
  var TG_SCRIPT = "https://telegram.org/js/telegram-web-app.js";

  // ----- geometry: render/layout.py ------------------------------------------------------------------
  var CHECKER = 50, R = 25, POINT_W = 54, STACK = 5, BAR_STACK = 4, FRAME = 16, BAR_W = 52, TRAY_W = 66;
  var HALF_W = 6 * POINT_W, TRI_LEN = STACK * CHECKER, GAP = 72, NUM_H = 26, DIE = 46, DIE_GAP = 10;
  var SLAB_H = 15, SLAB_W = 48, CUBE = 40;
  var X_LEFT = FRAME, X_BAR = X_LEFT + HALF_W, X_RIGHT = X_BAR + BAR_W, X_RIGHT_END = X_RIGHT + HALF_W;
  var X_TRAY = X_RIGHT_END + FRAME, WIDTH = X_TRAY + TRAY_W + FRAME;
  var Y_BOARD = 56, Y_FIELD = Y_BOARD + NUM_H, Y_GAP = Y_FIELD + TRI_LEN, Y_GAP_END = Y_GAP + GAP;
  var Y_FIELD_END = Y_GAP_END + TRI_LEN, Y_BOARD_END = Y_FIELD_END + NUM_H, Y_MID = (Y_GAP + Y_GAP_END) / 2;

  var BUTTONS = ["undo", "done", "roll", "double", "take", "pass", "hint", "rematch", "resign"];
  var PIP_SPOTS = {
    1: [[0.5, 0.5]],
    2: [[0.27, 0.27], [0.73, 0.73]],
    3: [[0.27, 0.27], [0.5, 0.5], [0.73, 0.73]],
    4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
    5: [[0.27, 0.27], [0.73, 0.27], [0.5, 0.5], [0.27, 0.73], [0.73, 0.73]],
    6: [[0.27, 0.25], [0.73, 0.25], [0.27, 0.5], [0.73, 0.5], [0.27, 0.75], [0.73, 0.75]]
  };

  var STRINGS = {
    en: {
      connecting: "connecting…", reconnecting: "reconnecting…", pips: "pips", watching: "watching", you: "you",
      undo: "↶ Undo", done: "✓ Done", roll: "⚂ Roll", double: "Double to {value}",
      take: "✓ Take ({value})", pass: "✕ Pass", resign: "⚑ Resign", hint: "? Hint", rematch: "↻ Rematch",
      confirm: "Do you really want to resign this game?", yes: "Yes, resign", no: "No, play on",
      match: "Match to {n}", white: "White", black: "Black", board: "Nardy board",
      noGame: "No game to show: open the board from the bot's message.",
      noAnswer: "No answer from the server: connecting again."
    },
    ru: {
      connecting: "подключение…", reconnecting: "переподключение…", pips: "пипсы", watching: "вы смотрите", you: "вы",
      undo: "↶ Отменить", done: "✓ Готово", roll: "⚂ Бросить", double: "Удвоить до {value}",
      take: "✓ Принять ({value})", pass: "✕ Отказаться", resign: "⚑ Сдаться", hint: "? Подсказка",
      rematch: "↻ Реванш", confirm: "Вы правда хотите сдать эту партию?", yes: "Да, сдаюсь",
      no: "Нет, играем", match: "Матч до {n}", white: "Белые", black: "Чёрные", board: "Доска для нард",
      noGame: "Нет игры: откройте доску из сообщения бота.",
      noAnswer: "Сервер не отвечает: подключаемся заново."
    }
  };

  var S = {
    tg: null, game: "", initData: "", lang: "en", langHint: "en",
    ws: null, open: false, fresh: false, retries: 0, timer: 0, fatal: false, answerTimer: 0,
    state: null, inflight: false, selected: null, gesture: null, toastTimer: 0,
    reduceMotion: false, wsURL: "", drawn: false
  };
  var $ = function (id) { return document.getElementById(id); };
  var svg, layers = {};

  // ----- small helpers --------------------------------------------------------------------------------
  function t(key, args) {
    var table = STRINGS[S.lang] || STRINGS.en;
    var text = table[key] || STRINGS.en[key] || key;
    if (args) {
      Object.keys(args).forEach(function (k) { text = text.split("{" + k + "}").join(String(args[k])); });
    }
    return text;
  }

  function pickLang(code) {
    code = String(code || "").toLowerCase().slice(0, 2);
    return STRINGS[code] ? code : "en";
  }

  function el(tag, attrs, parent, text) {
    var node = document.createElementNS(SVGNS, tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    }
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function html(tag, className, parent, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  // engine/sides.py: a side's own number of absolute point 1..24 (an involution: also to_absolute)
  function own(game, side, point) {
    if (side === 0) { return point; }
    if (game === "short") { return 25 - point; }
    return point <= 12 ? point + 12 : point - 12;
  }

  function slotX(slot) {
    var left, column;
    if (slot <= 6) { left = X_RIGHT; column = 6 - slot; }
    else if (slot <= 12) { left = X_LEFT; column = 12 - slot; }
    else if (slot <= 18) { left = X_LEFT; column = slot - 13; }
    else { left = X_RIGHT; column = slot - 19; }
    return left + column * POINT_W + POINT_W / 2;
  }

  function isTop(slot) { return slot >= 13; }

  function checkerCenter(slot, index) {
    index = Math.max(0, Math.min(index, STACK - 1));
    var x = slotX(slot);
    return isTop(slot) ? [x, Y_FIELD + R + index * CHECKER] : [x, Y_FIELD_END - R - index * CHECKER];
  }

  function barCenter(view, side, index) {
    index = Math.max(0, Math.min(index, BAR_STACK - 1));
    var x = X_BAR + BAR_W / 2;
    return side === view.viewer ? [x, Y_GAP - R - 5 - index * CHECKER] : [x, Y_GAP_END + R + 5 + index * CHECKER];
  }

  function trayBox(view, side) {
    return side === view.viewer ? [X_TRAY + 5, Y_GAP_END, X_TRAY + TRAY_W - 5, Y_FIELD_END]
      : [X_TRAY + 5, Y_FIELD, X_TRAY + TRAY_W - 5, Y_GAP];
  }

  function numberCenter(slot) {
    return [slotX(slot), isTop(slot) ? Y_BOARD + NUM_H / 2 : Y_FIELD_END + NUM_H / 2];
  }

  // The column of one point (its hit zone): the triangle's half of the field and half of the middle strip.
  function pointZone(slot) {
    var x = slotX(slot) - POINT_W / 2;
    return isTop(slot) ? [x, Y_FIELD, x + POINT_W, Y_MID] : [x, Y_MID, x + POINT_W, Y_FIELD_END];
  }

  function zoneBox(view, key) {
    if (key === "bar") { return [X_BAR, Y_FIELD, X_RIGHT, Y_FIELD_END]; }
    if (key === "off") { return [X_RIGHT_END, Y_FIELD, WIDTH, Y_FIELD_END]; }
    return pointZone(own(view.game, view.viewer, key));
  }

  // ----- drawing --------------------------------------------------------------------------------------
  function drawStatic() {
    var g = layers.static;
    el("rect", { x: 0, y: Y_BOARD, width: WIDTH, height: Y_BOARD_END - Y_BOARD, "class": "frame" }, g);
    [X_LEFT, X_RIGHT].forEach(function (left) {
      el("rect", { x: left, y: Y_FIELD, width: HALF_W, height: Y_FIELD_END - Y_FIELD, "class": "field" }, g);
    });
    el("rect", { x: X_BAR, y: Y_BOARD, width: BAR_W, height: Y_BOARD_END - Y_BOARD, "class": "bar" }, g);
    [X_BAR, X_RIGHT].forEach(function (x) {
      el("line", { x1: x, y1: Y_BOARD, x2: x, y2: Y_BOARD_END, "class": "bar-edge" }, g);
    });
    for (var slot = 1; slot <= 24; slot++) {
      var x = slotX(slot), half = (POINT_W - 4) / 2, length = TRI_LEN - 10;
      var base = isTop(slot) ? Y_FIELD : Y_FIELD_END, tip = isTop(slot) ? Y_FIELD + length : Y_FIELD_END - length;
      el("polygon", {
        points: (x - half) + "," + base + " " + (x + half) + "," + base + " " + x + "," + tip,
        "class": "tri " + (slot % 2 ? "tri-dark" : "tri-light")
      }, g);
      var c = numberCenter(slot);
      el("text", { x: c[0], y: c[1], "class": "num" }, g, String(slot));
    }
    [[X_TRAY + 5, Y_GAP_END, X_TRAY + TRAY_W - 5, Y_FIELD_END], [X_TRAY + 5, Y_FIELD, X_TRAY + TRAY_W - 5, Y_GAP]]
      .forEach(function (b) {
        el("rect", { x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1], rx: 6, "class": "tray-bg" }, g);
      });
  }

  function drawChecker(parent, side, centre, attrs, count) {
    var g = el("g", { "class": "checker " + (side === 0 ? "white" : "black"), "data-side": side,
      transform: "translate(" + centre[0] + " " + centre[1] + ")" }, parent);
    Object.keys(attrs).forEach(function (k) { g.setAttribute(k, attrs[k]); });
    el("circle", { r: R - 0.5, "class": "edge" }, g);
    el("circle", { r: R - 2.5, "class": "rim" }, g);
    el("circle", { r: R * 0.82, "class": "face" }, g);
    el("circle", { r: R * 0.52, "class": "ring" }, g);
    if (count) { el("text", { y: 1, "class": "count" }, g, String(count)); }
    return g;
  }

  function drawCheckers(view) {
    var g = layers.checkers;
    view.points.forEach(function (n, i) {
      if (!n) { return; }
      var side = n > 0 ? 0 : 1, height = Math.abs(n), slot = own(view.game, view.viewer, i + 1);
      var drawn = Math.min(height, STACK);
      for (var k = 0; k < drawn; k++) {
        var label = height > STACK && k === STACK - 1 ? height : 0;
        drawChecker(g, side, checkerCenter(slot, k), { "data-point": i + 1, "data-index": k }, label);
      }
    });
    [0, 1].forEach(function (side) {
      var on = view.bar[side];
      for (var k = 0; k < Math.min(on, BAR_STACK); k++) {
        var label = k === BAR_STACK - 1 && on > BAR_STACK ? on : 0;
        drawChecker(g, side, barCenter(view, side, k), { "data-point": "bar", "data-index": k }, label);
      }
      var box = trayBox(view, side);
      var tray = el("g", { "class": "tray " + (side === 0 ? "white" : "black"), "data-side": side }, g);
      for (var j = 0; j < view.off[side]; j++) {
        var y = side === view.viewer ? box[3] - 3 - (j + 1) * SLAB_H : box[1] + 3 + j * SLAB_H;
        el("rect", { x: (box[0] + box[2] - SLAB_W) / 2, y: y + 1, width: SLAB_W, height: SLAB_H - 2, rx: 5,
          "class": "slab" }, tray);
      }
      var cy = side === view.viewer ? Y_GAP + GAP * 3 / 4 : Y_GAP + GAP / 4;
      el("text", { x: X_TRAY + TRAY_W / 2, y: cy, "class": "tray-count" }, tray, String(view.off[side]));
    });
  }

  // The last move as render/board.py marks it: numbers lit, rings where checkers arrived, dashed ghosts
  // where they left, a red badge where a blot was hit, the mover's tray ringed when one was borne off.
  function drawLastMove(view) {
    var g = layers.marks, mover = view.last_mover;
    if (mover === null || mover === undefined || !view.last_move || !view.last_move.length) { return; }
    var left = {}, arrived = {}, hits = {};
    view.last_move.forEach(function (m) {
      var src = m.src === 25 ? 0 : own(view.game, mover, m.src);
      var dst = m.dst === 0 ? 25 : own(view.game, mover, m.dst);
      left[src] = (left[src] || 0) + 1;
      arrived[dst] = (arrived[dst] || 0) + 1;
      if (m.hit && dst !== 25) { hits[dst] = true; }
    });
    var points = Object.keys(left).concat(Object.keys(arrived)).map(Number)
      .filter(function (p, i, all) { return all.indexOf(p) === i; });
    points.forEach(function (point) {
      var net = (arrived[point] || 0) - (left[point] || 0), k;
      if (point === 0) {
        var onBar = view.bar[mover];
        for (k = onBar; k < Math.min(onBar + left[point], BAR_STACK); k++) { ghost(g, barCenter(view, mover, k)); }
        return;
      }
      if (point === 25) {
        var b = trayBox(view, mover);
        el("rect", { x: b[0] - 3, y: b[1] - 3, width: b[2] - b[0] + 6, height: b[3] - b[1] + 6, rx: 8,
          "class": "mark-tray" }, g);
        return;
      }
      var slot = own(view.game, view.viewer, point), c = numberCenter(slot);
      el("rect", { x: c[0] - (POINT_W - 10) / 2, y: c[1] - (NUM_H - 6) / 2, width: POINT_W - 10, height: NUM_H - 6,
        rx: (NUM_H - 6) / 2, "class": "mark-num-bg", "data-point": point }, g);
      el("text", { x: c[0], y: c[1], "class": "mark-num" }, g, String(slot));
      var height = Math.abs(view.points[point - 1]);
      if (net > 0) {
        var seen = {};
        for (k = Math.max(0, height - net); k < height; k++) {
          var idx = Math.min(k, STACK - 1);
          if (!seen[idx]) { seen[idx] = true; ring(g, checkerCenter(slot, idx)); }
        }
      } else if (net < 0) {
        for (k = height; k < Math.min(height - net, STACK); k++) { ghost(g, checkerCenter(slot, k)); }
      }
    });
    Object.keys(hits).map(Number).forEach(function (point) {
      var slot = own(view.game, view.viewer, point), height = Math.abs(view.points[point - 1]);
      var c = checkerCenter(slot, Math.max(0, Math.min(height, STACK) - 1));
      badge(g, [c[0] + R - 5, c[1] - R + 5]);
    });
    if (Object.keys(hits).length && view.game === "short") {
      var victim = 1 - mover, onBar2 = view.bar[victim];
      if (onBar2) {
        var c2 = barCenter(view, victim, Math.min(onBar2, BAR_STACK) - 1);
        badge(g, [c2[0] + R - 5, c2[1] - R + 5]);
      }
    }
  }

  function ring(g, c) { el("circle", { cx: c[0], cy: c[1], r: R + 2, "class": "mark-arrived" }, g); }
  function ghost(g, c) { el("circle", { cx: c[0], cy: c[1], r: R - 4, "class": "mark-left" }, g); }
  function badge(g, c) {
    var b = el("g", { "class": "mark-hit", transform: "translate(" + c[0] + " " + c[1] + ")" }, g);
    el("circle", { r: 10.5 }, b);
    el("path", { d: "M-4,-4L4,4M-4,4L4,-4" }, b);
  }

  function drawDice(view) {
    var g = layers.dice, dice = view.dice || [];
    if (!dice.length) { return; }
    var expanded = dice.length === 2 && dice[0] === dice[1] ? dice.concat(dice) : dice.slice();
    var remaining = {};
    (view.dice_used || []).forEach(function (d) { remaining[d] = (remaining[d] || 0) + 1; });
    var roller = view.to_move === null || view.to_move === undefined ? view.viewer : view.to_move;
    var count = expanded.length, total = count * DIE + Math.max(0, count - 1) * DIE_GAP;
    var centre = roller === view.viewer ? X_RIGHT + HALF_W / 2 : X_LEFT + HALF_W / 2;
    var x0 = centre - total / 2, y0 = Y_GAP + (GAP - DIE) / 2;
    expanded.forEach(function (value, i) {
      var used = (remaining[value] || 0) > 0;
      if (used) { remaining[value] -= 1; }
      var x = x0 + i * (DIE + DIE_GAP);
      var die = el("g", { "class": "die " + (roller === 0 ? "white" : "black") + (used ? " used" : ""),
        "data-value": value, transform: "translate(" + x + " " + y0 + ")" }, g);
      el("rect", { width: DIE, height: DIE, rx: 9, "class": "die-face" }, die);
      PIP_SPOTS[value].forEach(function (s) {
        el("circle", { cx: s[0] * DIE, cy: s[1] * DIE, r: DIE * 0.095, "class": "pip" }, die);
      });
    });
  }

  function drawCube(view) {
    if (view.cube === null || view.cube === undefined) { return; }
    var x = X_BAR + BAR_W / 2, owner = view.cube_owner, y;
    if (view.cube_offered || owner === null || owner === undefined) { y = Y_MID; }
    else if (owner === view.viewer) { y = Y_FIELD_END - CUBE / 2 - 4; }
    else { y = Y_FIELD + CUBE / 2 + 4; }
    var value = view.cube_offered ? view.cube * 2 : view.cube;
    var g = el("g", { "class": "cube" + (view.cube_offered ? " offered" : ""), "data-value": value,
      transform: "translate(" + x + " " + y + ")" }, layers.dice);
    el("rect", { x: -CUBE / 2, y: -CUBE / 2, width: CUBE, height: CUBE, rx: 5 }, g);
    el("text", { y: 1, "class": value < 10 ? "" : "small" }, g, String(value));
  }

  // ----- what the player may do now (from the state's steps only) ----------------------------------------
  function steps() { return (S.state && S.state.you !== null && S.state.steps) || []; }
  function sources() {
    var out = [];
    steps().forEach(function (s) { if (out.indexOf(s.from) < 0) { out.push(s.from); } });
    return out;
  }
  // Destinations of the checker on `from`: one step each (the smallest die where two dice reach the same).
  function destinations(from) {
    var out = {};
    steps().forEach(function (s) {
      if (s.from === from && (!out[s.to] || s.die < out[s.to].die)) { out[s.to] = s; }
    });
    return out;
  }
  function interactive() { return !!(S.state && S.state.you !== null && S.open && !S.inflight); }

  function landing(view, to) {
    if (to === "off") { var b = trayBox(view, view.viewer); return [(b[0] + b[2]) / 2, b[3] - 3 - SLAB_H / 2]; }
    var n = view.points[to - 1], mine = view.viewer === 0 ? n > 0 : n < 0;
    var slot = own(view.game, view.viewer, to);
    return checkerCenter(slot, n && !mine ? 0 : Math.abs(n));
  }

  function topChecker(from) {
    var list = svg.querySelectorAll('.checker[data-point="' + from + '"]');
    var side = S.state.view.viewer, top = null;
    for (var i = 0; i < list.length; i++) { if (+list[i].getAttribute("data-side") === side) { top = list[i]; } }
    return top;
  }

  function drawZones(view) {
    var g = layers.zones, movable = sources(), dests = S.selected !== null ? destinations(S.selected) : {};
    var keys = [];
    for (var p = 1; p <= 24; p++) { keys.push(p); }
    keys.push("bar", "off");
    keys.forEach(function (key) {
      var b = zoneBox(view, key), classes = "zone";
      if (Object.prototype.hasOwnProperty.call(dests, key)) { classes += " lit"; }
      if (movable.indexOf(key) >= 0) { classes += " movable"; }
      if (S.selected === key) { classes += " selected"; }
      el("rect", { x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1], "class": classes, "data-point": key }, g);
    });
    if (!S.state || S.state.you === null) { return; }
    movable.forEach(function (from) {
      var top = topChecker(from);
      if (top) { top.classList.add(from === S.selected ? "selected" : "movable"); }
    });
    Object.keys(dests).forEach(function (to) {
      var key = to === "off" ? "off" : +to, c = landing(view, key);
      el("circle", { cx: c[0], cy: c[1], r: R - 3, "class": "target", "data-point": key }, layers.targets);
    });
  }

  // ----- the page around the board ----------------------------------------------------------------------
  function drawPanel(node, view, side) {
    clear(node);
    node.className = "panel" + (view.to_move === side ? " turn" : "") + (view.winner === side ? " winner" : "");
    node.setAttribute("data-side", side);
    html("span", "swatch " + (side === 0 ? "white" : "black"), node);
    html("span", "name", node, view.names[side] || t(side === 0 ? "white" : "black"));
    if (view.winner === side) { html("span", "star", node, "★"); }
    if (S.state.you === side) { html("span", "you", node, t("you")); }
    if (view.match_to > 1) { html("span", "score", node, String(view.score[side])); }
    var pips = html("span", "pips", node);
    html("span", "pips-label", pips, t("pips") + " ");
    html("b", "pips-value", pips, String(view.pips[side]));
  }

  function label(action, view) {
    var cube = view.cube || 1;
    if (action === "double") { return t("double", { value: cube * 2 }); }
    if (action === "take") { return t("take", { value: cube * 2 }); }
    return t(action);
  }

  function drawButtons() {
    var box = $("buttons"), state = S.state;
    clear(box);
    if (!state || state.you === null) { return; }
    BUTTONS.forEach(function (action) {
      if ((state.actions || []).indexOf(action) < 0) { return; }
      var b = html("button", "action " + action, box, label(action, state.view));
      b.type = "button";
      b.setAttribute("data-action", action);
      b.disabled = !interactive();
    });
  }

  function render() {
    var state = S.state;
    document.documentElement.lang = S.lang;
    svg.setAttribute("aria-label", t("board"));
    ["checkers", "marks", "dice", "zones", "targets", "drag"].forEach(function (k) { clear(layers[k]); });
    S.gesture = null;
    renderConn();
    if (!state) { return; }
    var view = state.view;
    svg.setAttribute("data-game", view.game);
    svg.setAttribute("data-viewer", view.viewer);
    svg.setAttribute("data-version", state.version);
    drawCheckers(view);
    drawLastMove(view);
    drawDice(view);
    drawCube(view);
    drawZones(view);
    svg.classList.toggle("locked", !interactive());
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

  function send(message) {
    if (!S.ws || !S.open) { return false; }
    S.ws.send(JSON.stringify(message));
    return true;
  }

  function press(action, step) {
    if (!interactive()) { return false; }
    var message = { type: "press", version: S.state.version, action: action };
    if (step) { message.src = step.src; message.die = step.die; }
    if (!send(message)) { return false; }
    lock();
    return true;
  }

  function toast(text) {
    var node = $("toast");
    node.textContent = text;
    node.hidden = false;
    clearTimeout(S.toastTimer);
    S.toastTimer = setTimeout(function () { node.hidden = true; }, 4000);
  }

  function renderConn() {
    var node = $("conn");
    if (S.fatal) { return; }
    if (S.open && S.state && !S.fresh) { node.hidden = true; }
    else {
      node.hidden = false;
      node.textContent = t(S.retries > 0 || S.state ? "reconnecting" : "connecting");
    }
    if (S.state && S.state.you === null && S.open) { node.hidden = false; node.textContent = t("watching"); }
  }

  function fatal(text) {
    S.fatal = true;
    var node = $("conn");
    node.hidden = false;
    node.textContent = text;
    node.classList.add("error");
  }

  // ----- the socket -------------------------------------------------------------------------------------
  function connect() {
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
    if (message.type === "state") {
      if (message.game !== S.game || !message.view) { return; }
      if (!S.fresh && S.state && message.version < S.state.version) { return; }  // an older push
      if (S.state && message.version !== S.state.version) { S.selected = null; }
      S.fresh = false;
      S.retries = 0;
      S.state = message;
      S.inflight = false;
      clearTimeout(S.answerTimer);
      S.lang = pickLang(message.lang || S.langHint);
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

  // ----- pointer input: tap and drag on one path --------------------------------------------------------
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

  function destKeys(from) {
    return Object.keys(destinations(from)).map(function (k) { return k === "off" ? "off" : +k; });
  }

  function select(from) {
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

  function centreOf(node) {
    var m = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(node.getAttribute("transform") || "");
    return m ? [+m[1], +m[2]] : [0, 0];
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

  function place(node, p) { node.style.transform = "translate(" + p[0] + "px, " + p[1] + "px)"; }

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

  // A pressed checker waits on its destination, dimmed, until the server answers: the state redraws the
  // board, a refusal puts it back. It is drawn as pending, never as a move made.
  function pending(piece, from, to) {
    var copy = piece.cloneNode(true);
    copy.removeAttribute("data-point");
    copy.removeAttribute("transform");
    copy.classList.add("floating", "pending");
    copy.classList.remove("movable", "selected");
    layers.drag.appendChild(copy);
    piece.classList.add("lifted");
    animate(copy, from, to, false);
  }

  function animate(node, from, to, remove) {
    var done = function () {
      if (remove && node.parentNode) { node.parentNode.removeChild(node); }
    };
    place(node, to);
    if (S.reduceMotion || !node.animate) { done(); return Promise.resolve(); }
    var a = node.animate([
      { transform: "translate(" + from[0] + "px, " + from[1] + "px)" },
      { transform: "translate(" + to[0] + "px, " + to[1] + "px)" }
    ], { duration: 140, easing: "ease-out" });
    return a.finished.then(done, done);
  }

  function onButton(event) {
    var button = event.target.closest("button[data-action]");
    if (!button || button.disabled) { return; }
    var action = button.getAttribute("data-action");
    if (action === "resign") { ask(); return; }
    S.selected = null;
    press(action);
  }

  function ask() {
    $("confirm-text").textContent = t("confirm");
    $("confirm-yes").textContent = t("yes");
    $("confirm-no").textContent = t("no");
    $("confirm").hidden = false;
    $("confirm-no").focus();
  }

  function answer(yes) {
    $("confirm").hidden = true;
    if (yes) { press("resign"); }
  }

  // ----- theme, language, Telegram ------------------------------------------------------------------------
  function applyTheme() {
    var root = document.documentElement, tg = S.tg, scheme;
    if (tg && tg.colorScheme) { scheme = tg.colorScheme; }
    else { scheme = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"; }
    root.setAttribute("data-theme", scheme === "dark" ? "dark" : "light");
    var params = (tg && tg.themeParams) || {};
    [["bg_color", "--tg-bg"], ["text_color", "--tg-text"], ["hint_color", "--tg-hint"],
      ["button_color", "--tg-button"], ["button_text_color", "--tg-button-text"],
      ["secondary_bg_color", "--tg-panel"], ["destructive_text_color", "--tg-danger"]].forEach(function (pair) {
      var value = params[pair[0]];
      if (value && /^#[0-9a-fA-F]{3,8}$/.test(value)) { root.style.setProperty(pair[1], value); }
      else { root.style.removeProperty(pair[1]); }
    });
  }

  function inTelegram() {
    var where = location.hash + " " + location.search;
    var stored = false;
    try { stored = !!sessionStorage.getItem("__telegram__initParams"); } catch (e) { /* storage off */ }
    return /tgWebApp(Data|Version|Platform)=/.test(where) || stored || !!window.TelegramWebviewProxy;
  }

  function start() {
    var tg = window.Telegram && window.Telegram.WebApp;
    S.tg = tg && tg.initData !== undefined ? tg : null;
    var unsafe = (S.tg && S.tg.initDataUnsafe) || {};
    var params = new URLSearchParams(location.search);
    S.game = params.get("game") || unsafe.start_param || "";
    S.initData = (S.tg && S.tg.initData) || "";
    S.langHint = pickLang((unsafe.user && unsafe.user.language_code) || navigator.language);
    S.lang = S.langHint;
    S.reduceMotion = !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);
    var script = SCRIPT || document.querySelector('script[src$="board.js"]');
    var base = new URL(script ? script.src : "static/board.js", location.href);
    var ws = new URL("../ws", base);
    ws.protocol = ws.protocol === "https:" ? "wss:" : "ws:";
    S.wsURL = ws.href;

    svg = $("board");
    ["static", "zones", "checkers", "marks", "targets", "dice", "drag"].forEach(function (name) {
      layers[name] = el("g", { "class": "layer-" + name }, svg);
    });
    drawStatic();
    applyTheme();
    if (window.matchMedia) {
      var mq = matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) { mq.addEventListener("change", applyTheme); }
    }
    if (S.tg) {
      S.tg.onEvent("themeChanged", applyTheme);
      S.tg.ready();
      S.tg.expand();
    }
    svg.addEventListener("pointerdown", onPointerDown);
    svg.addEventListener("pointermove", onPointerMove);
    svg.addEventListener("pointerup", onPointerUp);
    svg.addEventListener("pointercancel", onPointerCancel);
    svg.addEventListener("lostpointercapture", onPointerCancel);
    svg.addEventListener("contextmenu", function (e) { e.preventDefault(); });
    $("buttons").addEventListener("click", onButton);
    $("confirm-yes").addEventListener("click", function () { answer(true); });
    $("confirm-no").addEventListener("click", function () { answer(false); });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { if (!$("confirm").hidden) { answer(false); } else if (S.selected !== null) { select(null); } }
    });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden && !S.ws && !S.fatal && S.game) { S.retries = 0; connect(); }
    });
    if (!S.game) { render(); fatal(t("noGame")); return; }
    render();
    connect();
  }

  // Telegram's script only where Telegram opened the page (the sandbox and tests have no telegram.org).
  var started = false;
  function startOnce() { if (!started) { started = true; start(); } }
  if (inTelegram()) {
    var tag = document.createElement("script");
    tag.src = TG_SCRIPT;
    tag.onload = startOnce;
    tag.onerror = startOnce;
    document.head.appendChild(tag);
    setTimeout(startOnce, 4000);
  } else {
    startOnce();
  }
}());
