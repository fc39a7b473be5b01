"""Simulated Telegram users: they write commands and press the buttons the bot really sent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from testkit.fake_telegram.server import CallbackAnswer, FakeTelegram, StoredMessage


@dataclass
class SimUser:
    """A person in the fake Telegram. Their private chat with the bot has id == user id."""

    tg: FakeTelegram
    id: int
    first_name: str
    language_code: str = "en"

    def __post_init__(self) -> None:
        self.tg.add_chat(self.id, "private")

    username: str | None = None

    @property
    def json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }
        if self.username:
            out["username"] = self.username
        return out

    def say(
        self, text: str, chat_id: int | None = None, reply_to: StoredMessage | None = None
    ) -> StoredMessage:
        """Write `text` (e.g. "/newgame") in a chat, the private chat with the bot by default; as a reply
        to `reply_to` (a message in that chat) if given."""
        return self.tg.user_message(self.id if chat_id is None else chat_id, self.json, text, reply_to)

    def press_data(self, msg: StoredMessage, data: str, wait: bool = True) -> CallbackAnswer | str:
        """Press a button carrying `data` (real or forged) under `msg`; wait for the bot's answer."""
        current = self.tg.message(msg.chat_id, msg.message_id)
        if current.inline_id is not None:
            qid = self.tg.press_inline(self.json, current, data)
        else:
            qid = self.tg.press(self.json, msg, data)
        if not wait:
            return qid
        answer = self.tg.wait_answer(qid)
        self.tg.settle()
        return answer

    def button(self, msg: StoredMessage, match: str | Callable[[str], bool]) -> str:
        """The callback data of the first button under the current `msg` whose text matches."""
        current = self.tg.message(msg.chat_id, msg.message_id)
        test = match if callable(match) else (lambda text: match in text)
        for b in current.buttons:
            if test(b["text"]) and "callback_data" in b:
                return str(b["callback_data"])
        raise AssertionError(
            f"no button matching {match!r} under message {msg.message_id} in chat "
            f"{msg.chat_id}; buttons: {current.button_texts}"
        )

    def press(
        self, msg: StoredMessage, match: str | Callable[[str], bool], wait_edit: bool = True
    ) -> CallbackAnswer:
        """Press the first button under `msg` whose text contains `match` and wait for the answer; a press
        the bot took (no alert) edits the message it was under, after the answer: wait for that too."""
        current = self.tg.message(msg.chat_id, msg.message_id)
        answer = self.press_data(current, self.button(msg, match))
        assert isinstance(answer, CallbackAnswer)
        if wait_edit and not answer.show_alert:
            self.tg.wait_for(
                lambda: self.tg.message_now(msg.chat_id, msg.message_id).edits > current.edits,
                10.0,
                f"message {msg.message_id} in chat {msg.chat_id} edited after the press",
            )
        return answer

    def wait_message(
        self, predicate: Callable[[StoredMessage], bool], chat_id: int | None = None, timeout: float = 30.0
    ) -> StoredMessage:
        """The newest bot message in a chat (the private one by default) that satisfies predicate."""
        chat = self.id if chat_id is None else chat_id

        def find() -> StoredMessage | None:
            for m in reversed(self.tg.bot_messages(chat)):
                if predicate(m):
                    return m
            return None

        found: StoredMessage = self.tg.wait_for(find, timeout, f"a bot message in chat {chat}")
        return found
