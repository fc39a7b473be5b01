"""Issue 11, "fit to open to the public": one test (or a few) per defect, each failing on the old behaviour.

Forged webhook deliveries, one user stalling the bot for everyone (commands and presses), /newgame and idle
presses posting again and again, lobby hijacks, races on a chat's pointer (two workers), bad configuration
that started things first, secrets in the environment of child processes, edited commands, raw names,
and the command menus per scope and language. Real Redis, the fake Bot API over real HTTP, real processes.
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.embedded_redis import process_start_time, redis_server_processes
from bot.model.flow import ScriptedDice, engine_computer, start_table
from bot.model.table import Invite, Person, Table
from bot.service.rates import Limits
from bot.storage import ChatBusy, Storage
from bot.telegram.handlers.common import Deps
from bot.telegram.names import NAME_LIMIT, display_name
from bot.telegram.rate_limit import ChatRateLimiter
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    board,
    data_of,
    invite_link,
    new_game_menu,
    reply_to,
    start_group_game,
    wait_board,
)
from testkit.fake_telegram.runner import WEBHOOK_SECRET, BotRunner
from testkit.fake_telegram.server import BOT_ID, BOT_TOKEN, BOT_USERNAME, CallbackAnswer, StoredMessage

ROOT = Path(__file__).resolve().parents[2]
GROUP = -1011
FROZEN = 1_700_000_000.0  # the inbound limits' clock in the flood tests: no bucket refills during a flood
GAME_ON = "A game is already going on here. Finish it or /resign first."
DAY = 24 * 3600
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
SECRET_NAMES = ("BOT_TOKEN", "REDIS_URL", "WEBHOOK_SECRET")


# ---------------------------------------------------------------------- helpers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def runner(tg: FakeTelegram, redis_url: str, dice: ScriptedDice, **kw: Any) -> BotRunner:
    """A started BotRunner (arguments as BotRunner takes them), registered with the fake's settlers."""
    bot = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), **kw)
    bot.start()
    tg.settlers.append(bot.settle)
    return bot


def stop(tg: FakeTelegram, bot: BotRunner) -> None:
    tg.settlers.remove(bot.settle)
    bot.stop()


def wait_until(condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        time.sleep(0.02)


def quiet(bot: BotRunner, handled: int, timeout: float = 60.0) -> None:
    """Wait until `bot` has taken at least `handled` updates and finished every one of them (none queued,
    none being handled), then until what they drew and sent is out: "nothing happened" can be checked."""
    wait_until(lambda: bot.handled >= handled, f"{handled} updates taken by {bot.name}", timeout)
    assert bot.app is not None
    app = bot.app

    async def idle(_: Deps) -> None:
        for _n in itertools.count():
            if app.update_queue.empty() and not app.update_processor.current_concurrent_updates:
                return
            await asyncio.sleep(0.01)

    bot.call(idle, timeout)
    bot.settle(timeout)


def game_id_of(msg: StoredMessage) -> str:
    ids = {str(b["callback_data"]).split(":")[1] for b in msg.buttons if "callback_data" in b}
    assert len(ids) == 1, f"expected the buttons of one game, got {msg.buttons}"
    return ids.pop()


def stored_tables(redis_url: str) -> list[Table]:
    """Every game record in Redis."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = [k for k in client.scan_iter(match="nardy:game:*") if not k.endswith(":messages")]
        return (
            [Table.from_json(json.loads(raw)) for raw in client.mget(keys) if raw is not None] if keys else []
        )
    finally:
        client.close()


def stored(redis_url: str, game_id: str) -> Table:
    found = [t for t in stored_tables(redis_url) if t.id == game_id]
    assert found, f"game {game_id} is not in Redis"
    return found[0]


def live_games_of(redis_url: str, user_id: int) -> list[Table]:
    return [t for t in stored_tables(redis_url) if not t.over and t.side_of(user_id) is not None]


def chat_pointer(redis_url: str, chat_id: int) -> str | None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        found = client.get(f"nardy:chat:{chat_id}:game")
        return None if found is None else str(found)
    finally:
        client.close()


def backdate(redis_url: str, game_id: str, seconds: float) -> None:
    """Pretend the last change of the game was `seconds` earlier (the stored timestamp; TTL kept)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        key = f"nardy:game:{game_id}"
        record = json.loads(client.get(key) or "null")
        record["moved_at"] -= seconds
        client.set(key, json.dumps(record), keepttl=True)
    finally:
        client.close()


def photos(tg: FakeTelegram, chat_id: int) -> list[StoredMessage]:
    return [m for m in tg.bot_messages(chat_id) if m.photo is not None]


def alert(answer: object) -> str:
    assert isinstance(answer, CallbackAnswer) and answer.show_alert, answer
    return str(answer.text)


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (/proc/<child>/stat)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields and fields[0] not in ("Z", "X") and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.decode(errors="replace").partition("=") for item in raw.split(b"\0") if item)
    return {key: value for key, _, value in pairs}


