"""Who is a member of a group, as the Mini App's review asks (bot/service/reviews.py `member_of`: a group's
finished game is its members' to review): Telegram's getChatMember, its answers kept a few minutes in this
process so that stepping through a review does not ask Telegram at each request. An error (the bot left the
group, Telegram away) means "not a member", and is not kept."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import Bot
from telegram.error import TelegramError

log = logging.getLogger(__name__)

KEEP_FOR = 180.0  # seconds an answer is kept
MOST_KEPT = 4096  # answers kept at most (the oldest go first)
MEMBERS = ("creator", "administrator", "member")


class Members:
    """getChatMember's answers, kept KEEP_FOR seconds (`clock`: the tests' own)."""

    def __init__(
        self, bot: Bot, clock: Callable[[], float] = time.monotonic, keep_for: float = KEEP_FOR
    ) -> None:
        self.bot = bot
        self.clock = clock
        self.keep_for = keep_for
        self._known: dict[tuple[int, int], tuple[float, bool]] = {}

    async def member_of(self, chat_id: int, user_id: int) -> bool:
        """Whether `user_id` is a member of the group `chat_id` now (as of a few minutes ago at most)."""
        now = self.clock()
        known = self._known.get((chat_id, user_id))
        if known is not None and now - known[0] < self.keep_for:
            return known[1]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as err:
            log.info("chat %s: could not ask whether %s is a member: %s", chat_id, user_id, err)
            return False
        found = member.status in MEMBERS or (
            member.status == "restricted" and bool(getattr(member, "is_member", False))
        )
        if len(self._known) >= MOST_KEPT:
            self._known.pop(next(iter(self._known)))
        self._known[(chat_id, user_id)] = (now, found)
        return found
