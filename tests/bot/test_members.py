"""Whether a user is a member of a group, as the Mini App's review asks (bot/telegram/members.py): Telegram's
getChatMember read as member or not, its answers kept a few minutes, an error read as "not a member" and not
kept."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from telegram import ChatMemberLeft, ChatMemberMember, User
from telegram.error import NetworkError

from bot.telegram.members import KEEP_FOR, Members

USER = User(7, "Dan", False)


class FakeBot:
    """Answers getChatMember from `answers` (an exception is raised), counting the asks."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.asked += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


async def test_a_member_is_one_and_the_answer_is_kept_a_few_minutes() -> None:
    now = [0.0]
    bot = FakeBot(ChatMemberMember(USER), ChatMemberLeft(USER))
    members = Members(bot, clock=lambda: now[0])  # type: ignore[arg-type]
    assert await members.member_of(-1, 7) and await members.member_of(-1, 7) and bot.asked == 1
    now[0] = KEEP_FOR + 1
    assert not await members.member_of(-1, 7) and bot.asked == 2


async def test_an_error_is_no_member_and_is_asked_again() -> None:
    bot = FakeBot(NetworkError("away"), ChatMemberMember(USER))
    members = Members(bot, clock=lambda: 0.0)  # type: ignore[arg-type]
    assert not await members.member_of(-1, 7)
    assert await members.member_of(-1, 7) and bot.asked == 2


async def test_a_restricted_user_is_a_member_only_while_in_the_group() -> None:
    inside = SimpleNamespace(status="restricted", is_member=True)
    outside = SimpleNamespace(status="restricted", is_member=False)
    members = Members(FakeBot(inside, outside), keep_for=0.0)  # type: ignore[arg-type]
    assert await members.member_of(-1, 7) and not await members.member_of(-1, 7)
