"""`python -m bot` / `nardy-bot`: read the environment, start Redis if needed, poll Telegram."""

from __future__ import annotations

import asyncio
import logging
import sys

from telegram import Update

from bot.app import build_application
from bot.config import Config, ConfigError, setup_logging
from bot.embedded_redis import EmbeddedRedis
from bot.storage import Storage

log = logging.getLogger("bot")


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as err:
        print(f"nardy-bot: {err}", file=sys.stderr)
        return 2
    setup_logging(config)
    embedded: EmbeddedRedis | None = None
    redis_url = config.redis_url
    if redis_url is None:
        embedded = EmbeddedRedis(config.data_dir / "redis")
        embedded.start()
        redis_url = embedded.url
        log.info("REDIS_URL is not set: using an embedded redis-server with AOF in %s", embedded.data_dir)
    storage = Storage.from_url(redis_url)
    app = build_application(config.token, storage, api_url=config.api_url)
    try:
        asyncio.set_event_loop(asyncio.new_event_loop())
        app.run_polling(allowed_updates=Update.ALL_TYPES)  # post_shutdown closes the storage
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
