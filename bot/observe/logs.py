"""Log lines as one JSON object a line (NARDY_LOG_FORMAT=json), for log collectors; the default stays text.

Each line has time (ISO 8601, UTC), level, logger and message, and the update id and game id where the line
was written while an update (or a press on a game) was handled: the guards (bot/telegram/handlers/common.py)
set them with `handling` and `about_game` for everything their handler logs."""

from __future__ import annotations

import contextvars
import datetime
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

_update: contextvars.ContextVar[int | None] = contextvars.ContextVar("nardy_log_update", default=None)
_game: contextvars.ContextVar[str | None] = contextvars.ContextVar("nardy_log_game", default=None)

LOG_FORMATS = ("text", "json")


@contextmanager
def handling(update_id: int) -> Iterator[None]:
    """Lines logged in this block (and the tasks it starts) name `update_id`."""
    token = _update.set(update_id)
    game = _game.set(None)
    try:
        yield
    finally:
        _game.reset(game)
        _update.reset(token)


def about_game(game_id: str | None) -> None:
    """Lines logged from here on in the update's handling name `game_id` (a press's game)."""
    if game_id:
        _game.set(game_id)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message (with the traceback, if any), update_id, game_id."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        update, game = _update.get(), _game.get()
        if update is not None:
            line["update_id"] = update
        if game is not None:
            line["game_id"] = game
        if record.exc_info:
            line["exception"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def use_json(handlers: list[logging.Handler]) -> None:
    """Every one of `handlers` writes JSON lines."""
    for handler in handlers:
        handler.setFormatter(JsonFormatter())
