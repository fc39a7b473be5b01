"""Turn reminders: a person on turn against another person who stays idle for NARDY_REMIND_AFTER seconds
gets one nudge in their private chat; each player at most NARDY_REMINDERS_PER_GAME in each game of a series.

- Every save of a game sets or clears its entry in the `nardy:remind` sorted set in the same atomic step
  (bot/storage/games.py): while a person must decide against another person (`Table.waiting_for`: any mode,
  both players reachable people), the entry is due `remind_after` seconds after the change; otherwise (the
  game is over, an opponent is the computer or left) there is none. So every press on the board (a single
  move, undo, done) puts the reminder off again, and the waiting player is never nudged.
- Every worker looks for due entries every few seconds (`Reminders.start`). Taking one is one Lua script:
  still due, the game still at the version the worker loaded, fewer than the limit sent to that player in
  this game of the series. The entry leaves and the player's count grows in that one step, so exactly one
  worker sends each reminder, with several workers and across restarts (the entries are in Redis).
- A reminder is tried once. A player who blocked the bot or never started it (403, "bot can't initiate
  conversation") is logged and the reminder counts as sent: nothing is retried, nothing waits for it.
- A reminder changes no game: the players' buttons stay current, and the idle-claim clock
  (NARDY_CLAIM_AFTER, from the last change) runs on: the opponent may still claim an idle player's game.

"Per game" is per player and per game of a series: a rematch is a new game, with reminders of its own (the
counts are kept with the game's number). A player nudged in game 1 of a long series would otherwise never
hear from the bot again in that series, however long they kept their opponent waiting; and one slow player
does not use up the other's reminders.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging

from telegram import Bot, InlineKeyboardMarkup, ReplyParameters
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.i18n import texts
from bot.model.table import Table
from bot.storage import Storage, StorageError
from bot.telegram.handlers.common import N_
from bot.telegram.keyboards import board_link_markup
from bot.telegram.outbox import Outbox
from bot.views.captions import person_name, variant_name
from engine import Side

log = logging.getLogger(__name__)

BATCH = 100  # due reminders taken at one look (more: the next look follows at once)
LOOK_EVERY_MAX = 5.0  # seconds between two looks for due reminders, at most (fewer for short idle times)

YOUR_TURN = N_("⏰ Your turn! {variant} against {name}: the board is waiting for your move.")
YOUR_TURN_IN_GROUP = N_(
    "⏰ Your turn! {variant} against {name} in the group “{group}”: the board is waiting for your move."
)
YOUR_TURN_IN_A_GROUP = N_(
    "⏰ Your turn! {variant} against {name} in a group: the board is waiting for your move."
)


def look_every(remind_after: float) -> float:
    """Seconds between two looks for due reminders: a fifth of the idle time, at least 50 ms, at most 5 s."""
    return max(0.05, min(LOOK_EVERY_MAX, remind_after / 5))


def group_link(chat_id: int, message_id: int | None) -> str | None:
    """A t.me link to a message in a supergroup (its members open it with one tap); None for a basic group
    (Telegram has no links to its messages) or an unknown message."""
    text = str(chat_id)
    if message_id is None or not text.startswith("-100") or not text[4:].isdigit():
        return None
    return f"https://t.me/c/{text[4:]}/{message_id}"


def reminder(table: Table, side: Side) -> tuple[int, str, InlineKeyboardMarkup | None, int | None]:
    """The nudge for the person playing `side`: (their private chat, the text in their language, a button
    to a group's board, the message to reply to: their private board, so that one tap leads there)."""
    player, opponent = table.players[side], table.players[side.other]
    t = texts(player.lang)
    params = {"variant": variant_name(t, table.game.game), "name": person_name(t, opponent)}
    private = next((b for b in table.targets if b.chat_id == player.user_id), None)
    if private is not None:
        return player.user_id, t.gettext(YOUR_TURN, **params), None, table.messages.get(private.key)
    if table.mode == "group" and table.chat_id is not None:
        link = group_link(table.chat_id, table.messages.get("g"))
        markup = None if link is None else board_link_markup(t, link)
        if table.title:
            return player.user_id, t.gettext(YOUR_TURN_IN_GROUP, group=table.title, **params), markup, None
        return player.user_id, t.gettext(YOUR_TURN_IN_A_GROUP, **params), markup, None
    return player.user_id, t.gettext(YOUR_TURN, **params), None, None


class Reminders:
    """One worker's part of the turn reminders: it takes due ones from Redis and sends them."""

    def __init__(
        self,
        bot: Bot,
        storage: Storage,
        outbox: Outbox,
        remind_after: float,
        per_game: int,
        every: float | None = None,
    ) -> None:
        self.bot = bot
        self.storage = storage
        self.outbox = outbox
        self.remind_after = remind_after
        self.per_game = per_game
        self.every = look_every(remind_after) if every is None else every
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._looking = asyncio.Lock()  # held while a look takes and queues reminders

    @property
    def on(self) -> bool:
        return self.remind_after > 0 and self.per_game > 0

    def start(self) -> None:
        """Look for due reminders every `every` seconds until stop() (nothing when reminders are off)."""
        self._stopping = False
        if self.on and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._look_forever(), name="reminders")

    async def stop(self, timeout: float = 5.0) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=timeout)
            self._task = None

    async def _look_forever(self) -> None:
        while not self._stopping:
            try:
                while await self.look() >= BATCH and not self._stopping:
                    pass
            except StorageError as err:
                log.warning("turn reminders: storage unavailable (%s)", err)
            except Exception:
                log.exception("turn reminders failed; trying again")
            await asyncio.sleep(self.every)

    async def look(self) -> int:
        """Take the reminders due now and send them; returns how many due entries there were."""
        async with self._looking:
            return await self._look()

    async def idle(self) -> None:
        """Wait until no look is under way: a reminder taken from Redis is queued in the outbox by then."""
        async with self._looking:
            pass

    async def _look(self) -> int:
        due = await self.storage.schedules.due_reminders(BATCH)
        for game_id in due:
            try:
                table = await self.storage.games.load(game_id)
                number = await self.storage.schedules.claim_reminder(game_id, table, self.per_game)
            except StorageError:
                raise
            except Exception:  # a record this worker cannot read: its entry must not block the others
                log.exception("game %s: its turn reminder is dropped", game_id)
                with contextlib.suppress(StorageError):
                    await self.storage.schedules.drop_reminder(game_id)
                continue
            side = None if table is None else table.waiting_for
            if number <= 0 or table is None or side is None:
                continue
            chat_id, text, markup, reply_to = reminder(table, side)
            log.info("game %s: turn reminder %d to %s", table.id, number, chat_id)
            self.outbox.post(
                chat_id,
                functools.partial(self._send, table.id, chat_id, text, markup, reply_to),
                "a turn reminder",
            )
        return len(due)

    async def _send(
        self, game_id: str, chat_id: int, text: str, markup: InlineKeyboardMarkup | None, reply_to: int | None
    ) -> None:
        """Send one reminder, once: a refusal is logged (the reminder counts as sent), never retried."""
        try:
            await self.bot.send_message(
                chat_id=chat_id,
                text=text,
                reply_markup=markup,
                reply_parameters=None
                if reply_to is None
                else ReplyParameters(reply_to, allow_sending_without_reply=True),
            )
        except Forbidden as err:  # blocked the bot, or never started it: fine, the game goes on
            log.info("game %s: chat %s takes no turn reminder (%s)", game_id, chat_id, err.message)
        except BadRequest as err:  # a deleted account ("chat not found"), say
            log.warning("game %s: turn reminder to chat %s refused: %s", game_id, chat_id, err.message)
        except TelegramError as err:  # a timeout may have sent it: not tried again
            log.warning("game %s: turn reminder to chat %s failed: %r", game_id, chat_id, err)