def cmdline_of(pid: int) -> list[str]:
    return [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]


def redis_servers_under(base: Path) -> list[int]:
    base = base.resolve()
    return [p.pid for p in redis_server_processes() if p.cwd is not None and p.cwd.is_relative_to(base)]


def bot_env(tmp_path: Path, api_url: str, **extra: str) -> dict[str, str]:
    """`python -m bot`'s environment: the fake's URL, an embedded Redis in tmp_path/data, plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "WEBHOOK_URL", "WEBHOOK_SECRET", "NARDY_CLAIM_AFTER", "BOT_TOKEN")
    }
    env.update(
        PYTHONPATH=str(ROOT),
        BOT_TOKEN=BOT_TOKEN,
        TELEGRAM_API_URL=api_url,
        NARDY_DATA_DIR=str(tmp_path / "data"),
    )
    env.update(extra)
    return env


def run_bot_to_a_config_error(tg: FakeTelegram, tmp_path: Path, **extra: str) -> str:
    """Run `python -m bot` with a bad setting: exit 1 with one line, nothing started. Returns the line."""
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=bot_env(tmp_path, tg.api_url, **extra),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nardy-bot: "), done.stderr
    data = tmp_path / "data"
    assert not data.exists() or not any(data.rglob("*")), (
        f"files made in the data dir: {list(data.rglob('*'))}"
    )
    assert redis_servers_under(tmp_path) == [], "a redis-server was started"
    assert tg.calls() == [], "Telegram was called before the configuration was checked"
    return lines[0]


def post_update(url: str, update: dict[str, Any], secret: str | None) -> int:
    """POST an update to a webhook worker as anyone on the network could; the HTTP status."""
    parsed = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(str(parsed.hostname), parsed.port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    try:
        conn.request("POST", parsed.path, json.dumps(update).encode(), headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


_forged_ids = itertools.count(50_000_000)


def forged_message(user: SimUser, chat_id: int, text: str, edited: bool = False) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "message_id": next(_forged_ids),
        "date": int(time.time()),
        "from": user.json,
        "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
    }
    if edited:
        payload["edit_date"] = int(time.time())
    return {"update_id": next(_forged_ids), "edited_message" if edited else "message": payload}


def forged_press(user: SimUser, msg: StoredMessage, data: str, query_id: str) -> dict[str, Any]:
    message = {
        "message_id": msg.message_id,
        "date": int(time.time()),
        "chat": {"id": msg.chat_id, "type": "private" if msg.chat_id > 0 else "group"},
        "from": {"id": BOT_ID, "is_bot": True, "first_name": "Nardy", "username": BOT_USERNAME},
        "caption": msg.caption or "",
    }
    return {
        "update_id": next(_forged_ids),
        "callback_query": {
            "id": query_id,
            "from": user.json,
            "chat_instance": str(msg.chat_id),
            "data": data,
            "message": message,
        },
    }


@pytest.fixture
def limited(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    """The bot with the inbound limits and Telegram's outgoing limits on, as in production, but the inbound
    buckets' clock stands still: what they let through does not depend on how fast the machine handles a
    flood (a loaded machine once let 26 of 300 commands through where 8 at most were due). Nor do slow looks:
    one slower than the limits allow (half a second, and a second's wait for one of the pool's connections)
    lets the update pass unchecked, and a busy machine makes them slow, so here both waits are generous."""
    limits = Limits(clock=lambda: FROZEN, look_within=60.0)
    bot = runner(tg, redis_url, dice, limits=limits, rate_limiter=ChatRateLimiter(), redis_timeout=60.0)
    yield bot
    stop(tg, bot)


@pytest.fixture
def worker(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    """One webhook worker (with the secret) that the fake delivers to."""
    bot = runner(tg, redis_url, dice, webhook_port=free_port(), name="worker")
    yield bot
    stop(tg, bot)


@pytest.fixture
def workers(tg: FakeTelegram, redis_url: str) -> Iterator[tuple[BotRunner, BotRunner]]:
    """Two webhook workers on their own ports, registered with the fake (which spreads the updates)."""
    dice = ScriptedDice(seed=11)
    pair = tuple(
        BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=5), webhook_port=free_port(), name=name)
        for name in ("worker-a", "worker-b")
    )
    for w in pair:
        w.start()
        tg.settlers.append(w.settle)
    yield pair  # type: ignore[misc]
    for w in pair:
        tg.settlers.remove(w.settle)
        w.stop()


# ---------------------------------------------------------------------- 1. forged updates


def test_webhook_mode_without_a_secret_exits_1_with_one_line_and_starts_nothing(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    line = run_bot_to_a_config_error(
        tg, tmp_path, WEBHOOK_URL="https://bot.example.org/telegram", WEBHOOK_PORT=str(free_port())
    )
    assert "WEBHOOK_SECRET" in line


def test_a_webhook_worker_refuses_deliveries_without_the_right_secret_and_they_change_nothing(
    tg: FakeTelegram, worker: BotRunner, redis_url: str, dice: ScriptedDice
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob)
    game_id = game_id_of(msg)
    quiet(worker, worker.handled)
    before = stored(redis_url, game_id)
    other = -1012
    tg.add_chat(other, "group", "Elsewhere")
    question = reply_to(alice, "/resign", GROUP)
    resign = alice.button(question, "Yes")  # Alice's "Yes, resign", pressed by a forger in her name
    quiet(worker, worker.handled)
    messages = tg.messages(GROUP)
    handled = worker.handled
    for n, secret in enumerate((None, "", "wrong-secret", WEBHOOK_SECRET + "x")):
        forged = forged_press(alice, question, resign, f"forged-{n}")
        assert post_update(worker.webhook_url, forged, secret) == 403
        assert post_update(worker.webhook_url, forged_message(carol, other, "/newgame"), secret) == 403
    quiet(worker, handled)
    assert worker.handled == handled, "a refused delivery reached the bot"
    assert stored(redis_url, game_id) == before and not before.over
    assert all(tg.answer(f"forged-{n}") is None for n in range(4))
    assert tg.messages(GROUP) == messages and tg.bot_messages(other) == []

    # the same updates with the right secret are Telegram's: they work
    assert post_update(worker.webhook_url, forged_message(carol, other, "/newgame"), WEBHOOK_SECRET) == 200
    menu = carol.wait_message(lambda m: m.text == "Which game?", other, timeout=30)
    assert menu.buttons
    genuine = forged_press(alice, question, resign, "genuine")
    assert post_update(worker.webhook_url, genuine, WEBHOOK_SECRET) == 200
    answer = tg.wait_answer("genuine", timeout=30)
    assert not answer.show_alert, answer.text
    quiet(worker, handled + 2)
    assert stored(redis_url, game_id).over
    assert tg.message(GROUP, question.message_id).body == "Alice resigned."
    assert not worker.errors.records, worker.errors.messages()


# ---------------------------------------------------------------------- 2. one user stalls the bot


def test_a_flood_of_commands_in_one_group_does_not_delay_anyone_else(
    tg: FakeTelegram, limited: BotRunner
) -> None:
    tg.enforce_limits()
    tg.add_chat(GROUP, "group", "Flood")
    flooder, other = SimUser(tg, 1, "Flooder"), SimUser(tg, 2, "Other")
    handled = limited.handled
    for _ in range(300):
        flooder.say("/help", GROUP)
    sent = other.say("/help")
    reply = tg.wait_for(  # no wall-clock bound: a loaded machine is slow; the limits' counts below are not
        lambda: next((m for m in tg.bot_messages(other.id) if m.message_id > sent.message_id), None),
        30,
        "the answer to the private /help",
    )
    assert reply.body.startswith("/newgame: start a game")

    quiet(limited, handled + 301)
    texts = [m.body for m in tg.bot_messages(GROUP)]
    helps = [t for t in texts if t.startswith("/newgame: start a game")]
    notices = [t for t in texts if t == "Too many commands at once. Wait a minute, please."]
    assert len(notices) == 1, texts
    burst = int(Limits().user_commands.burst)  # the clock stands still: exactly the flooder's burst passes
    assert len(helps) == burst and len(texts) == len(helps) + 1, texts
    assert tg.flood_refusals() == 0, "the bot went past Telegram's limits"
    assert not limited.errors.records, limited.errors.messages()


def test_a_flood_of_presses_gets_one_alert_and_the_dropped_presses_are_neither_answered_nor_applied(
    tg: FakeTelegram, limited: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    tg.enforce_limits()
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)  # Alice (white) moves first
    msg = start_group_game(tg, GROUP, alice, bob)
    game_id = game_id_of(msg)
    version = stored(redis_url, game_id).version
    move = alice.button(msg, "13→7")
    handled = limited.handled
    queries = [alice.press_data(msg, move, wait=False) for _ in range(60)]
    quiet(limited, handled + 60)

    answers = {q: tg.answers_to(str(q)) for q in queries}
    assert all(len(a) <= 1 for a in answers.values()), "a press was answered twice"
    given = [a[0] for a in answers.values() if a]
    slow = [a for a in given if a.text == "Too many presses at once. Wait a moment, then press again."]
    assert len(slow) == 1 and slow[0].show_alert, [a.text for a in given]
    taken = [a for a in given if not a.show_alert]
    assert len(taken) == 1, [a.text for a in given]  # the move itself; the other allowed ones were late
    assert len(given) <= 20, f"{len(given)} of 60 presses were answered: the flood was not cut"
    assert stored(redis_url, game_id).version == version + 1, "only the one move changed the game"
    assert tg.flood_refusals() == 0
    assert not limited.errors.records, limited.errors.messages()


# ---------------------------------------------------------------------- 3. messages posted again and again


def test_newgame_during_a_group_game_replies_to_the_board_once_per_period_and_never_posts_it_again(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    msg = start_group_game(tg, GROUP, alice, bob)
    pointer = reply_to(carol, "/newgame", GROUP)
    assert pointer.body == GAME_ON
    assert pointer.reply_to == msg.message_id, "the pointer is not a reply to the board"
    quiet(bot, bot.handled)
    count, handled = len(tg.bot_messages(GROUP)), bot.handled
    bob.say("/newgame", GROUP)
    carol.say("/newgame", GROUP)
    quiet(bot, handled + 2)
    assert len(tg.bot_messages(GROUP)) == count, "a second /newgame within 30 s said something"
    assert [m.message_id for m in photos(tg, GROUP)] == [msg.message_id], "the board was posted again"
    assert not bot.errors.records, bot.errors.messages()


def test_presses_on_an_idle_board_post_the_claim_offer_once_per_idle_period(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    bot = runner(tg, redis_url, dice, claim_after=1.0)
    try:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)  # Alice (white) moves first, then stays idle
        msg = start_group_game(tg, GROUP, alice, bob)

        def offers() -> list[StoredMessage]:
            return [m for m in tg.bot_messages(GROUP) if any("Claim win" in t for t in m.button_texts)]

        def press_three_times() -> list[str]:
            time.sleep(1.5)  # past claim_after: Alice is idle
            current = board(tg, GROUP)
            return [alert(bob.press_data(current, data_of(current, "m:")[0])) for _ in range(3)]

        offer = "Alice has not moved for a long time. You may claim the win: press the button below."
        again = (
            "Alice has not moved for a long time. You may claim the win: use the Claim win button, or /claim."
        )
        assert press_three_times() == [offer, again, again]
        assert len(offers()) == 1
        assert offers()[0].body == offer

        assert not alice.press(msg, "13→7").show_alert  # Alice is back: a new idle period starts
        assert press_three_times() == [offer, again, again]
        assert len(offers()) == 2
        assert not bot.errors.records, bot.errors.messages()
    finally:
        stop(tg, bot)


# ---------------------------------------------------------------------- 4. lobby hijack


def test_another_persons_lobby_cannot_be_taken_over_and_newgame_points_to_it(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    tg.add_chat(GROUP, "group", "Club")
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    bobs_menu = new_game_menu(bob, GROUP)  # from before Alice's lobby
    lobby = new_game_menu(alice, GROUP)
    assert not alice.press(lobby, "Short").show_alert
    opened = "Alice wants to play Short nardy (backgammon). Who will play? Press Join."
    assert tg.message(GROUP, lobby.message_id).body == opened

    sent = bob.say("/newgame", GROUP)
    pointer = bob.wait_message(lambda m: m.message_id > sent.message_id, GROUP)
    assert pointer.body == "Alice is waiting for an opponent: press Join to play."
    assert pointer.reply_to == lobby.message_id
    quiet(bot, bot.handled)
    assert [m.message_id for m in tg.bot_messages(GROUP) if m.message_id > sent.message_id] == [
        pointer.message_id
    ]

    refused = alert(bob.press(bobs_menu, "Long"))
    assert refused == "Alice has already opened a game here: press Join on it, or wait until it is over."
    assert tg.message(GROUP, bobs_menu.message_id).body == "Which game?"
    assert tg.message(GROUP, lobby.message_id).body == opened, "Alice's lobby was taken over"

    assert not carol.press(tg.message(GROUP, lobby.message_id), "Join").show_alert
    assert (
        tg.message(GROUP, lobby.message_id).body
        == "Short nardy (backgammon): Alice vs Carol. The game is on!"
    )
    assert len(photos(tg, GROUP)) == 1
    assert not bot.errors.records, bot.errors.messages()


def test_the_starter_may_reopen_her_lobby_and_the_old_one_says_it_was_replaced(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    tg.add_chat(GROUP, "group", "Club")
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    first = new_game_menu(alice, GROUP)
    alice.press(first, "Short")
    old_join = bob.button(first, "Join")
    second = new_game_menu(alice, GROUP)  # her own lobby does not stop her
    assert not alice.press(second, "Long").show_alert
    assert (
        tg.message(GROUP, second.message_id).body
        == "Alice wants to play Long nardy. Who will play? Press Join."
    )
    bob.tg.wait_for(
        lambda: tg.message_now(GROUP, first.message_id).text == "This game was replaced by a new one.",
        30,
        "the old lobby to say it was replaced",
    )
    assert alert(bob.press_data(first, old_join)) == "This game is no longer open."
    assert not bob.press(tg.message(GROUP, second.message_id), "Join").show_alert
    assert tg.message(GROUP, second.message_id).body == "Long nardy: Alice vs Bob. The game is on!"
    assert len(photos(tg, GROUP)) == 1
    assert not bot.errors.records, bot.errors.messages()


# ---------------------------------------------------------------------- 5. races on a chat's pointer


def test_two_level_menus_pressed_at_once_on_two_workers_start_one_game_that_resign_reaches(
    tg: FakeTelegram, workers: tuple[BotRunner, BotRunner], redis_url: str
) -> None:
    ivan = SimUser(tg, 5, "Ivan")
    menus = []
    for _ in range(2):
        menu = new_game_menu(ivan)
        ivan.press(menu, "Short")
        ivan.press(menu, "🤖")
        menus.append(menu)
    presses = [(m, ivan.button(m, "Expert")) for m in menus]
    queries = [str(ivan.press_data(m, data, wait=False)) for m, data in presses]
    answers = [tg.wait_answer(q, timeout=30) for q in queries]
    tg.wait_delivered(30)
    tg.settle()

    refused = [a for a in answers if a.show_alert]
    assert len(refused) == 1 and refused[0].text == GAME_ON, answers
    live = live_games_of(redis_url, ivan.id)
    assert len(live) == 1, [t.id for t in live]
    assert chat_pointer(redis_url, ivan.id) == live[0].id
    wait_board(tg, ivan.id, 30)
    assert len(photos(tg, ivan.id)) == 1

    question = reply_to(ivan, "/resign")
    assert question.body == "Ivan, do you really want to resign this game?"
    assert not ivan.press(question, "Yes").show_alert
    assert tg.message(ivan.id, question.message_id).body == "Ivan resigned."
    assert stored(redis_url, live[0].id).over
    assert live_games_of(redis_url, ivan.id) == []
    for w in workers:
        assert not w.errors.records, w.errors.messages()


def text_after(user: SimUser, sent: StoredMessage) -> StoredMessage:
    """The bot's first text message to `user` after their message `sent`."""
    return user.wait_message(lambda m: m.message_id > sent.message_id and m.text is not None, timeout=30)


