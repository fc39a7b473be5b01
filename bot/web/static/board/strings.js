/* The page's words. The server sends them in its person's language, from the bot's catalogues like every
 * text of the chat (bot/web/words.py), in the answer to the hello (`welcome`); until it comes, the page
 * shows the English of the few words it may need first. No other list of texts is kept here. */

import { S } from "./state.js";

// Before the welcome: the message ids of bot/web/words.py (tests/web/test_page_words.py pins them).
export const FIRST = {
  connecting: "connecting…", reconnecting: "reconnecting…", board: "Nardy board",
  noGame: "No game to show: open the board from the bot's message.",
  noAnswer: "No answer from the server: connecting again.", home: "Home"
};

// A word of the page in its person's language, each {name} filled from `args`.
export function t(key, args) {
  var text = (S.words && S.words[key]) || FIRST[key] || key;
  if (args) {
    Object.keys(args).forEach(function (k) { text = text.split("{" + k + "}").join(String(args[k])); });
  }
  return text;
}

// The welcome's words, language and direction (the board itself stays as it is: only the page around it
// runs right to left).
export function welcome(message) {
  if (message.words && typeof message.words === "object") { S.words = message.words; }
  if (typeof message.lang === "string") { S.lang = message.lang; }
  S.dir = message.dir === "rtl" ? "rtl" : "ltr";
}
