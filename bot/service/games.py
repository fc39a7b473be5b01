"""What a player does in a game, as plain async functions over plain values: each takes the game as loaded
(`context.load`), the presser's user id and the version their board showed, decides with the model's flow,
saves with one compare-and-set and tells the fronts (`Services.changed`). Refusals are `Refused` (the
front translates them); a change made first by someone else is `VersionConflict`. The Telegram handlers and
the web page's server both call these, so a press means the same wherever it was made."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.i18n import N_
from bot.model import flow, waiting
from bot.model.flow import ComputerPlayer, DiceSource, Refused
from bot.model.table import Table
from bot.model.tournament import lost_on_time_unrated
from bot.service.context import Services, game_seeds
from bot.storage import ChatBusy, VersionConflict
from engine import Side

TIME_RAN_OUT = N_("⏱ {name}'s time ran out: {other} wins.")
NEW_GAME_STARTED = N_("A new game has already started.")


async def commit(s: Services, old: Table, new: Table) -> Table:
    """Save a change (compare-and-set) and have the fronts show it. A game of a match that this change
    ended is followed, in the same step, by the match's next game (its dice from the players' dice secrets
    drawn before it, as any game's)."""
    if flow.match_goes_on(new):
        new = await flow.next_match_game(new, s.dice, s.computer, await game_seeds(s, *new.players))
    new = s.stamped(new)
    await s.storage.games.save(new)
    s.changed(new, old)
    return new


async def end_on_time(s: Services, table: Table, now: float) -> bool:
    """If the running side's time ran out by `now`, the game is lost on time: saved (a compare-and-set: a
    change that came first wins) and shown. True if this call ended it."""
    if waiting.flagged(table, now) is None:
        return False
    ended = replace(waiting.time_out(table, now), moved_at=now)  # not stamped: the clock stopped at the flag
    ended = lost_on_time_unrated(ended)  # a tournament's walkover is not rated
    try:
        await s.storage.games.save(ended)
    except VersionConflict:  # another press or the clocks' sweeper applied it (or a move landed) first
        return False
    s.changed(ended, table)
    return True


async def apply_flag(s: Services, table: Table) -> Table:
    """A live game whose running side's time ran out by now is lost on time before any press on it counts:
    Refused says so. While time is left: the table to go on with, its clock given back the time Redis or the
    bot was away (`s.outages`), so that the press's save keeps that."""
    now = s.clock()
    table = waiting.excuse(table, s.outages, now)
    side = waiting.flagged(table, now)
    if side is None:
        return table
    await end_on_time(s, table, now)
    who = (table.players[side].name, table.players[side.other].name)
    raise Refused(TIME_RAN_OUT, name=who[0], other=who[1])


async def _moves(s: Services, table: Table, user_id: int, moved: Table) -> Table:
    """Moves of `user_id`'s press: for a player who does not confirm turns with ✅ Done (their /settings:
    off, or auto in a group game), the moves that leave nothing to choose end the turn."""
    if not (await s.settings.get(user_id)).confirms(table.mode):
        moved = await flow.end_turn_if_done(table, moved, user_id, s.dice, s.computer)
    return await commit(s, table, moved)


async def move(
    s: Services, table: Table, user_id: int, version: int, src: int, die: int, then: int | None = None
) -> Table:
    """A single move of the player on turn (src, die); with `then`, the same checker goes on by that die."""
    return await _moves(s, table, user_id, flow.press_move(table, user_id, version, src, die, then))


async def play(
    s: Services, table: Table, user_id: int, version: int, moves: tuple[tuple[int, int], ...]
) -> Table:
    """A whole play in one press."""
    return await _moves(s, table, user_id, flow.press_play(table, user_id, version, moves))


async def undo(s: Services, table: Table, user_id: int, version: int) -> Table:
    """Take back the last single move of this turn."""
    return await commit(s, table, flow.press_undo(table, user_id, version))


async def done(s: Services, table: Table, user_id: int, version: int) -> Table:
    """End the turn; the opponent's dice are rolled (and the computer plays)."""
    return await commit(s, table, await flow.press_done(table, user_id, version, s.dice, s.computer))


CubePress = Callable[[Table, int, int, DiceSource, ComputerPlayer], Awaitable[Table]]
CUBE_PRESSES: dict[str, CubePress] = {
    "roll": flow.press_roll,
    "double": flow.press_double,
    "take": flow.press_take,
    "pass": flow.press_pass,
}


async def cube(s: Services, table: Table, user_id: int, version: int, action: str) -> Table:
    """With the cube: "roll" or "double" before a roll; "take" or "pass" a double."""
    press = CUBE_PRESSES[action]
    return await commit(s, table, await press(table, user_id, version, s.dice, s.computer))


async def resign(s: Services, table: Table, user_id: int, number: int, whole_match: bool = False) -> Table:
    """The user gives up game `number` (with `whole_match`, the match), scored as the engine says."""
    return await commit(s, table, flow.resign(table, user_id, number, whole_match=whole_match))


async def unreachable_sides(s: Services, table: Table) -> frozenset[Side]:
    """The players of a game of two private chats whom the bot could not reach since their board was shown."""
    if table.mode in ("group", "computer") or table.over:
        return frozenset()
    keys = await s.storage.games.unreachable(table.id)
    return frozenset(Side(i) for i, key in enumerate("wb") if key in keys)


async def claim(s: Services, table: Table, user_id: int, version: int) -> Table:
    """The opponent of an idle (or unreachable) player claims the game: scored as that player's resignation."""
    gone = await unreachable_sides(s, table)
    new = s.stamped(waiting.claim(table, user_id, version, s.clock(), s.claim_after, gone))
    await s.storage.games.save(new)
    s.changed(new, table)
    return new


async def rematch(s: Services, table: Table, user_id: int, version: int) -> Table:
    """The next game of the series, same players and sides: in an inline game on its one message; else on
    new board messages (the front retires the old ones)."""
    flow.check_rematch(table, user_id, version)  # before the players' dice secrets are taken
    seeds = await game_seeds(s, *table.players)
    new = s.stamped(await flow.rematch(table, user_id, version, s.dice, s.computer, seeds))
    if table.mode == "inline":  # an inline game goes on in its one message
        return await commit(s, table, new)
    try:  # one step: the version check, the chats (none may have started another game), the old boards
        await s.storage.games.save(new, new_boards=True)
    except ChatBusy:
        raise Refused(NEW_GAME_STARTED) from None
    s.changed(replace(new, messages={}, shown={}))
    s.retired(table)
    return new
