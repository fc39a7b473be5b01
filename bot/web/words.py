"""The board page's own words (its buttons, its connection's line, the labels a screen reader reads), taken
from the bot's catalogues like every text of the chat: each is a message id here, marked with N_ so that
`python -m bot.i18n update` extracts it, and the server sends a page its words in its person's language in
the answer to its hello (protocol.welcome_message). The page keeps no list of texts of its own, only the
English of the few it shows before that answer comes (bot/web/static/board/strings.js, pinned to these
ids by tests/web/test_page_words.py).

A word's {placeholders} stay in it: the page fills them (a cube's value, a point's number). Pure: no I/O.
"""

from __future__ import annotations

from bot.i18n import N_, RIGHT_TO_LEFT, translate_all

# The page's words by the key its scripts use (strings.js t(key)).
PAGE_WORDS: dict[str, str] = {
    # the connection's line and fatal errors the page finds itself
    "connecting": N_("connecting…"),
    "reconnecting": N_("reconnecting…"),
    "watching": N_("watching"),
    "noGame": N_("No game to show: open the board from the bot's message."),
    "noAnswer": N_("No answer from the server: connecting again."),
    "home": N_("Home"),  # the way back to the Mini App's home, outside Telegram (static/board/telegram.js)
    # the players' panels and the match
    "you": N_("you"),
    "pips": N_("pips"),
    "white": N_("White"),
    "black": N_("Black"),
    "match": N_("Match to {n}"),
    "delay": N_("+{delay} s"),
    # the buttons (the page draws its own symbol before each: ↶ ✓ ⚂ ⚑ ? ↻)
    "undo": N_("Undo"),
    "done": N_("Done"),
    "roll": N_("Roll"),
    "double": N_("Double to {value}"),
    "take": N_("Take ({value})"),
    "pass": N_("Pass"),
    "resign": N_("Resign"),
    "hint": N_("Hint"),
    "rematch": N_("Rematch"),
    "review": N_("Game review"),  # the link to a finished game's review (static/review.html)
    # resigning asks first
    "confirm": N_("Do you really want to resign this game?"),
    "yes": N_("Yes, resign"),
    "no": N_("No, play on"),
    # for screen readers: the board, what stands where, and the legal moves as buttons
    "board": N_("Nardy board"),
    "moves": N_("Your moves"),
    "move": N_("From point {src} to point {dst}"),
    "enter": N_("From the bar to point {dst}"),
    "bearOff": N_("From point {src} off the board"),
    "onPoint": N_("Point {n}: {side}, {count}"),
    "onBar": N_("Bar: {side}, {count}"),
    "borneOff": N_("Borne off: {side}, {count}"),
}


def direction(lang: str) -> str:
    """How a page in `lang` runs: "rtl" for the languages written right to left, else "ltr"."""
    return "rtl" if lang in RIGHT_TO_LEFT else "ltr"


def page_words(lang: str) -> dict[str, str]:
    """Every word of the page in `lang` (one of bot.i18n.LANGUAGES), by its key."""
    return translate_all(PAGE_WORDS, lang)
