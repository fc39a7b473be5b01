"""The standings page's words (bot/web/static/tourney/), taken from the bot's catalogues like the board
page's (bot/web/words.py): message ids marked with N_, sent in the page's person's language with every
answer. A word's {placeholders} stay in it: the page fills them. Pure: no I/O."""

from __future__ import annotations

from bot.i18n import N_, translate_all

TOURNEY_WORDS: dict[str, str] = {
    "standings": N_("Standings"),
    "bracket": N_("Bracket"),
    "playingNow": N_("Playing now"),
    "players": N_("Players signed up"),
    "points": N_("Points"),
    "timeLeft": N_("Time left: {time}"),
    "startsIn": N_("Starts in {time}"),
    "finished": N_("The tournament is over."),
    "cancelled": N_("The tournament was cancelled."),
    "noTourney": N_("No tournament to show: open the standings from the group's tournament card."),
    "round": N_("Round {n}"),
    "bye": N_("bye"),
}


def tourney_words(lang: str) -> dict[str, str]:
    """Every word of the standings page in `lang` (one of bot.i18n.LANGUAGES), by its key."""
    return translate_all(TOURNEY_WORDS, lang)
