"""💡 Hints: the best plays for the player on turn and their chance to win (engine/ai/analysis.py `hint`,
worked out in the analysis workers), offered at a turn's start in games that change no rating (a hint in a
rated game would let the expert play it). The Telegram front shows one as an alert, the board page as its
message; both ask here, so a hint is offered and refused alike wherever it was asked for."""

from __future__ import annotations

from bot.i18n import N_, Texts
from bot.model.flow import Refused
from bot.model.table import Table
from bot.service.context import Services
from bot.workers.computer import HintRequest, think
from engine import Phase
from engine.ai.analysis import Hint

HINTED = ("short", "long")  # variants whose boards offer 💡 at a turn's start
HINTS_KEPT = 512  # hints kept per process, by (game, version): a press again costs no search
HINT_FOR_MOVER = N_("A hint is for the player on turn.")
NO_HINT_RATED = N_("No hints in a rated game: it changes both players' ratings.")
OUT_OF_DATE = N_("This board is out of date. Use the latest message.")


def hinted(table: Table) -> bool:
    """Whether the board offers 💡 at a turn's start: a variant with hints, in a game that changes no
    rating."""
    return table.game.game in HINTED and not table.changes_ratings


async def hint(s: Services, table: Table, user_id: int, version: int) -> Hint:
    """The hint for `user_id`, the player on turn, on the board of `version`; Refused in a rated game (never
    offered there: a forged press), on an old board, or for anyone but the player on turn."""
    if table.changes_ratings:
        raise Refused(NO_HINT_RATED)
    if table.version != version:
        raise Refused(OUT_OF_DATE)
    game = table.game
    if game.phase is not Phase.MOVE or table.side_of(user_id) is not game.turn:
        raise Refused(HINT_FOR_MOVER)
    key = (table.id, table.version)
    found: Hint | None = s.hints.get(key)
    if found is None:
        found = await think(s.analysts, HintRequest(game.to_json()))
        s.hints[key] = found
        while len(s.hints) > HINTS_KEPT:
            del s.hints[next(iter(s.hints))]
    return found


def hint_text(t: Texts, found: Hint, limit: int) -> str:
    """The hint in words, at most `limit` characters: the best play and its chance, then the next ones."""
    best = found.options[0]
    text = t.gettext(
        "💡 Best: {play} (your chance to win: {chance}%).",
        play=str(best.play) or "—",
        chance=round(100 * best.win_chance),
    )
    if len(found.options) > 1:
        text += " " + t.gettext("Next: {plays}", plays="; ".join(str(o.play) for o in found.options[1:]))
    return text[:limit]
