"""Presses on a board: a single move, undo, done, the resign confirmation, rematch.

A move that leaves nothing to choose ends the turn unless its player confirms turns with ✅ Done
(bot/service/settings.py: on in private games and off in group games by default).

Each press is decided and saved (one compare-and-set), then answered; the boards are redrawn after the
answer, in the background (bot/telegram/boards.py). A press carrying an older version on the game's current board
message, while that board is not known to show the latest version, redraws it and says so."""

from __future__ import annotations

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from bot.i18n import Texts
from bot.model.flow import Refused
from bot.model.table import Table
from bot.service import games
from bot.service.answers import BOARD_CHANGED
from bot.service.context import load as load_game
from bot.telegram.callbacks import BadCallback, Callback
from bot.telegram.handlers.claims import offer_claim
from bot.telegram.handlers.common import (
    N_,
    Deps,
    button,
    deps,
    menu_owner,
    message_of,
    person,
)

BOARD_BEHIND = N_("The board was behind; here it is now.")
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


async def pressed_board(d: Deps, query: CallbackQuery, cb: Callback, t: Texts) -> Table:
    """The game under a press on its board's move buttons, Undo or Done: the board checked to be the current
    one (else it is healed or the press refused), and an idle opponent's claim offered where due."""
    table = await games.apply_flag(d, await load_game(d, cb.game))
    await check_board(d, table, query, cb.version)
    await offer_claim(d, table, query, t)
    return table


@button
async def on_move(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A single move of the player on turn (m:), or one checker moved twice (mm:)."""
    d = deps(context)
    table = await pressed_board(d, query, cb, t)
    then = cb.then if cb.action == "mm" else None
    await games.move(d, table, query.from_user.id, cb.version, cb.src, cb.die, then)
    return None


@button
async def on_play(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """A whole play in one press (p:), offered when a turn has few plays."""
    d = deps(context)
    table = await pressed_board(d, query, cb, t)
    await games.play(d, table, query.from_user.id, cb.version, cb.play_moves)
    return None


@button
async def on_undo(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Take back the last single move of this turn."""
    d = deps(context)
    await games.undo(d, await pressed_board(d, query, cb, t), query.from_user.id, cb.version)
    return None


@button
async def on_done(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """End the turn; the opponent's dice are rolled (and the computer plays)."""
    d = deps(context)
    await games.done(d, await pressed_board(d, query, cb, t), query.from_user.id, cb.version)
    return None


CUBE_ACTIONS = {"cr": "roll", "cd": "double", "ct": "take", "cp": "pass"}


@button
async def on_cube(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """With the cube: 🎲 Roll or Double before a roll (cr:, cd:); Take or Pass a double (ct:, cp:)."""
    d = deps(context)
    table = await pressed_board(d, query, cb, t)
    await games.cube(d, table, query.from_user.id, cb.version, CUBE_ACTIONS[cb.action])
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
    table = await load_game(d, cb.game)
    if table.side_of(query.from_user.id) is None:
        raise Refused("You are not playing in this game.")
    if cb.action != "rn":
        table = await games.apply_flag(d, table)
    if cb.action == "rn":
        if message is not None:
            where = f"{message.chat.id}:{message.message_id}"
            await d.storage.users.drop_home(where, owner=query.from_user.id)
            d.edit_text(message.chat.id, message.message_id, t.gettext("Play on!"))
        return None
    whole = cb.action == "rm"
    await games.resign(d, table, query.from_user.id, cb.number, whole_match=whole)
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
    table = await load_game(d, cb.game)
    await check_board(d, table, query, cb.version)
    await games.rematch(d, table, query.from_user.id, cb.version)  # the old boards lose their keyboards
    return None


@button
async def on_unknown(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback, t: Texts
) -> str | None:
    """Any other button (callbacks.decode accepted it, but nothing routes it): not valid."""
    raise BadCallback(f"unrouted callback {query.data!r}")
