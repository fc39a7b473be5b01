"""The Bot API methods on the bot itself and on text messages: getMe, the commands and descriptions, sendMessage,
the edits of a text, a caption or a keyboard (refused as Telegram refuses an edit that changes nothing),
deleteMessage, and answerCallbackQuery (a query is answered once)."""

from __future__ import annotations

import json
import re
from typing import Any

from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.state import BOT_ID, BOT_USERNAME, ApiError, CallbackAnswer


class MessageMethods(FakeCore):
    """The bot, its commands and descriptions, text messages, edits and callback answers."""

    def _api_getMe(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Nardy",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
        }

    def _api_getChatMember(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        """A member of a chat: its administrators (set_admins) are "creator", those set_member_status made
        "left" or "kicked" are that, anyone else a "member"."""
        with self._lock:
            chat = self._state.chats.get(int(params["chat_id"]))
            admins = set() if chat is None else set(chat.admins)
            gone = {} if chat is None else dict(chat.gone)
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        user_id = int(params["user_id"])
        user = {"id": user_id, "is_bot": False, "first_name": str(user_id)}
        if user_id in admins:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in gone:
            return {
                "status": gone[user_id],
                "user": user,
                **({"until_date": 0} if gone[user_id] == "kicked" else {}),
            }
        return {"status": "member", "user": user}

    def _api_setMyCommands(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        """Kept per scope and language: "<scope type>/<language>" ("default/" for the defaults)."""
        lang = params.get("language_code") or ""
        scope = params.get("scope") or {"type": "default"}
        commands = list(params["commands"])
        for command in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(command.get("command", ""))):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise ApiError(400, "Bad Request: command description is empty or too long")
        with self._lock:
            self._state.commands[lang] = (
                commands if scope["type"] == "default" else self._state.commands.get(lang, commands)
            )
            self._state.commands[f"{scope['type']}/{lang}"] = commands
        return True

    def _api_setChatMenuButton(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        """The bot's menu button in one private chat (`chat_id`) or by default, refused as Telegram refuses it:
        an unknown type, a web_app button without a text (1-64) or whose URL is not HTTPS (plain HTTP is let
        through for 127.0.0.1 and localhost only, as the tests serve the page there), an unknown chat."""
        button = params.get("menu_button") or {"type": "default"}
        if isinstance(button, str):
            button = json.loads(button)
        kind = button.get("type") if isinstance(button, dict) else None
        if kind not in ("commands", "web_app", "default"):
            raise ApiError(400, "Bad Request: unsupported menu button type")
        if kind == "web_app":
            text = str(button.get("text") or "")
            url = str((button.get("web_app") or {}).get("url") or "")
            if not 1 <= len(text) <= 64:
                raise ApiError(400, "Bad Request: menu button text is empty or too long")
            if not (url.startswith("https://") or re.match(r"http://(127\.0\.0\.1|localhost)[:/]", url)):
                raise ApiError(400, "Bad Request: BUTTON_URL_INVALID")
        chat_id = params.get("chat_id")
        with self._lock:
            if chat_id is not None and int(chat_id) not in self._state.chats:
                raise ApiError(400, "Bad Request: chat not found")
            self._state.menu_buttons[None if chat_id is None else int(chat_id)] = dict(button)
        return True

    def _api_setMyDescription(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        text = str(params.get("description") or "")
        if len(text) > 512:
            raise ApiError(400, "Bad Request: description is too long")
        with self._lock:
            self._state.descriptions[("description", params.get("language_code") or "")] = text
        return True

    def _api_setMyShortDescription(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        text = str(params.get("short_description") or "")
        if len(text) > 120:
            raise ApiError(400, "Bad Request: short description is too long")
        with self._lock:
            self._state.descriptions[("short", params.get("language_code") or "")] = text
        return True

    def _api_sendMessage(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        text = str(params["text"])
        if not text.strip() or len(text) > 4096:
            raise ApiError(400, "Bad Request: message text is empty or too long")
        with self._lock:
            reply = params.get("reply_parameters")
            reply_to = None
            if reply:
                target = self._state.messages.get((int(params["chat_id"]), int(reply["message_id"])))
                if target is None or target.deleted:
                    if not reply.get("allow_sending_without_reply"):
                        raise ApiError(400, "Bad Request: message to be replied not found")
                else:
                    reply_to = target.message_id
            msg = self._store_bot_message(
                int(params["chat_id"]), text=text, reply_markup=params.get("reply_markup") or None
            )
            msg.reply_to = reply_to
            return self._message_json(msg)

    def _api_editMessageText(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        with self._lock:
            msg = self._editable(params)
            if msg.text is None:
                raise ApiError(400, "Bad Request: there is no text in the message to edit")
            text, markup = str(params["text"]), params.get("reply_markup") or None
            if text == msg.text and markup == msg.reply_markup:
                raise ApiError(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same",
                )
            msg.text, msg.reply_markup = text, markup
            msg.edits += 1
            return self._edited(msg)

    def _api_editMessageCaption(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        with self._lock:
            msg = self._editable(params)
            caption, markup = params.get("caption"), params.get("reply_markup") or None
            if caption is not None and len(str(caption)) > 1024:
                raise ApiError(400, "Bad Request: message caption is too long")
            if caption == msg.caption and markup == msg.reply_markup:
                raise ApiError(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same",
                )
            msg.caption, msg.reply_markup = caption, markup
            msg.edits += 1
            return self._edited(msg)

    def _api_editMessageReplyMarkup(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        with self._lock:
            msg = self._editable(params)
            markup = params.get("reply_markup") or None
            if markup == msg.reply_markup:
                raise ApiError(
                    400,
                    "Bad Request: message is not modified: specified new message content "
                    "and reply markup are exactly the same",
                )
            msg.reply_markup = markup
            msg.edits += 1
            return self._edited(msg)

    def _api_deleteMessage(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        with self._lock:
            msg = self._editable(params)
            msg.deleted = True
            return True

    def _api_answerCallbackQuery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        qid = str(params["callback_query_id"])
        with self._lock:
            given = CallbackAnswer(qid, params.get("text"), bool(params.get("show_alert")))
            self._state.answer_log.setdefault(qid, []).append(given)
            if qid in self._state.answers:
                raise ApiError(
                    400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
                )
            self._state.answers[qid] = CallbackAnswer(qid, params.get("text"), bool(params.get("show_alert")))
            return True
