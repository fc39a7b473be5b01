"""Telegram's side of showing things: a board photo and caption edited in place, text messages, keyboards.

- "message is not modified" means the board already shows it;
- a deleted board message ("message to edit not found") is replaced by a new one, whose id is stored;
- a user who blocked the bot (403) is logged and skipped: the game goes on for the other player;
- flood control (429) is retried by the rate limiter (bot/telegram/rate_limit.py) before it reaches here.
When and how often a board is drawn is bot/telegram/boards.py's business; sends wait in bot/telegram/outbox.py."""

from __future__ import annotations

import logging
from dataclasses import replace
from enum import Enum

from telegram import Bot, InlineKeyboardMarkup, InputFile, InputMediaPhoto, ReplyParameters
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.i18n import texts
from bot.model.table import Table, Target
from bot.storage import Storage, StorageError
from bot.telegram import button_homes
from bot.telegram.keyboards import WebAppLinks, board_markup
from bot.views import captions
from bot.views.board_view import board_view
from bot.workers.pictures import render
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
    t = texts(target.lang).for_picture()
    return board_view(
        table,
        _viewer(table, target),
        captions.names(t, table),
        captions.status_line(t, table, target.viewer),
        t.gettext("pips"),
        target.theme,
    )


def _render_parts(
    table: Table, target: Target, links: WebAppLinks | None = None
) -> tuple[object, str, InlineKeyboardMarkup | None]:
    t = texts(target.lang)
    view = _view(table, target)
    return view, captions.caption(t, table, target.viewer), board_markup(t, table, target.viewer, links)


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


def same_words(
    previous: Table | None,
    target: Target,
    text: str,
    markup: InlineKeyboardMarkup | None,
    links: WebAppLinks | None = None,
) -> bool:
    """Whether `target`'s board of `previous` (whose picture looks the same) had this very caption and
    keyboard (the buttons' data included: they carry the version): then the message already shows it."""
    if previous is None:
        return False
    t = texts(target.lang)
    before = board_markup(t, previous, target.viewer, links)
    return captions.caption(t, previous, target.viewer) == text and (
        (before is None and markup is None)
        or (before is not None and markup is not None and before.to_dict() == markup.to_dict())
    )


class Shown(Enum):
    """What became of one board: shown (or already showing it), failed (to be tried again), or skipped (the
    chat takes no messages from the bot: blocked, or left the group; nothing to try again)."""

    SHOWN = "shown"
    FAILED = "failed"
    SKIPPED = "skipped"


async def show_board(
    bot: Bot,
    storage: Storage,
    table: Table,
    target: Target,
    previous: Table | None,
    again: bool = True,
    media_chat: int | None = None,
    links: WebAppLinks | None = None,
) -> Shown:
    """Bring `target`'s board message up to date with `table`: an edit in place (only the caption and
    keyboard when the picture looks as it did for `previous`, the table the message shows), or a new
    message when there is none or it is gone. A timeout is a failure: the edit may or may not have been
    made, so the board is drawn again later ("message is not modified" then confirms it)."""
    if target.inline_id is not None:
        return await _show_inline(bot, table, target, previous, media_chat, links)
    message_id = table.messages.get(target.key)
    if message_id is None and again:  # another worker (or an earlier show) may have sent it meanwhile
        stored = await storage.games.load(table.id)
        if stored is not None and target.key in stored.messages:
            table = replace(table, messages=stored.messages)
            message_id = table.messages[target.key]
    view, text, markup = _render_parts(table, target, links)
    try:
        if message_id is not None:
            try:
                if same_picture(previous, table, target, view):
                    if same_words(previous, target, text, markup, links):  # nothing visible changed: no call
                        return Shown.SHOWN
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
                return Shown.SHOWN
            except BadRequest as err:
                if is_not_modified(err):
                    return Shown.SHOWN
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
            kept = await storage.games.new_message(
                table.id,
                target.key,
                message_id,
                sent.message_id,
                target.chat_id,
                button_homes.board(table.id),
            )
        except StorageError:
            log.exception("game %s: could not remember board message %s", table.id, sent.message_id)
            return Shown.FAILED
        if not kept:  # another worker sent a new board first: ours would be a second one; draw on theirs
            log.info("game %s: board %s was sent twice; deleting %s", table.id, target.key, sent.message_id)
            await delete(bot, target.chat_id, sent.message_id)
            stored = await storage.games.load(table.id)
            if stored is None or not again:
                return Shown.FAILED
            return await show_board(
                bot, storage, replace(table, messages=stored.messages), target, None, False, links=links
            )
        return Shown.SHOWN
    except Forbidden as err:
        log.warning(
            "game %s: chat %s does not accept messages (%s); the game goes on",
            table.id,
            target.chat_id,
            err.message,
        )
        return Shown.SKIPPED
    except BadRequest as err:
        if "chat not found" in err.message.lower():
            log.warning(
                "game %s: chat %s is gone (%s); the game goes on", table.id, target.chat_id, err.message
            )
            return Shown.SKIPPED
        log.error("game %s: Telegram refused the board in chat %s: %s", table.id, target.chat_id, err.message)
        return Shown.FAILED
    except TelegramError as err:
        log.warning("game %s: could not show the board in chat %s: %r", table.id, target.chat_id, err)
        return Shown.FAILED


