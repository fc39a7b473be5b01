"""The review page's own words (static/review.html: a finished game stepped through with the expert's
analysis, its record's downloads and its dice proof), taken from the bot's catalogues like the board page's
(bot/web/words.py): each a message id marked with N_, sent to the page in its person's language inside the
answer of `api/review`. A word's {placeholders} stay in it: the page fills them. Pure: no I/O."""

from __future__ import annotations

from functools import cache

from bot.i18n import N_, texts

# The review page's words by the key its scripts use.
REVIEW_WORDS: dict[str, str] = {
    "review": N_("Game review"),
    "first": N_("First position"),
    "back": N_("Previous play"),
    "forward": N_("Next play"),
    "last": N_("Final position"),
    "analysis": N_("Analysis"),
    "verified": N_("Dice verified"),
}


def review_words(lang: str) -> dict[str, str]:
    """Every word of the review page in `lang` (one of bot.i18n.LANGUAGES), by its key."""
    return dict(_translated(lang))


@cache
def _translated(lang: str) -> tuple[tuple[str, str], ...]:
    t = texts(lang)
    return tuple((key, t.gettext(message)) for key, message in REVIEW_WORDS.items())
