"""Telegram's rule for Mini App buttons, as the fake Bot API keeps it: an inline keyboard's `web_app` button
may only be sent in a private chat between a user and the bot; in a group, in an inline message (an edit by
inline_message_id, or an inline query's result) Telegram answers 400 "BUTTON_TYPE_INVALID" and sends
nothing. A Direct Link (a `url` button to t.me/<bot>/<app>) is fine anywhere."""

from __future__ import annotations

from typing import Any


def has_web_app(markup: Any) -> bool:
    """Whether an inline keyboard (as the Bot API takes it: a dict) has a web_app button."""
    if not isinstance(markup, dict):
        return False
    rows = markup.get("inline_keyboard") or []
    return any(isinstance(b, dict) and "web_app" in b for row in rows for b in row)


def web_app_misplaced(method: str, params: dict[str, Any], private_chat: bool) -> bool:
    """Whether this call sends a web_app button where Telegram refuses one (`private_chat`: the call's
    chat_id names a private chat)."""
    if method == "answerInlineQuery":
        return any(
            has_web_app(r.get("reply_markup")) for r in params.get("results") or [] if isinstance(r, dict)
        )
    media = params.get("media")
    markups = [params.get("reply_markup"), media.get("reply_markup") if isinstance(media, dict) else None]
    if not any(has_web_app(m) for m in markups):
        return False
    return bool(params.get("inline_message_id")) or not private_chat