def test_one_invitation_opened_by_two_people_at_once_starts_one_game_and_the_other_is_told_it_was_used(
    tg: FakeTelegram, workers: tuple[BotRunner, BotRunner], redis_url: str
) -> None:
    """Eight races (one is often decided before the two deliveries overlap): each starts exactly one game;
    the one who came second is told the invitation was used."""
    told: list[str] = []
    for race in range(8):
        base = 100 * (race + 1)
        alice, bob, carol = (
            SimUser(tg, base + 1, "Alice"),
            SimUser(tg, base + 2, "Bob"),
            SimUser(tg, base + 3, "Carol"),
        )
        invite, token = invite_link(tg, alice)
        sent = {u.id: u.say(f"/start {token}") for u in (bob, carol)}
        replies = {u.id: text_after(u, sent[u.id]) for u in (bob, carol)}
        tg.wait_delivered(30)
        tg.settle()

        playing = [u for u in (bob, carol) if replies[u.id].body.startswith("You are playing")]
        assert len(playing) == 1, [r.body for r in replies.values()]
        winner = playing[0]
        loser = carol if winner is bob else bob
        assert replies[winner.id].body == "You are playing Short nardy (backgammon) with Alice."
        live = live_games_of(redis_url, alice.id)
        assert len(live) == 1 and live[0].side_of(winner.id) is not None, [t.players for t in live]
        assert live_games_of(redis_url, loser.id) == []
        assert chat_pointer(redis_url, alice.id) == chat_pointer(redis_url, winner.id) == live[0].id
        assert chat_pointer(redis_url, loser.id) is None
        assert (
            len(photos(tg, alice.id)) == 1 and len(photos(tg, winner.id)) == 1 and photos(tg, loser.id) == []
        )
        assert tg.message(alice.id, invite.message_id).body == (
            f"{winner.first_name} accepted your invitation. The game is on!"
        )
        told.append(replies[loser.id].body)
    assert Counter(told) == {"This invitation has expired or was already used.": 8}, Counter(told)
    for w in workers:
        assert not w.errors.records, w.errors.messages()


