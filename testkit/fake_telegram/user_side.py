"""The users' side of the fake Bot API: chats (blocked by their user or not), a user's messages and their edits,
presses on buttons and deleted messages, each sent to the bot as the update Telegram would send."""

from __future__ import annotations

import time
from typing import Any

from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.state import Chat, StoredMessage


class UserSide(FakeCore):
    """What people do in the chats."""

    def add_chat(self, chat_id: int, chat_type: str, title: str | None = None) -> None:
        with self._lock:
            self._state.chats.setdefault(chat_id, Chat(chat_id, chat_type, title))

    def set_admins(self, chat_id: int, *user_ids: int) -> None:
        """The group's administrators, as getChatMember tells them."""
        with self._lock:
            self._state.chats[chat_id].admins = set(user_ids)

    def set_member_status(self, chat_id: int, user_id: int, status: str) -> None:
        """What getChatMember says of `user_id` in the group: "left" or "kicked" (a non-member), or
        "member" again."""
        if status not in ("left", "kicked", "member"):
            raise ValueError(f"a member status is left, kicked or member, not {status!r}")
        with self._lock:
            gone = self._state.chats[chat_id].gone
            if status == "member":
                gone.pop(user_id, None)
            else:
                gone[user_id] = status

    def set_blocked(self, chat_id: int, blocked: bool = True) -> None:
        """Make a private chat answer 403 "bot was blocked by the user" (or stop doing so)."""
        with self._lock:
            self._state.chats[chat_id].blocked = blocked

    def user_message(
        self, chat_id: int, user: dict[str, Any], text: str, reply_to: StoredMessage | None = None
    ) -> StoredMessage:
        """A user writes `text` in a chat (as a reply to `reply_to`, a message there, if given); a leading
        /command gets its bot_command entity."""
        with self._lock:
            chat = self._state.chats[chat_id]
            msg = StoredMessage(
                chat_id=chat_id,
                message_id=next(self._message_ids),
                from_bot=False,
                text=text,
                sender_id=user["id"],
                reply_to=None if reply_to is None else reply_to.message_id,
                sender=user,
            )
            self._state.messages[(chat_id, msg.message_id)] = msg
            payload: dict[str, Any] = {
                "message_id": msg.message_id,
                "date": int(time.time()),
                "from": user,
                "chat": self._chat_json(chat),
                "text": text,
            }
            if reply_to is not None:
                replied = self._message_json(self._state.messages[(chat_id, reply_to.message_id)])
                payload["reply_to_message"] = replied
            if text.startswith("/"):
                payload["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        self.push_update("message", payload)
        return msg

    def edit_user_message(self, msg: StoredMessage, user: dict[str, Any], text: str) -> None:
        """A user edits their message (an "edited_message" update, if the bot asked for those)."""
        with self._lock:
            stored = self._state.messages[(msg.chat_id, msg.message_id)]
            stored.text = text
            stored.edits += 1
            payload: dict[str, Any] = {
                "message_id": msg.message_id,
                "date": int(time.time()),
                "edit_date": int(time.time()),
                "from": user,
                "chat": self._chat_json(self._state.chats[msg.chat_id]),
                "text": text,
            }
            if text.startswith("/"):
                payload["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        self.push_update("edited_message", payload)

    def press(self, user: dict[str, Any], msg: StoredMessage, data: str) -> str:
        """A user presses a button with callback `data` under `msg`; returns the callback query id."""
        with self._lock:
            qid = f"q{next(self._query_ids)}"
            payload = {
                "id": qid,
                "from": user,
                "chat_instance": str(msg.chat_id),
                "data": data,
                "message": self._message_json(msg),
            }
        self.push_update("callback_query", payload)
        return qid

    def delete_message(self, msg: StoredMessage) -> None:
        """A user (or an admin) deletes a message."""
        with self._lock:
            self._state.messages[(msg.chat_id, msg.message_id)].deleted = True
