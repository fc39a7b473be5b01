"""Games that wait too long: a live game's clock (the side it waits for runs out of time) and the idle claim
(the opponent of a player idle for a day claims the game). Pure: the time comes in as an argument."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import replace

from bot.model.flow import Refused, _event, game_ended
from bot.model.table import Table
from engine import Phase, Side


def decision_key(table: Table) -> str:
    """Which decision a game waits for: a new one begins when a turn or a cube action is made, or the next
    game of the series starts (moves within a turn, and Undo, are the same decision)."""
    game = table.game
    return f"{table.number}:{len(game.history)}:{len(game.cube_actions)}:{int(game.deciding)}"


def tick(table: Table, now: float) -> Table:
    """`table` as saved at `now`: its clock runs for the side whose decision the game waits for (a new
    decision starts it afresh, charging the one that ended) and stops when the game is over."""
    clock = table.clock
    if clock is None:
        return table
    if table.over:
        stopped = clock if clock.running is None else clock.switch(now, None, number=table.number)
        return replace(table, clock=stopped)
    key = decision_key(table)
    if clock.running is not None and clock.key == key:
        return table
    ended_in = int(clock.key.split(":")[0]) if clock.key else table.number
    return replace(table, clock=clock.switch(now, table.game.deciding, key, number=ended_in))


def excuse(table: Table, outages: Sequence[tuple[float, float]], now: float) -> Table:
    """`table` with the time its running clock spent in `outages` (Redis or the bot away) given back
    (bot/model/clock.py Clock.excuse): nobody loses on time because nobody could press."""
    if table.clock is None or table.over:
        return table
    clock = table.clock.excuse(outages, now)
    return table if clock is table.clock else replace(table, clock=clock)


def flagged(table: Table, now: float) -> Side | None:
    """The side whose time ran out by `now` in a live game, if any."""
    if table.clock is None or table.over:
        return None
    return table.clock.flagged(now)


def time_out(table: Table, now: float) -> Table:
    """The player whose time ran out loses: the whole match, or the single game as if they resigned it."""
    side = flagged(table, now)
    if side is None:
        raise Refused("Nobody's time has run out.")
    assert table.clock is not None
    deadline = table.clock.deadline()
    assert deadline is not None
    ended = game_ended(replace(table, game=table.game.resign(side), moves=()), "time", side)
    stopped = replace(ended, clock=table.clock.switch(deadline, None, number=table.number))
    return stopped.bump(events=(_event("time", s=int(side)),))


# ---------------------------------------------------------------------- abandoned games


def idle_side(table: Table, now: float, claim_after: float) -> Side | None:
    """The human player on turn who has not moved for `claim_after` seconds, or None.

    Against the computer nobody can claim: the human is the only one who can be idle."""
    if table.over or table.mode == "computer" or table.moved_at is None:
        return None
    if table.game.phase not in (Phase.MOVE, Phase.ROLL, Phase.CUBE):
        return None
    if now - table.moved_at < claim_after:
        return None
    side = table.game.deciding
    return side if table.players[side].reachable else None


def check_claim(
    table: Table, user_id: int, now: float, claim_after: float, unreachable: Collection[Side] = ()
) -> Side:
    """The idle side that `user_id` may claim the game from; Refused with the reason otherwise.

    `unreachable`: sides the bot could not reach (403: they blocked it or deleted the chat) since their board
    was last shown. Such an opponent cannot see the game, so they may be claimed from at once, whoever's turn
    it is (their board shown again clears the mark: they came back)."""
    side = table.side_of(user_id)
    if side is None:
        raise Refused("You are not playing in this game.")
    if table.over:
        raise Refused("This game is over.")
    if table.mode == "computer":
        raise Refused("There is nothing to claim in a game against the computer. Send /resign to end it.")
    if side.other in unreachable and table.players[side.other].reachable:
        return side.other
    if table.game.deciding is side:
        raise Refused("It is your turn: there is nothing to claim.")
    if idle_side(table, now, claim_after) is None:
        left = claim_after - (now - (table.moved_at if table.moved_at is not None else now))
        if left > 3600:
            raise Refused(
                "Your opponent still has time to move. You can claim the win in {hours} h.",
                hours=math.ceil(left / 3600),
            )
        raise Refused(
            "Your opponent still has time to move. You can claim the win in {minutes} min.",
            minutes=max(1, math.ceil(left / 60)),
        )
    return table.game.deciding


def claim(
    table: Table,
    user_id: int,
    version: int,
    now: float,
    claim_after: float,
    unreachable: Collection[Side] = (),
) -> Table:
    """The opponent of an idle (or unreachable: see check_claim) player claims the game: scored like a
    resignation of that player. The button's version must be the game's, except against an unreachable
    player (who cannot see the game: what changed since the button was sent does not matter)."""
    side = table.side_of(user_id)
    if table.version != version and (side is None or side.other not in unreachable):
        raise Refused("This board is out of date. Use the latest message.")
    idle = check_claim(table, user_id, now, claim_after, unreachable)
    gone = idle in unreachable
    ended = game_ended(replace(table, game=table.game.resign(idle)), "claimed", idle)
    event = _event("gone" if gone else "claim", s=int(idle))
    return ended.bump(moves=(), events=(event,))