async def _table(game_id: str, white: Person, black: Person, chat_id: int) -> Table:
    async def no_computer(*_: object) -> object:
        raise AssertionError("no computer in these games")

    return await start_table(
        game_id,
        "group",
        "short",
        white,
        black,
        "en",
        ScriptedDice([6, 1]),
        no_computer,  # type: ignore[arg-type]
        chat_id,
    )


async def test_two_live_games_created_at_once_in_one_chat_one_wins_and_the_pointer_names_it(
    redis_url: str,
) -> None:
    storage = Storage.from_url(redis_url)
    try:
        tables = [
            await _table("one", Person(1, "Alice"), Person(2, "Bob"), -50),
            await _table("two", Person(3, "Carol"), Person(4, "Dan"), -50),
        ]
        results = await asyncio.gather(*(storage.games.create(t) for t in tables), return_exceptions=True)
        won = [t for t, r in zip(tables, results, strict=True) if r is None]
        lost = [(t, r) for t, r in zip(tables, results, strict=True) if r is not None]
        assert len(won) == 1 and len(lost) == 1, results
        (loser, refusal), winner = lost[0], won[0]
        assert isinstance(refusal, ChatBusy) and refusal.game_id == winner.id
        current = await storage.games.game_of_chat(-50)
        assert current is not None and current.id == winner.id
        assert await storage.games.load(loser.id) is None, "a refused start wrote its game"
        for p in loser.players:
            assert await storage.games.games_of_user(p.user_id) == []
    finally:
        await storage.close()