async def upload(bot: Bot, media_chat: int, image: bytes) -> str:
    """Send a picture to the bot's media chat and return its file_id: an inline message's media can only be
    edited to a file_id or a URL, never to an upload (Telegram's rule)."""
    sent = await bot.send_photo(chat_id=media_chat, photo=image, disable_notification=True)
    if not sent.photo:
        raise BadRequest(f"the media chat {media_chat} gave back no photo")
    return sent.photo[-1].file_id


async def _show_inline(
    bot: Bot,
    table: Table,
    target: Target,
    previous: Table | None,
    media_chat: int | None,
    links: WebAppLinks | None,
) -> Shown:
    """An inline message's board: a caption-only edit when the picture looks the same, else the picture is
    first uploaded to the media chat and the message's media edited to its file_id."""
    view, text, markup = _render_parts(table, target, links)
    try:
        if same_picture(previous, table, target, view):
            await bot.edit_message_caption(
                inline_message_id=target.inline_id, caption=text, reply_markup=markup
            )
            return Shown.SHOWN
        if media_chat is None:
            log.error("game %s: an inline board needs NARDY_MEDIA_CHAT_ID to change its picture", table.id)
            return Shown.SKIPPED
        file_id = await upload(bot, media_chat, await render(view))
        await bot.edit_message_media(
            inline_message_id=target.inline_id,
            media=InputMediaPhoto(file_id, caption=text),
            reply_markup=markup,
        )
        return Shown.SHOWN
    except BadRequest as err:
        if is_not_modified(err):
            return Shown.SHOWN
        if is_gone(err):  # the inline message was deleted: there is nowhere to send another one
            log.warning("game %s: its inline message is gone (%s); the game goes on", table.id, err.message)
            return Shown.SKIPPED
        log.error("game %s: Telegram refused the inline board: %s", table.id, err.message)
        return Shown.FAILED
    except TelegramError as err:
        log.warning("game %s: could not show the inline board: %r", table.id, err)
        return Shown.FAILED


async def delete(bot: Bot, chat_id: int, message_id: int) -> None:
    """Delete a message of the bot's; a message already gone is fine."""
    try:
        await bot.delete_message(chat_id=chat_id, message_id=message_id)
    except TelegramError as err:
        log.info("could not delete message %s in chat %s: %s", message_id, chat_id, err)


async def edit_markup(bot: Bot, chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None) -> None:
    """Change (or take off, with None) a message's keyboard; not-modified and gone messages are fine."""
    try:
        await bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=markup)
    except BadRequest as err:
        if not (is_not_modified(err) or is_gone(err)):
            log.warning("could not edit the keyboard of %s in chat %s: %s", message_id, chat_id, err.message)
    except TelegramError as err:
        log.warning("could not edit the keyboard of %s in chat %s: %s", message_id, chat_id, err)


async def say(
    bot: Bot,
    chat_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    reply_to: int | None = None,
) -> int | None:
    """Send a text message (as a reply to `reply_to`, if that message still exists); a blocked chat is
    logged, not raised. Returns the message id."""
    try:
        sent = await bot.send_message(
            chat_id=chat_id,
            text=text,
            reply_markup=markup,
            reply_parameters=None
            if reply_to is None
            else ReplyParameters(reply_to, allow_sending_without_reply=True),
        )
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


async def send_document(
    bot: Bot, chat_id: int, data: bytes, filename: str, caption: str | None = None
) -> None:
    """Send a file (a game's record); a blocked chat is logged, not raised."""
    try:
        await bot.send_document(chat_id=chat_id, document=InputFile(data, filename=filename), caption=caption)
    except Forbidden as err:
        log.warning("chat %s does not accept files (%s)", chat_id, err.message)
    except TelegramError:
        log.exception("could not send %s to chat %s", filename, chat_id)


async def send_animation(
    bot: Bot, chat_id: int, animation: bytes | str, caption: str | None = None
) -> str | None:
    """Send an animation: GIF bytes (uploaded as replay.gif) or the file_id of one sent before. Returns
    the file_id Telegram gave it (None if it could not be sent: a blocked chat is logged, not raised)."""
    media = InputFile(animation, filename="replay.gif") if isinstance(animation, bytes) else animation
    try:
        sent = await bot.send_animation(chat_id=chat_id, animation=media, caption=caption)
    except Forbidden as err:
        log.warning("chat %s does not accept animations (%s)", chat_id, err.message)
        return None
    except TelegramError:
        log.exception("could not send a replay to chat %s", chat_id)
        return None
    found = sent.animation or sent.document
    return found.file_id if found is not None else None


async def send_photo(bot: Bot, chat_id: int, picture: bytes, caption: str | None = None) -> None:
    """Send a picture that is not a board (the analysis's worst play); a blocked chat is logged, not raised."""
    try:
        await bot.send_photo(chat_id=chat_id, photo=picture, caption=caption)
    except Forbidden as err:
        log.warning("chat %s does not accept pictures (%s)", chat_id, err.message)
    except TelegramError:
        log.exception("could not send a picture to chat %s", chat_id)
