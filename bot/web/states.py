"""What the board page shows of a table for one of its people: the `state` message (bot/web/protocol.py) with
the board as the chat's picture draws it (bot/views/board_view.py), the status line and what happened in
the caption's words (bot/views/captions.py), the player's legal single steps and the presses offered, the
same ones the chat's buttons offer (bot/telegram/keyboards.py). Pure: tables in, JSON-ready dicts out."""

from __future__ import annotations

from typing import Any

from bot.i18n import Texts, texts
from bot.model.table import Table
from bot.service.hints import hinted
from bot.views import captions
from bot.views.board_view import board_view
from bot.web.protocol import clock_json, state_message, steps_json, view_json
from engine import Phase, Side


def watcher_side(table: Table) -> Side:
    """The side a watcher sees the board from, as a group's board is drawn: the side to move (the winner
    once the game is over)."""
    game = table.game
    if game.phase is Phase.OVER and game.result is not None:
        return game.result.winner
    return game.turn if game.phase in (Phase.MOVE, Phase.ROLL) else Side.WHITE


def actions(table: Table, you: Side | None) -> list[str]:
    """The presses the page offers `you` now (none to a watcher): Undo and Done as the move picker allows,
    a hint where the chat's board offers one, the cube's choices to the side that decides, Rematch when
    the game is over, Resign while it is not."""
    if you is None:
        return []
    game = table.game
    if game.phase is Phase.OVER:
        return [] if any(p.forgotten for p in table.players) else ["rematch"]
    out: list[str] = []
    if game.deciding is you:
        if game.phase is Phase.MOVE:
            if table.moves:
                out.append("undo")
            if table.step().can_finish:
                out.append("done")
            if not table.moves and hinted(table):
                out.append("hint")
        elif game.phase is Phase.ROLL and game.may_double():
            out += ["roll", "double"]
        elif game.phase is Phase.CUBE:
            out += ["take", "pass"]
    out.append("resign")
    return out


def steps(table: Table, you: Side | None) -> list[dict[str, Any]]:
    """The legal single steps of `you` now: the move picker's next moves, as the chat's buttons offer them."""
    game = table.game
    if you is None or game.phase is not Phase.MOVE or game.turn is not you:
        return []
    return steps_json(game.game, you, table.step().next_moves)


def message_lines(t: Texts, table: Table) -> list[str]:
    """The caption's lines the board does not show: what happened since a person last decided (a live
    game's clocks are not among them: the page draws them ticking, from clock())."""
    return captions.event_lines(t, table)


def clock(table: Table) -> dict[str, Any] | None:
    """A live game's clocks as of this change (saved at `moved_at`, as the caption's clock line reads them),
    for the page to count down from; None in a game without clocks."""
    found = table.clock
    if found is None:
        return None
    at = table.moved_at if table.moved_at is not None else found.since or 0.0
    running = None if table.over else found.running
    return clock_json(found.left(at), running, found.delay_left(at) if running is not None else 0.0, at)


def reviewed(table: Table) -> str | None:
    """The finished game of `table` whose review the page offers, "GAME/N": the game itself once it is
    over; in a match, the game that just ended while the change that began the next one is the last (its
    "next" event); else None. The review checks who may see it (bot/service/reviews.py)."""
    if table.over:
        return f"{table.id}/{table.number}"
    began = any(e.get("k") == "next" and e.get("n") == table.number for e in table.events)
    before = table.proof
    if began and before is not None and before.get("number") == table.number - 1:
        return f"{table.id}/{table.number - 1}"
    return None


def state_of(table: Table, you: Side | None, lang: str, note: str = "") -> dict[str, Any]:
    """The `state` of `table` for `you` (None: a watcher), in `lang`; `note` (a hint, say) ends its message."""
    t = texts(lang)
    viewer = you if you is not None else watcher_side(table)
    view = board_view(
        table, viewer, captions.names(t, table), captions.status_line(t, table, you), t.gettext("pips")
    )
    message = "\n".join([*message_lines(t, table), *([note] if note else [])])
    return state_message(
        table.id,
        table.version,
        t.lang,
        you,
        view_json(view, table.score, table.match.length),
        steps(table, you),
        actions(table, you),
        message,
        clock(table),
        reviewed(table),
    )
