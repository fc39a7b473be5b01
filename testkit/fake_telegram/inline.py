"""Inline mode: a user types `@bot <query>` (an inline_query update), the bot answers within
INLINE_ANSWER_WITHIN seconds with cached photos or articles, the user picks a result and it is posted as an
inline message (a chosen_inline_result update), whose buttons send callback queries that carry only its
inline_message_id."""

from __future__ import annotations

import time
from typing import Any

from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.state import ApiError, Chat, StoredMessage

INLINE_ANSWER_WITHIN = 10.0  # seconds Telegram waits for an answer to an inline query


class InlineMode(FakeCore):
    """Inline queries, their answers, chosen results and presses on inline messages."""

    def inline_query(self, user: dict[str, Any], query: str, chat_type: str = "private") -> str:
        """A user types `@bot <query>` in some chat; returns the inline query id."""
        with self._lock:
            qid = f"iq{next(self._query_ids)}"
            payload = {"id": qid, "from": user, "query": query, "offset": "", "chat_type": chat_type}
            self._state.inline_queries[qid] = (time.monotonic(), payload)
        self.push_update("inline_query", payload)
        return qid

    def _api_answerInlineQuery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        qid = str(params["inline_query_id"])
        results = params.get("results") or []
        with self._lock:
            asked = self._state.inline_queries.get(qid)
            if (
                asked is None
                or time.monotonic() - asked[0] > INLINE_ANSWER_WITHIN
                or qid in self._state.inline_answers
            ):
                raise ApiError(
                    400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
                )
            if len(results) > 50:
                raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
            ids = [str(r.get("id", "")) for r in results]
            if any(not 1 <= len(i.encode()) <= 64 for i in ids) or len(set(ids)) != len(ids):
                raise ApiError(400, "Bad Request: RESULT_ID_INVALID")
            for result in results:
                if result.get("type") == "photo" and "photo_file_id" in result:
                    if result["photo_file_id"] not in self._state.files:
                        raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
                elif result.get("type") == "article":
                    if not str((result.get("input_message_content") or {}).get("message_text", "")).strip():
                        raise ApiError(400, "Bad Request: MESSAGE_EMPTY")
                else:
                    raise ApiError(
                        400, f"Bad Request: the fake knows cached photos and articles, not {result}"
                    )
            self._state.inline_answers[qid] = dict(params)
            return True

    def wait_inline_answer(self, query_id: str, timeout: float = 30.0) -> dict[str, Any]:
        found: dict[str, Any] = self.wait_for(
            lambda: self._state.inline_answers.get(query_id),
            timeout,
            f"the answer to inline query {query_id}",
        )
        return found

    def choose_inline(
        self, user: dict[str, Any], query_id: str, result_id: str, chat_id: int, feedback: bool = True
    ) -> StoredMessage:
        """The user picks a result: it is posted in `chat_id` (any chat, the bot need not be in it) as an
        inline message; with inline feedback on, the bot gets a chosen_inline_result (with the message's
        inline_message_id when the result has an inline keyboard, as Telegram does)."""
        with self._lock:
            answer = self._state.inline_answers[query_id]
            result = next(r for r in answer["results"] if str(r["id"]) == result_id)
            self._state.chats.setdefault(chat_id, Chat(chat_id, "private" if chat_id > 0 else "group"))
            inline_id = f"inl{next(self._file_ids)}"
            msg = StoredMessage(
                chat_id=chat_id,
                message_id=next(self._message_ids),
                from_bot=False,
                sender_id=int(user["id"]),
                reply_markup=result.get("reply_markup") or None,
                inline_id=inline_id if result.get("reply_markup") else None,
            )
            if result["type"] == "photo":
                msg.photo = self._state.files[result["photo_file_id"]]
                msg.photo_id = result["photo_file_id"]
                msg.caption = result.get("caption")
            else:
                msg.text = str(result["input_message_content"]["message_text"])
            self._state.messages[(chat_id, msg.message_id)] = msg
            if msg.inline_id is not None:
                self._state.inline[msg.inline_id] = msg
            query = self._state.inline_queries[query_id][1]["query"]
        if feedback:
            chosen: dict[str, Any] = {"result_id": result_id, "from": user, "query": query}
            if msg.inline_id is not None:
                chosen["inline_message_id"] = msg.inline_id
            self.push_update("chosen_inline_result", chosen)
        return msg

    def press_inline(self, user: dict[str, Any], msg: StoredMessage, data: str) -> str:
        """A press on a button of an inline message: the callback query carries inline_message_id only."""
        assert msg.inline_id is not None, "not an inline message"
        with self._lock:
            qid = f"q{next(self._query_ids)}"
            payload = {"id": qid, "from": user, "chat_instance": f"ci{msg.chat_id}", "data": data,
                       "inline_message_id": msg.inline_id}  # fmt: skip
        self.push_update("callback_query", payload)
        return qid