async def test_two_invitations_put_at_once_by_one_user_leave_one_that_the_pointer_names(
    redis_url: str,
) -> None:
    storage = Storage.from_url(redis_url)
    alice = Person(1, "Alice")
    try:
        invites = [
            Invite(token, "short", alice, message_id=10 + i) for i, token in enumerate(("tokA", "tokB"))
        ]
        replaced = await asyncio.gather(*(storage.rooms.put_invite(i) for i in invites))
        assert replaced.count(None) == 1, replaced  # the first found none; the second replaced the first
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        try:
            keys = sorted(client.scan_iter(match="nardy:invite:*"))
            pointer = client.get(f"nardy:user:{alice.user_id}:invite")
        finally:
            client.close()
        assert len(keys) == 1, keys
        assert pointer in ("tokA", "tokB") and keys == [f"nardy:invite:{pointer}"]
        assert [r for r in replaced if r is not None] == [{"tokA": "tokB", "tokB": "tokA"}[pointer]]
        pending = await storage.rooms.pending_invite(alice.user_id)
        assert pending is not None and pending.token == pointer
    finally:
        await storage.close()


# ---------------------------------------------------------------------- 6. bad configuration


def test_a_bad_claim_time_exits_1_with_one_line_before_redis_starts(tg: FakeTelegram, tmp_path: Path) -> None:
    line = run_bot_to_a_config_error(tg, tmp_path, NARDY_CLAIM_AFTER="abc")
    assert "NARDY_CLAIM_AFTER" in line


