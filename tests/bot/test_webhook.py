"""The webhook and bodies that are no update: with the right secret, malformed JSON, a JSON list or an object
that is no update get 400 (malformed JSON got 500, and the others logged ERROR lines with tracebacks), and
such bodies log one WARNING a minute at most; a genuine update still works. Through real HTTP POSTs on
127.0.0.1 to a webhook worker (bot/telegram/webhook.py)."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time
import urllib.parse
from collections.abc import Iterator

import pytest

from bot.model.flow import ScriptedDice, engine_computer
from bot.telegram.webhook import BadDelivery, Throttle, update_of
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.runner import WEBHOOK_SECRET, BotRunner

BAD_BODIES = (
    b"{not json",
    b"\xff\xfe",  # not even UTF-8
    b"[1, 2, 3]",
    b'"an update"',
    b"{}",
    b'{"hello": "world"}',
    b'{"update_id": "7"}',
    b'{"update_id": true}',
    b'{"update_id": 7, "message": [1]}',
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, body: bytes, secret: str | None = WEBHOOK_SECRET) -> int:
    """POST `body` to the webhook as anyone on the network could; the HTTP status."""
    parsed = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(str(parsed.hostname), parsed.port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    try:
        conn.request("POST", parsed.path, body, headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.fixture
def worker(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    bot = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), webhook_port=_free_port())
    bot.start()
    tg.settlers.append(bot.settle)
    yield bot
    tg.settlers.remove(bot.settle)
    bot.stop()


def test_bodies_that_are_no_update_get_400_and_one_warning_and_a_genuine_update_still_works(
    tg: FakeTelegram, worker: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    for body in BAD_BODIES:
        assert _post(worker.webhook_url, body) == 400, body
    for body in BAD_BODIES[:2]:  # without the secret: refused before the body is read
        assert _post(worker.webhook_url, body, secret="wrong") == 403, body
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.levelname, r.name) for r in loud] == [("WARNING", "bot.telegram.webhook")], [
        r.getMessage() for r in loud
    ]
    assert "refused with 400: the body is not JSON" in loud[0].getMessage()
    assert worker.handled == 0, "a body that is no update reached the bot"

    alice = SimUser(tg, 1, "Alice")
    update = {
        "update_id": 90_000_001,
        "message": {
            "message_id": 5,
            "date": int(time.time()),
            "from": alice.json,
            "chat": {"id": alice.id, "type": "private"},
            "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
        },
    }
    assert _post(worker.webhook_url, json.dumps(update).encode()) == 200
    reply = alice.wait_message(lambda m: (m.text or "").startswith("/newgame"), timeout=30)
    assert reply.text is not None
    assert not worker.errors.records, worker.errors.messages()


@pytest.mark.parametrize("body", BAD_BODIES)
def test_update_of_says_what_was_wrong_with_a_body(body: bytes) -> None:
    with pytest.raises(BadDelivery, match=r"^the (body|object) "):
        update_of(body, None)


def test_update_of_reads_a_genuine_update() -> None:
    assert update_of(b'{"update_id": 7}', None).update_id == 7


def test_the_throttle_says_one_warning_a_minute_and_counts_the_ones_held_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [100.0]
    throttle = Throttle(every=60.0, clock=lambda: now[0])
    caplog.set_level(logging.WARNING, logger="bot.telegram.webhook")
    for step in (0.0, 1.0, 30.0, 28.9):  # at 100, 101, 131, 159.9: one said, three held
        now[0] += step
        throttle.warn("bad %s", "body")
    now[0] = 160.0
    throttle.warn("bad %s", "body")
    assert [r.getMessage() for r in caplog.records] == [
        "bad body",
        "bad body (3 more such deliveries in the last 60 s)",
    ]
