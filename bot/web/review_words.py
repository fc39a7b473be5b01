"""The review page's own words (static/review.html: a finished game stepped through with the expert's
analysis, its record's downloads and its dice proof), taken from the bot's catalogues like the board page's
(bot/web/words.py): each a message id marked with N_, sent to the page in its person's language inside the
answer of `api/review`. The words the board's own drawing asks for (draw.js: the board's and its checkers'
labels, the sides) are the board page's message ids again, under the same keys. A word's {placeholders}
stay in it: the page fills them. Pure: no I/O."""

from __future__ import annotations

from bot.i18n import N_, translate_all

# The review page's words by the key its scripts use (../board/strings.js t(key)).
REVIEW_WORDS: dict[str, str] = {
    "review": N_("Game review"),
    "home": N_("Home"),
    # stepping through the game
    "first": N_("First position"),
    "back": N_("Previous play"),
    "forward": N_("Next play"),
    "last": N_("Final position"),
    "autoplay": N_("Play through"),
    "pause": N_("Pause"),
    "start": N_("Start position"),
    "playOf": N_("Play {n} of {total}: {side} {dice} {play}"),
    "plays": N_("Plays"),
    "forced": N_("forced"),
    # the analysis
    "analysis": N_("Analysis"),
    "analysing": N_("Analysing the game…"),
    "retry": N_("Try again"),
    "errorRate": N_("Error rate"),
    "doubtful": N_("Doubtful (?!)"),
    "errors": N_("Errors (?)"),
    "blunders": N_("Blunders (??)"),
    "decisions": N_("Decisions"),
    "better": N_("Better: {play} (lost {loss})"),
    "bestPlay": N_("The best play"),
    "showBetter": N_("Show the better play"),  # on the position before the play (key B; pressed again: back)
    "graph": N_("White's chance to win"),
    # the record's files
    "downloads": N_("Downloads"),
    "mat": N_("Match file (.mat)"),
    "txt": N_("Text record"),
    "json": N_("Record (JSON)"),
    # the dice proof, checked in the page
    "proof": N_("Dice proof"),
    "commitment": N_("Commitment"),
    "seed": N_("Secret seed"),
    "parts": N_("Seed parts (white, black)"),
    "clients": N_("Players' seeds (white, black)"),
    "checking": N_("Checking the dice…"),
    "verified": N_("Dice verified"),
    "rollsChecked": N_("{count} rolls checked in this browser"),
    "failCommitment": N_("Check failed: SHA-256 of the seed is not the commitment"),
    "failParts": N_("Check failed: the seed is not SHA-256 of its parts"),
    "failRoll": N_("Check failed: roll {n} is {derived} by the seeds but {recorded} in the record"),
    "failCount": N_("Check failed: the seeds made {made} rolls, the record shows {rolls}"),
    "noProof": N_("This game was played before the dice were provable."),
    "noCrypto": N_("This browser cannot check the dice."),
    # the board's own labels (bot/web/words.py's message ids)
    "board": N_("Nardy board"),
    "white": N_("White"),
    "black": N_("Black"),
    "you": N_("you"),
    "onPoint": N_("Point {n}: {side}, {count}"),
    "onBar": N_("Bar: {side}, {count}"),
    "borneOff": N_("Borne off: {side}, {count}"),
}


def review_words(lang: str) -> dict[str, str]:
    """Every word of the review page in `lang` (one of bot.i18n.LANGUAGES), by its key."""
    return translate_all(REVIEW_WORDS, lang)