# ---------------------------------------------------------------------- 7. environment of the children


def test_the_bots_child_processes_get_none_of_its_secrets_and_end_with_it(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    env = bot_env(
        tmp_path,
        tg.api_url,
        REDIS_URL="",  # set, but empty: the embedded Redis is used
        WEBHOOK_SECRET="polling-mode-secret",  # polling (no WEBHOOK_URL); the secret is in the environment
        NARDY_RENDER_PROCESSES="1",
        NARDY_COMPUTER_PROCESSES="1",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    children: dict[int, int | None] = {}
    try:
        tg.wait_for(lambda: tg.commands().get("ru"), 90, "the bot to set its commands")
        assert reply_to(SimUser(tg, 9, "Dana"), "/help").body.startswith("/newgame: start a game")
        children = {pid: process_start_time(pid) for pid in children_of(proc.pid)}
        kinds: dict[str, list[int]] = {"redis": [], "render": [], "computer": []}
        for pid in children:
            args = cmdline_of(pid)
            environ = environ_of(pid)
            leaked = [name for name in SECRET_NAMES if name in environ]
            assert not leaked, f"child {pid} {args} has {leaked} in its environment"
            assert not any(BOT_TOKEN.split(":")[1] in v for v in environ.values()), (
                f"child {pid} has the token"
            )
            assert not any("polling-mode-secret" in v for v in environ.values()), (
                f"child {pid} has the secret"
            )
            if args and os.path.basename(args[0].split()[0]).startswith("redis-server"):
                kinds["redis"].append(pid)
            elif "bot.workers.pictures" in args:
                kinds["render"].append(pid)
            elif "bot.workers.computer" in args:
                kinds["computer"].append(pid)
        assert all(kinds.values()), (kinds, {pid: cmdline_of(pid) for pid in children})
        assert redis_servers_under(tmp_path) == kinds["redis"]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    started = {pid: start for pid, start in children.items() if start is not None}
    wait_until(
        lambda: all(process_start_time(pid) != start for pid, start in started.items()), "the children to end"
    )
    assert redis_servers_under(tmp_path) == []


# ---------------------------------------------------------------------- 8. leftovers: edits, names


def test_the_bot_asks_for_what_it_handles_only_and_an_edited_command_does_nothing(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    tg.wait_for(lambda: tg._allowed is not None, 30, "the bot's first getUpdates")
    assert tg._allowed == {"message", "callback_query", "inline_query", "chosen_inline_result"}
    tg.add_chat(GROUP, "group", "Club")
    alice = SimUser(tg, 1, "Alice")
    sent = alice.say("/help", GROUP)
    alice.wait_message(lambda m: m.message_id > sent.message_id, GROUP)
    count, filtered = len(tg.bot_messages(GROUP)), tg.filtered
    tg.edit_user_message(sent, alice.json, "/newgame")
    assert tg.filtered == filtered + 1, "an edited message was delivered"
    assert reply_to(alice, "/rules", GROUP).body.startswith("Short nardy (backgammon): 15 checkers each")
    quiet(bot, bot.handled)
    assert len(tg.bot_messages(GROUP)) == count + 1
    assert not any(m.text == "Which game?" for m in tg.bot_messages(GROUP))


def test_an_edited_command_delivered_anyway_does_nothing(tg: FakeTelegram, worker: BotRunner) -> None:
    """allowed_updates is the first line; a delivery of an edited message (a Telegram that kept an older
    allowed_updates) still does nothing."""
    alice = SimUser(tg, 1, "Alice")
    handled = worker.handled
    for text in ("/newgame", "/help", "/start"):
        assert (
            post_update(
                worker.webhook_url, forged_message(alice, alice.id, text, edited=True), WEBHOOK_SECRET
            )
            == 200
        )
    quiet(worker, handled + 3)
    assert tg.bot_messages(alice.id) == []
    assert not worker.errors.records, worker.errors.messages()


def test_names_with_control_and_bidi_characters_and_long_names_are_shown_cleaned(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    raw_short, raw_long = "\u202eAlice\u0007", ("Bartholomew  Maximilian " * 3)[:60]
    mallory, max_ = SimUser(tg, 41, raw_short), SimUser(tg, 42, raw_long)
    short, long_ = display_name(raw_short, "41"), display_name(raw_long, "42")
    assert short == "Alice" and len(long_) == NAME_LIMIT and long_.endswith("…")

    dice.push(6, 1)
    group_board = start_group_game(tg, GROUP, mallory, max_)
    question = reply_to(mallory, "/resign", GROUP)
    assert question.body == f"{short}, do you really want to resign this game?"
    assert not mallory.press(question, "Yes").show_alert
    assert tg.message(GROUP, question.message_id).body == f"{short} resigned."
    caption = tg.message(GROUP, group_board.message_id).caption or ""
    assert f"{short} resigned." in caption and long_ in caption, caption

    dice.push(6, 1)  # white (the starter) moves first and then stays idle
    invite, _ = invite_link(tg, max_)
    start_friend_game_from(tg, invite, max_, mallory)
    assert tg.message(max_.id, invite.message_id).body == f"{short} accepted your invitation. The game is on!"
    friend_game = chat_pointer(redis_url, mallory.id)
    assert friend_game is not None
    backdate(redis_url, friend_game, DAY + 60)
    offer = reply_to(mallory, "/claim")
    assert (
        offer.body == f"{long_} has not moved for a long time. You may claim the win: press the button below."
    )
    assert not mallory.press(offer, "Claim win").show_alert
    assert tg.message(mallory.id, offer.message_id).body == f"{short} claimed the win."

    uncut = " ".join(raw_long.split())[:NAME_LIMIT]  # longer than any name the bot shows
    for chat in (GROUP, mallory.id, max_.id):
        for m in tg.bot_messages(chat):
            body = m.body
            assert "\u202e" not in body and "\u0007" not in body, body
            assert raw_long not in body and uncut not in body, body
    assert not bot.errors.records, bot.errors.messages()


def start_friend_game_from(
    tg: FakeTelegram, invite: StoredMessage, starter: SimUser, friend: SimUser
) -> None:
    """The friend opens the invitation `invite` (already sent by `starter`); both boards appear."""
    match = re.search(r"\?start=([A-Za-z0-9_-]+)", tg.message(starter.id, invite.message_id).body)
    assert match, invite.body
    sent = friend.say(f"/start {match[1]}")
    playing = friend.wait_message(lambda m: m.message_id > sent.message_id and m.text is not None)
    assert playing.body.startswith("You are playing"), playing.body
    wait_board(tg, starter.id)
    wait_board(tg, friend.id)
    tg.settle()


# ---------------------------------------------------------------------- 9. command menus


def test_command_menus_per_scope_and_language_and_russian_descriptions(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    commands = tg.commands()
    private = [
        "newgame",
        "resign",
        "cancel",
        "claim",
        "stats",
        "top",
        "history",
        "settings",
        "verify",
        "export",
        "seed",
        "rules",
        "help",
        "forget",
        "start",
    ]
    group = [
        "newgame",
        "tournament",
        "resign",
        "cancel",
        "claim",
        "stats",
        "top",
        "history",
        "verify",
        "export",
        "rules",
        "help",
    ]
    for lang in ("", "ru"):
        assert [c["command"] for c in commands[f"default/{lang}"]] == private
        assert [c["command"] for c in commands[f"all_private_chats/{lang}"]] == private
        assert [c["command"] for c in commands[f"all_group_chats/{lang}"]] == group
    for scope in ("default", "all_private_chats", "all_group_chats"):
        english = [c["description"] for c in commands[f"{scope}/"]]
        russian = [c["description"] for c in commands[f"{scope}/ru"]]
        assert not any(CYRILLIC.search(d) for d in english), english
        assert all(CYRILLIC.search(d) for d in russian), russian
    descriptions = tg.descriptions()
    for kind in ("description", "short"):
        assert descriptions[(kind, "")] and not CYRILLIC.search(descriptions[(kind, "")])
        assert CYRILLIC.search(descriptions[(kind, "ru")]), descriptions[(kind, "ru")]
    assert len(descriptions[("short", "ru")]) <= 120 and len(descriptions[("description", "ru")]) <= 512
