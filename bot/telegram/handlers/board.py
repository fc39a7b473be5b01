"""Presses on a board: a single move, undo, done, the resign confirmation, rematch.

A move that leaves nothing to choose ends the turn unless its player confirms turns with ✅ Done
(bot/service/settings.py: on in private games and off in group games by default).

Each press is decided and saved (one compare-and-set), then answered; the boards are redrawn after the
answer, in the background (bot/telegram/boards.py). A press carrying an older version on the game's current board
message, while that board is not known to show the latest version, redraws it and says so."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Table
from bot.storage import ChatBusy
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.handlers.claims import offer_claim
from bot.telegram.handlers.common import (
    N_,
    Deps,
    apply_flag,
    button,
    deps,
    game_seeds,
    load_table,
    menu_owner,
    message_of,
    person,
)

BOARD_BEHIND = N_("The board was behind; here it is now.")
BOARD_CHANGED = N_("The board has just changed. Look at it again.")
STALE_WINDOW = 60.0  # seconds: a press on an old version of a current board that looks up to date...
STALE_AGAIN = 3.0  # ...and another one this much later redraws it anyway (once per version)


async def check_board(d: Deps, table: Table, query: CallbackQuery, version: int) -> None:
    """A press with an older version on the game's current board message: redraw it if it may be behind
    (Refused: "here it is now"), else the board has just changed. Presses on older messages pass: flow
    refuses them as out of date. Another such press seconds later on a board Redis believes up to date (the
    person still sees old buttons: an edit landed out of order, say) redraws it anyway, once per version."""
    if version == table.version:
        return
    if query.inline_message_id is not None:
        target = table.board_of_inline(query.inline_message_id)
    elif query.message is not None:
        target = table.board_of(query.message.chat.id, query.message.message_id)
    else:
        return
    if target is None:
        return
    if table.behind(target):
        d.boards.show(table)
        raise Refused(BOARD_BEHIND)
    since = await d.storage.limits.first_seen(f"stale:{table.id}:{version}", STALE_WINDOW)
    late = d.storage.limits.now() - since >= STALE_AGAIN  # not a burst of taps: the person saw no change
    if late and await d.storage.limits.once(f"heal:{table.id}:{version}", STALE_WINDOW):
        d.boards.redraw(table.id, force=True)
        raise Refused(BOARD_BEHIND)
    raise Refused(BOARD_CHANGED)


async def commit(d: Deps, old: Table, new: Table) -> Table:
    """Save a change (compare-and-set) and have its boards drawn once the press is answered. A game of a
    match that this change ended is followed, in the same step, by the match's next game (its dice from
    the players' dice secrets drawn before it, as any game's)."""
    if flow.match_goes_on(new):
        new = await flow.next_match_game(new, d.dice, d.computer, await game_seeds(d, *new.players))
    new = d.stamped(new)
    await d.storage.games.save(new)
    d.boards.show(new, previous=old)
    return new


async def pressed_board(d: Deps, query: CallbackQuery, cb: Callback, t: Texts) -> Table:
    """The game under a press on its board's move buttons, Undo or Done: the board checked to be the current
    one (else it is healed or the press refused), and an idle opponent's claim offered where due."""
    table = await load_table(d.storage, cb.game)
    await apply_flag(d, table)
    await check_board(d, table, query, cb.version)
    await offer_claim(d, table, query, t)
    return table


async def press_moves(
    d: Deps, query: CallbackQuery, cb: Callback, t: Texts, make: Callable[[Table, int], Table]
) -> None:
    """A press that makes moves (`make`: the flow's step, given the table and the presser); for a player who
    does not confirm turns with ✅ Done (their /settings: off, or auto in a group game), the moves that
    leave nothing to choose end the turn."""
    table = await pressed_board(d, query, cb, t)
    uid = query.from_user.id
    moved = make(table, uid)
    if not (await d.settings.get(uid)).confirms(table.mode):
        moved = await flow.end_turn_if_done(table, moved, uid, d.dice, d.computer)
    await commit(d, table, moved)


