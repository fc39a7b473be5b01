/* What the page holds (the socket, the last state, the selection, the gesture under way) and what the player
 * may do now, read from the state's steps only: the page never decides legality. */

// The one object every module reads and changes: the connection (ws, open, fresh, retries, timer, fatal,
// answerTimer, helloAt), the game shown (game, initData, state), the welcome's (words, lang, dir, and the
// server clock's offset from the page's), the player's input (selected, gesture, inflight, keepFocus),
// Telegram's WebApp object (tg) and the page's settings (reduceMotion, wsURL, drawn).
export const S = {
  tg: null, game: "", initData: "", lang: "en", words: null, dir: "ltr", offset: 0, helloAt: 0,
  keepFocus: false,
  ws: null, open: false, fresh: false, retries: 0, timer: 0, fatal: false, answerTimer: 0,
  state: null, inflight: false, selected: null, gesture: null, toastTimer: 0,
  reduceMotion: false, wsURL: "", drawn: false
};

export function steps() { return (S.state && S.state.you !== null && S.state.steps) || []; }

export function sources() {
  var out = [];
  steps().forEach(function (s) { if (out.indexOf(s.from) < 0) { out.push(s.from); } });
  return out;
}

// Destinations of the checker on `from`: one step each (the smallest die where two dice reach the same).
export function destinations(from) {
  var out = {};
  steps().forEach(function (s) {
    if (s.from === from && (!out[s.to] || s.die < out[s.to].die)) { out[s.to] = s; }
  });
  return out;
}

export function destKeys(from) {
  return Object.keys(destinations(from)).map(function (k) { return k === "off" ? "off" : +k; });
}

export function interactive() { return !!(S.state && S.state.you !== null && S.open && !S.inflight); }
