"""What every update passes before any handler: a repeated webhook delivery is dropped, and inbound limits.

Inbound limits are token buckets in Redis (shared by every worker), per user and per group chat, one for
presses and one for commands. Past a sane rate the first refused update gets one polite answer and the
rest are dropped at once: no game is loaded, nothing is sent. Other updates (plain text, joins) are left
alone: no handler does anything with them. If Redis cannot be reached, or does not answer within
LOOK_WITHIN (the limits: Limits.look_within), the update passes (a move is still guarded by its version): the handler's own deadline
(bot/telegram/handlers/common.py) then bounds what is left of the update."""

from __future__ import annotations

import asyncio
import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ApplicationHandlerStop, ContextTypes

from bot.observe.metrics import current
from bot.service.answers import SLOW_PRESSES
from bot.service.rates import Limits
from bot.service.settings import choosing
from bot.storage import StorageError
from bot.storage.keys import limit_key
from bot.storage.limits import Bucket
from bot.telegram.handlers.common import N_, answer, deps, user_texts, viewer_settings

log = logging.getLogger(__name__)

SLOW_COMMANDS = N_("Too many commands at once. Wait a minute, please.")
LOOK_WITHIN = 0.5  # seconds the gate waits for Redis before it lets a repeated delivery check pass


async def drop_repeated_update(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Telegram may deliver an update twice (to any worker): only the first delivery is handled."""
    try:
        async with asyncio.timeout(LOOK_WITHIN):
            first = await deps(context).storage.limits.first_delivery(update.update_id)
    except (StorageError, TimeoutError):  # handle it: a move is still guarded by its version
        log.warning("could not check update %s for a repeated delivery", update.update_id, exc_info=True)
        return
    if not first:
        log.info("update %s was delivered again; dropped", update.update_id)
        raise ApplicationHandlerStop


def _buckets(update: Update, limits: Limits) -> tuple[str, tuple[Bucket, ...]] | None:
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return None
    if update.inline_query is not None:  # every keystroke in `@bot …` is one: cheap, but not free
        return "inline", (
            Bucket(
                limit_key(f"u{user.id}", "inline"), limits.user_inline.burst, limits.user_inline.per_second
            ),
        )
    if update.callback_query is not None:
        kind, mine, ours = "press", limits.user_presses, limits.chat_presses
    elif update.message is not None and (update.message.text or "").startswith("/"):
        kind, mine, ours = "command", limits.user_commands, limits.chat_commands
    else:
        return None
    buckets = [Bucket(limit_key(f"u{user.id}", kind), mine.burst, mine.per_second)]
    if chat is not None and chat.type != ChatType.PRIVATE:
        buckets.append(Bucket(limit_key(f"c{chat.id}", kind), ours.burst, ours.per_second))
    return kind, tuple(buckets)


async def limit_inbound(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Drop presses and commands past the limits (one polite answer per flood)."""
    d = deps(context)
    if d.limits is None:
        return
    found = _buckets(update, d.limits)
    if found is None:
        return
    kind, buckets = found
    try:
        async with asyncio.timeout(d.limits.look_within):
            empty, notice = await d.storage.limits.take_tokens(buckets, d.limits.clock())
    except (StorageError, TimeoutError):
        log.warning("inbound limits unavailable; update %s passes", update.update_id, exc_info=True)
        return
    if empty is None:
        return
    log.info("update %s: %s over the limit of %s; dropped", update.update_id, kind, empty.key)
    metrics = current()
    if metrics is not None:
        metrics.update(kind, "rate_limited")
    if notice:
        deadline = asyncio.get_running_loop().time() + d.limits.look_within
        with choosing(*await viewer_settings(d, update.effective_user, deadline)):  # once per flood
            t = user_texts(update)
        if update.callback_query is not None:
            await answer(update.callback_query, t.gettext(SLOW_PRESSES))
        elif update.effective_chat is not None:
            d.say(update.effective_chat.id, t.gettext(SLOW_COMMANDS))
    raise ApplicationHandlerStop
