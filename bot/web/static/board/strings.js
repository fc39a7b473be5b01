/* The page's own few texts, in English and Russian (the server's state carries every other line, translated
 * by the bot's catalogue), and the language a page speaks. */

import { S } from "./state.js";

export const STRINGS = {
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

// A text of the page in its language (English where it has none), each {name} filled from `args`.
export function t(key, args) {
  var table = STRINGS[S.lang] || STRINGS.en;
  var text = table[key] || STRINGS.en[key] || key;
  if (args) {
    Object.keys(args).forEach(function (k) { text = text.split("{" + k + "}").join(String(args[k])); });
  }
  return text;
}

// The page's language for a language code ("ru-RU", "en"): one it has texts for, else English.
export function pickLang(code) {
  code = String(code || "").toLowerCase().slice(0, 2);
  return STRINGS[code] ? code : "en";
}
