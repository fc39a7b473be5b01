"""A fake Telegram Bot API served over real HTTP on 127.0.0.1, and simulated users that drive it."""

from testkit.fake_telegram.server import BOT_TOKEN, BOT_USERNAME, FakeTelegram, Fault, StoredMessage
from testkit.fake_telegram.users import SimUser

__all__ = ["BOT_TOKEN", "BOT_USERNAME", "FakeTelegram", "Fault", "SimUser", "StoredMessage"]