@button
async def on_move(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A single move of the player on turn (m:), or one checker moved twice (mm:)."""
    then = cb.then if cb.action == "mm" else None
    await press_moves(
        deps(context),
        query,
        cb,
        t,
        lambda table, uid: flow.press_move(table, uid, cb.version, cb.src, cb.die, then),
    )
    return None


@button
async def on_play(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A whole play in one press (p:), offered when a turn has few plays."""
    await press_moves(
        deps(context), query, cb, t, lambda table, uid: flow.press_play(table, uid, cb.version, cb.play_moves)
    )
    return None


@button
async def on_undo(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Take back the last single move of this turn."""
    d = deps(context)
    table = await pressed_board(d, query, cb, t)
    await commit(d, table, flow.press_undo(table, query.from_user.id, cb.version))
    return None


@button
async def on_done(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """End the turn; the opponent's dice are rolled (and the computer plays)."""
    d = deps(context)
    table = await pressed_board(d, query, cb, t)
    await commit(d, table, await flow.press_done(table, query.from_user.id, cb.version, d.dice, d.computer))
    return None


CUBE_PRESSES = {
    "cr": flow.press_roll,
    "cd": flow.press_double,
    "ct": flow.press_take,
    "cp": flow.press_pass,
}


@button
async def on_cube(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """With the cube: 🎲 Roll or Double before a roll (cr:, cd:); Take or Pass a double (ct:, cp:)."""
    d = deps(context)
    table = await pressed_board(d, query, cb, t)
    press = CUBE_PRESSES[cb.action]
    await commit(d, table, await press(table, query.from_user.id, cb.version, d.dice, d.computer))
    return None


@button
async def on_resign_answer(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Yes: the game ends, scored by the engine. No: the question goes away. (On an inline board the menu
    is the board's keyboard: the board itself is redrawn with the result.)"""
    inline = query.inline_message_id is not None
    message = None if inline else message_of(query)
    menu_owner(cb, query)
    d = deps(context)
    table = await load_table(d.storage, cb.game)
    if table.side_of(query.from_user.id) is None:
        raise Refused("You are not playing in this game.")
    if cb.action != "rn":
        await apply_flag(d, table)
    if cb.action == "rn":
        if message is not None:
            where = f"{message.chat.id}:{message.message_id}"
            await d.storage.users.drop_home(where, owner=query.from_user.id)
            d.edit_text(message.chat.id, message.message_id, t.gettext("Play on!"))
        return None
    whole = cb.action == "rm"
    await commit(d, table, flow.resign(table, query.from_user.id, cb.number, whole_match=whole))
    if message is not None:
        name = person(query.from_user).name
        said = (
            t.gettext("{name} resigned the match.", name=name)
            if whole
            else t.gettext("{name} resigned.", name=name)
        )
        d.edit_text(message.chat.id, message.message_id, said)
    return None


@button
async def on_rematch(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """The next game of the series, on new board messages (the old ones lose their keyboards)."""
    d = deps(context)
    table = await load_table(d.storage, cb.game)
    await check_board(d, table, query, cb.version)
    flow.check_rematch(table, query.from_user.id, cb.version)  # before the players' dice secrets are taken
    seeds = await game_seeds(d, *table.players)
    new = d.stamped(await flow.rematch(table, query.from_user.id, cb.version, d.dice, d.computer, seeds))
    if table.mode == "inline":  # an inline game goes on in its one message
        await commit(d, table, new)
        return None
    try:  # one step: the version check, the chats (none may have started another game), the old boards
        await d.storage.games.save(new, new_boards=True)
    except ChatBusy:
        raise Refused("A new game has already started.") from None
    for target in table.targets:
        message_id = table.messages.get(target.key)
        if message_id is not None:
            d.edit_markup(target.chat_id, message_id, None)
    d.boards.show(replace(new, messages={}, shown={}))
    return None


@button
async def on_unknown(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Any other button (callbacks.decode accepted it, but nothing routes it): not valid."""
    raise BadCallback(f"unrouted callback {query.data!r}")
