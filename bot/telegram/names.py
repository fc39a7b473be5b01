"""The one cleaning function for every name the bot shows (captions, board pictures, messages, alerts)."""

from __future__ import annotations

import unicodedata

from telegram import User

NAME_LIMIT = 32  # a caption repeats names up to six times; Telegram caps captions at 1024 characters
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn"}
_KEEP = {"\u200d"}  # the zero-width joiner holds emoji sequences together


def display_name(raw: str, fallback: str) -> str:
    """A name fit for captions: no control or bidi characters, whitespace collapsed, at most NAME_LIMIT long."""
    visible = "".join(ch for ch in raw if ch in _KEEP or unicodedata.category(ch) not in _INVISIBLE)
    name = " ".join(visible.split()) or fallback
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1].rstrip() + "…"


def user_name(user: User) -> str:
    """How the bot calls a Telegram user: their first name (else their username, else their id), cleaned."""
    return display_name(user.first_name or user.username or "", str(user.id))
