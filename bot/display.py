"""Showing tables in Telegram: the board photo and caption, edited in place, with Telegram's errors handled.

- "message is not modified" is ignored;
- a deleted game message ("message to edit not found") is replaced by a new one, whose id is stored;
- a user who blocked the bot (403) is logged and skipped: the game goes on for the other player;
- flood control (429) is retried by PTB's AIORateLimiter before it reaches here."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from telegram import Bot, InlineKeyboardMarkup, InputMediaPhoto
from telegram.error import BadRequest, Forbidden, TelegramError

from bot import captions
from bot.board_view import board_view
from bot.i18n import texts
from bot.keyboards import board_markup
from bot.pictures import render
from bot.storage import Storage, StorageError
from bot.table import Table, Target
from engine import Phase, Side

log = logging.getLogger(__name__)

_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid", "message not found")


def is_not_modified(err: BadRequest) -> bool:
    return "message is not modified" in err.message.lower()


def is_gone(err: BadRequest) -> bool:
    return any(marker in err.message.lower() for marker in _GONE)


def _viewer(table: Table, target: Target) -> Side:
    """The side a board is drawn from: the player's own, or on a group board the side to move."""
    if target.viewer is not None:
        return target.viewer
    game = table.game
    if game.phase is Phase.OVER and game.result is not None:
        return game.result.winner
    return game.turn if game.phase in (Phase.MOVE, Phase.ROLL) else Side.WHITE


def _view(table: Table, target: Target) -> object:
    """What the picture of `target`'s board shows (equal views draw the same picture)."""
    t = texts(target.lang)
    return board_view(
        table,
        _viewer(table, target),
        captions.names(t, table),
        captions.status_line(t, table, target.viewer),
        t.gettext("pips"),
    )


def _render_parts(table: Table, target: Target) -> tuple[object, str, InlineKeyboardMarkup | None]:
    t = texts(target.lang)
    view = _view(table, target)
    return view, captions.caption(t, table, target.viewer), board_markup(t, table, target.viewer)


def same_picture(previous: Table | None, table: Table, target: Target, view: object) -> bool:
    """Whether `target`'s board of `table` (drawn as `view`) looks as it did for `previous`: then only
    the caption and keyboard are edited. The old view is drawn only when the game and the turn's moves
    are unchanged; otherwise the board changed."""
    return (
        previous is not None
        and previous.number == table.number
        and previous.moves == table.moves
        and previous.game == table.game
        and _view(previous, target) == view
    )


async def show(bot: Bot, storage: Storage, table: Table, previous: Table | None = None) -> None:
    """Bring every board message of `table` up to date (edit in place, or send a new message)."""
    await asyncio.gather(*(_show_target(bot, storage, table, target, previous) for target in table.targets))


async def _show_target(
    bot: Bot, storage: Storage, table: Table, target: Target, previous: Table | None
) -> None:
    view, text, markup = _render_parts(table, target)
    message_id = table.messages.get(target.key)
    try:
        if message_id is not None:
            try:
                if same_picture(previous, table, target, view):
                    await bot.edit_message_caption(
                        chat_id=target.chat_id, message_id=message_id, caption=text, reply_markup=markup
                    )
                else:
                    image = await render(view)
                    await bot.edit_message_media(
                        chat_id=target.chat_id,
                        message_id=message_id,
                        media=InputMediaPhoto(image, caption=text),
                        reply_markup=markup,
                    )
                return
            except BadRequest as err:
                if is_not_modified(err):
                    return
                if not is_gone(err):
                    raise
                log.info(
                    "game %s: board message %s in chat %s is gone (%s); sending a new one",
                    table.id,
                    message_id,
                    target.chat_id,
                    err.message,
                )
        image = await render(view)
        sent = await bot.send_photo(chat_id=target.chat_id, photo=image, caption=text, reply_markup=markup)
        try:
            await storage.set_message(table.id, target.key, sent.message_id)
        except StorageError:
            log.exception("game %s: could not remember board message %s", table.id, sent.message_id)
    except Forbidden as err:
        log.warning(
            "game %s: chat %s does not accept messages (%s); the game goes on",
            table.id,
            target.chat_id,
            err.message,
        )
    except TelegramError:
        log.exception("game %s: could not show the board in chat %s", table.id, target.chat_id)


async def repost(bot: Bot, storage: Storage, table: Table, chat_id: int) -> None:
    """Show the boards of `table` in `chat_id` again as new messages (the old ones lose their keyboards)."""
    for target in table.targets:
        if target.chat_id != chat_id:
            continue
        old = table.messages.get(target.key)
        if old is not None:
            try:
                await bot.edit_message_reply_markup(chat_id=chat_id, message_id=old, reply_markup=None)
            except TelegramError as err:
                log.info("game %s: old board %s not cleared: %s", table.id, old, err)
        fresh = replace(table, messages={k: v for k, v in table.messages.items() if k != target.key})
        await _show_target(bot, storage, fresh, target, None)


async def retire(bot: Bot, table: Table) -> None:
    """Take the keyboards off a table's board messages (before a rematch starts new ones)."""
    for target in table.targets:
        message_id = table.messages.get(target.key)
        if message_id is None:
            continue
        try:
            await bot.edit_message_reply_markup(
                chat_id=target.chat_id, message_id=message_id, reply_markup=None
            )
        except BadRequest as err:
            if not (is_not_modified(err) or is_gone(err)):
                log.warning(
                    "game %s: could not clear the keyboard of %s: %s", table.id, message_id, err.message
                )
        except TelegramError as err:
            log.warning("game %s: could not clear the keyboard of %s: %s", table.id, message_id, err)


async def edit_markup(bot: Bot, chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None) -> None:
    """Change (or take off, with None) a message's keyboard; not-modified and gone messages are fine."""
    try:
        await bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=markup)
    except BadRequest as err:
        if not (is_not_modified(err) or is_gone(err)):
            log.warning("could not edit the keyboard of %s in chat %s: %s", message_id, chat_id, err.message)
    except TelegramError as err:
        log.warning("could not edit the keyboard of %s in chat %s: %s", message_id, chat_id, err)


async def say(bot: Bot, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None) -> int | None:
    """Send a text message; a blocked chat is logged, not raised. Returns the message id."""
    try:
        sent = await bot.send_message(chat_id=chat_id, text=text, reply_markup=markup)
        return sent.message_id
    except Forbidden as err:
        log.warning("chat %s does not accept messages (%s)", chat_id, err.message)
    except TelegramError:
        log.exception("could not send a message to chat %s", chat_id)
    return None


async def edit_text(
    bot: Bot, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None = None
) -> None:
    """Edit a text message (menus, lobbies, invitations); not-modified and gone messages are fine."""
    try:
        await bot.edit_message_text(chat_id=chat_id, message_id=message_id, text=text, reply_markup=markup)
    except BadRequest as err:
        if not (is_not_modified(err) or is_gone(err)):
            log.warning("could not edit message %s in chat %s: %s", message_id, chat_id, err.message)
    except TelegramError as err:
        log.warning("could not edit message %s in chat %s: %s", message_id, chat_id, err)
