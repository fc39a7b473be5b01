"""A fake Telegram Bot API served over real HTTP on 127.0.0.1, and simulated users that drive it.

server.py puts `FakeTelegram` together from its parts over core.py (the state and the helpers they share):
http_front.py (serving, dispatching, injected failures), delivery.py (getUpdates, webhooks), messages.py and
media.py (the Bot API's methods), inline.py (inline mode), user_side.py (what people do), inspection.py
(what a test reads and waits for); state.py holds the values it keeps, multipart.py reads upload bodies.
users.py simulates users, play.py plays games by pressing the board's buttons, race.py races players'
presses for the two-worker tests, runner.py runs the real bot against the fake in a thread."""

from testkit.fake_telegram.server import BOT_TOKEN, BOT_USERNAME, FakeTelegram, Fault, StoredMessage
from testkit.fake_telegram.users import SimUser

__all__ = ["BOT_TOKEN", "BOT_USERNAME", "FakeTelegram", "Fault", "SimUser", "StoredMessage"]
