/* The nardy board page (issue 24), the entry of its modules: draws the server's state in SVG and sends
 * presses; it never decides legality. One WebSocket at ../ws (next to static/): hello, then states in,
 * presses out. No framework, no build step, no inline script or style (the page runs under a strict CSP).
 *
 * The modules, lowest first (each imports only those above it):
 *   geometry.js   where everything is on the board (render/layout.py's numbers)
 *   state.js      what the page holds, and what the player may do now (the state's steps)
 *   strings.js    the page's words (sent by the server in its person's language) and its direction
 *   clock.js      a live game's clocks, ticking between states from the server's time
 *   dom.js        small DOM helpers
 *   draw.js       the board in SVG
 *   moves.js      the legal moves as buttons (the keyboard's and screen readers' way to move)
 *   page.js       the page around the board (panels, status, buttons, toasts); render()
 *   connection.js the socket: hello, states in, presses out, reconnecting
 *   motion.js     checkers in motion (a drop flying back, a pressed checker waiting)
 *   input.js      the pointer: tap and drag on one path
 *   controls.js   the buttons and the keys
 *   telegram.js   Telegram's script and theme
 *   main.js       this: reads the page's address and Telegram's data, starts the rest */

import { S } from "./state.js";
import { t } from "./strings.js";
import { $ } from "./dom.js";
import { mount } from "./draw.js";
import { fatal, render } from "./page.js";
import { connect } from "./connection.js";
import { listen as listenToPointer } from "./input.js";
import { listen as listenToControls } from "./controls.js";
import { joinTelegram, showHomeWay, whenReady } from "./telegram.js";
import { startTicking } from "./clock.js";

// The socket's address: ../ws next to static/, wherever the page is served (/app/, a sandbox seat's folder).
const WS_URL = new URL("../../ws", import.meta.url);

function start() {
  joinTelegram();
  var unsafe = (S.tg && S.tg.initDataUnsafe) || {};
  var params = new URLSearchParams(location.search);
  S.game = params.get("game") || unsafe.start_param || "";
  S.initData = (S.tg && S.tg.initData) || "";
  S.reduceMotion = !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);
  WS_URL.protocol = WS_URL.protocol === "https:" ? "wss:" : "ws:";
  S.wsURL = WS_URL.href;

  mount($("board"));
  showHomeWay(params.get("from") === "home");
  listenToPointer();
  listenToControls();
  startTicking();
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && !S.ws && !S.fatal && S.game) { S.retries = 0; connect(); }
  });
  if (!S.game) { render(); fatal(t("noGame")); return; }
  render();
  connect();
}

whenReady(start);
