/* Telegram around the page: its script loaded only where Telegram opened the page (the sandbox and the
 * tests have no telegram.org), and its theme (or the browser's light or dark) on the page's colours. */

import { S } from "./state.js";

const TG_SCRIPT = "https://telegram.org/js/telegram-web-app.js";

// Call `start` once: after Telegram's script (loaded or failed, 4 s at most) where Telegram opened the
// page, at once elsewhere.
export function whenReady(start) {
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
}

// Telegram's WebApp object in S.tg where Telegram opened the page (else null), its theme (or the browser's
// light or dark) on the page now and whenever either changes, and Telegram told the page is ready, full height.
export function joinTelegram() {
  var tg = window.Telegram && window.Telegram.WebApp;
  S.tg = tg && tg.initData !== undefined ? tg : null;
  applyTheme();
  if (window.matchMedia) {
    var mq = matchMedia("(prefers-color-scheme: dark)");
    if (mq.addEventListener) { mq.addEventListener("change", applyTheme); }
  }
  if (S.tg) {
    if (S.tg.onEvent) { S.tg.onEvent("themeChanged", applyTheme); }
    if (S.tg.ready) { S.tg.ready(); }
    if (S.tg.expand) { S.tg.expand(); }
  }
}

export function applyTheme() {
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

// The way back to the home (the page's folder, Telegram's launch data kept): Telegram's BackButton where
// Telegram opened the page; elsewhere a "← Home" link (#home-link) when the home opened this board (`fromHome`:
// ?from=home), whose words page.js keeps in the page's language. From the home, back is the browser's back
// (the home comes back as it was left, and reloads its games).
export function showHomeWay(fromHome) {
  var home = new URL("./", location.href);
  home.hash = location.hash;
  var tg = S.tg, back = tg && tg.BackButton;
  if (back && tg.isVersionAtLeast && tg.isVersionAtLeast("6.1")) {
    back.onClick(function () {
      if (fromHome && history.length > 1) { history.back(); } else { location.href = home.href; }
    });
    back.show();
    return;
  }
  var link = document.getElementById("home-link");
  if (fromHome && link) {
    link.href = home.href;
    link.hidden = false;
  }
}

function inTelegram() {
  var where = location.hash + " " + location.search;
  var stored = false;
  try { stored = !!sessionStorage.getItem("__telegram__initParams"); } catch (e) { /* storage off */ }
  return /tgWebApp(Data|Version|Platform)=/.test(where) || stored || !!window.TelegramWebviewProxy;
}
