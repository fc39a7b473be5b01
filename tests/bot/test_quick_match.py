"""Quick match (`/newgame` → variant → 🎲 Find an opponent): pairing in Redis, through the fake Bot API over HTTP.

Two strangers are paired and each plays on their own board; many players pressing at once over two webhook
workers are each paired once or left waiting (never twice, never lost); Stop searching; the timeout (with the
computer offered) through the sweeper, across a restart too; a player who blocked the bot; a player with a live
game; /forget."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis

from bot.config import DEFAULT_SEEK_TIMEOUT, ConfigError, seek_timeout_from_env
from bot.model.flow import Refused, ScriptedDice, engine_computer, start_table
from bot.model.table import Person, Seeker, Table
from bot.model.waiting import check_claim, claim
from bot.storage import Gone, Storage
from bot.telegram import callbacks, display
from bot.telegram.app import SWEEPER
from bot.workers.pictures import render
from engine import Game, Play, Side
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import new_game_menu, reply_to, start_computer_game, wait_board
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

WAITING = ("looking for an opponent", "ищем соперника")
FOUND = ("Opponent found", "Соперник найден")


# ---------------------------------------------------------------------- helpers


def client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url, decode_responses=True)


def queue(redis_url: str, variant: str = "short") -> list[int]:
    r = client(redis_url)
    try:
        found: list[str] = r.zrange(f"nardy:seek:{variant}", 0, -1)  # type: ignore[assignment]
        return [int(u) for u in found]
    finally:
        r.close()


def search(redis_url: str, user_id: int) -> dict[str, Any] | None:
    r = client(redis_url)
    try:
        raw = r.get(f"nardy:user:{user_id}:seek")
        return None if raw is None else dict(json.loads(raw))
    finally:
        r.close()


def live_game(redis_url: str, user_id: int) -> dict[str, Any] | None:
    """The live game of the user's private chat, as stored."""
    r = client(redis_url)
    try:
        game_id: str | None = r.get(f"nardy:chat:{user_id}:game")  # type: ignore[assignment]
        raw = None if game_id is None else r.get(f"nardy:game:{game_id}")
        record = None if raw is None else dict(json.loads(raw))
        return record if record is not None and record["game"]["state"]["phase"] != "over" else None
    finally:
        r.close()


def opponent_menu(user: SimUser, variant: str = "short") -> StoredMessage:
    """/newgame in the user's private chat and the variant: the menu that offers the opponents."""
    menu = new_game_menu(user)
    answer = user.press(menu, lambda text: ("Long" in text or "Длинные" in text) == (variant == "long"))
    assert not answer.show_alert, answer.text
    return user.tg.message(user.id, menu.message_id)


def find(user: SimUser, menu: StoredMessage) -> CallbackAnswer:
    """Press 🎲 Find an opponent (or 🎲 Look again) under `menu`; wait until the message says how it went."""
    return user.press(menu, "🎲")


def text_of(tg: FakeTelegram, msg: StoredMessage) -> str:
    return tg.message(msg.chat_id, msg.message_id).body


def wait_text(
    tg: FakeTelegram, msg: StoredMessage, words: tuple[str, ...], timeout: float = 10.0
) -> StoredMessage:
    """Wait until the message `msg` says one of `words`."""
    tg.wait_for(
        lambda: any(w in tg.message_now(msg.chat_id, msg.message_id).body for w in words),
        timeout,
        f"message {msg.message_id} in chat {msg.chat_id} to say one of {words}",
    )
    return tg.message(msg.chat_id, msg.message_id)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def two_workers(tg: FakeTelegram, redis_url: str, **kw: Any) -> tuple[BotRunner, BotRunner]:
    """Two webhook workers on one Redis (the fake spreads the updates between them), settled by tg.settle()."""
    dice = ScriptedDice(seed=11)
    pair = tuple(
        BotRunner(
            tg.api_url, redis_url, dice, engine_computer(seed=5), webhook_port=free_port(), name=name, **kw
        )
        for name in ("worker-a", "worker-b")
    )
    for worker in pair:
        worker.start()
        tg.settlers.append(worker.settle)
    return pair  # type: ignore[return-value]


def stop_workers(tg: FakeTelegram, workers: tuple[BotRunner, ...]) -> None:
    for worker in workers:
        tg.settlers.remove(worker.settle)
        worker.stop()


@pytest.fixture
def quick_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    """A polling bot whose quick-match searches end after 1.5 s."""
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), seek_timeout=1.5)
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


# ---------------------------------------------------------------------- without Telegram


def test_the_quick_match_buttons_decode_and_forgeries_do_not() -> None:
    found = callbacks.decode(callbacks.find_opponent(123456789012, "long"))
    assert (found.action, found.user, found.variant) == ("qm", 123456789012, "long")
    stop = callbacks.decode(callbacks.stop_seeking(42, "AbC-_12345x"))
    assert (stop.action, stop.user, stop.token) == ("qs", 42, "AbC-_12345x")
    assert len(callbacks.stop_seeking(2**63, "a" * 24).encode()) <= 64
    for forged in (
        "qm:1:medium",
        "qm:01:short",
        "qm:1:short:x",
        "qs:1:bad token",
        "qs:1:",
        "qs:x:abc",
        "q:1",
    ):
        with pytest.raises(callbacks.BadCallback):
            callbacks.decode(forged)


def test_seek_timeout_comes_from_the_environment_and_is_checked() -> None:
    assert seek_timeout_from_env({}) == DEFAULT_SEEK_TIMEOUT == 300
    assert seek_timeout_from_env({"NARDY_SEEK_TIMEOUT": " 45 "}) == 45
    for bad in ("abc", "0", "-5", "nan", "inf", "86401"):
        with pytest.raises(ConfigError, match="NARDY_SEEK_TIMEOUT"):
            seek_timeout_from_env({"NARDY_SEEK_TIMEOUT": bad})


def test_an_unreachable_opponent_may_be_claimed_at_once_whoever_is_on_turn() -> None:
    game = Game.new("short").opening_roll(6, 1)  # white (Alice) moves first
    table = Table(
        "t1", "match", game, (Person(1, "Alice"), Person(2, "Bob")), "en", moved_at=1000.0, version=4
    )
    with pytest.raises(Refused):  # Bob is reachable: Alice, on turn, has nothing to claim
        check_claim(table, 1, 1000.0, 3600)
    assert check_claim(table, 1, 1000.0, 3600, {Side.BLACK}) is Side.BLACK  # her own turn, no wait
    assert check_claim(table, 2, 1000.0, 3600, {Side.WHITE}) is Side.WHITE
    with pytest.raises(Refused):  # an unreachable player cannot claim from a reachable one
        check_claim(table, 2, 1000.0, 3600, {Side.BLACK})
    won = claim(table, 1, 2, 1000.0, 3600, {Side.BLACK})  # an older button still claims an unreachable one
    assert won.over and won.game.result is not None and won.game.result.winner is Side.WHITE
    assert won.events[-1] == {"k": "gone", "s": 1}
    with pytest.raises(Refused, match="out of date"):
        claim(table, 2, 2, 1000.0 + 7200, 3600)


# ---------------------------------------------------------------------- the scripts, against the real Redis


async def _no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in a quick match")


def _plant(redis_url: str, seekers: list[Seeker]) -> None:
    """Searches written straight into Redis (the scripts never let a queue hold two live seekers)."""
    r = client(redis_url)
    try:
        for seeker in seekers:
            r.zadd(f"nardy:seek:{seeker.game}", {str(seeker.person.user_id): seeker.since})
            r.set(f"nardy:user:{seeker.person.user_id}:seek", json.dumps(seeker.to_json()), ex=3600)
    finally:
        r.close()


def _seeker(user_id: int, since: float, variant: str = "short") -> Seeker:
    return Seeker(Person(user_id, f"P{user_id}"), variant, since, f"t{user_id}", 10 + user_id)


async def test_a_look_skips_ended_searches_drops_busy_seekers_and_pairs_the_oldest_live_one(
    redis_url: str,
) -> None:
    storage = Storage.from_url(redis_url)
    try:
        busy_game = await start_table(
            "busy1",
            "friend",
            "short",
            Person(2, "P2"),
            Person(50, "X"),
            "en",
            ScriptedDice([6, 1]),
            _no_computer,
        )
        await storage.games.create(busy_game)  # P2 plays another game: a stale search of theirs is dropped
        _plant(redis_url, [_seeker(2, 1001.0), _seeker(3, 1002.0), _seeker(4, 1003.0)])
        r = client(redis_url)
        r.zadd("nardy:seek:short", {"1": 1000.0})  # an entry whose search ended (no record): stale
        r.close()
        me = _seeker(9, 2000.0)
        outcome = await storage.rooms.seek(me, 3600)
        assert outcome.kind == "pair" and outcome.other == _seeker(3, 1002.0)
        assert [s.person.user_id for s in outcome.dropped] == [2] and search(redis_url, 2) is None
        assert queue(redis_url) == [3, 4]  # the partner stays until the game consumes their search
        game = await start_table(
            "qm1", "match", "short", outcome.other.person, me.person, "en", ScriptedDice([6, 1]), _no_computer
        )
        await storage.rooms.start_from_seek(outcome.other, game)
        assert queue(redis_url) == [4] and search(redis_url, 3) is None
        with pytest.raises(Gone):  # that search is used up: a second game from it is refused
            await storage.rooms.start_from_seek(outcome.other, replace(game, id="qm2"))
        assert (await storage.rooms.seek(_seeker(3, 2001.0), 3600)).kind == "busy"
        assert (await storage.rooms.seek(_seeker(4, 2002.0), 3600)).kind == "seeking"
        assert (await storage.rooms.seek(_seeker(7, 2003.0, "long"), 3600)).kind == "queued"
        assert queue(redis_url, "long") == [7]
    finally:
        await storage.close()


async def test_racing_sweepers_hand_out_each_expired_search_once(redis_url: str) -> None:
    sweepers = [Storage.from_url(redis_url) for _ in range(4)]
    try:
        seekers = [_seeker(100 + i, 1000.0 + i, "long" if i % 2 else "short") for i in range(60)]
        _plant(redis_url, seekers)
        taken = await asyncio.gather(
            *(s.rooms.expire_seekers(1039.0, limit=7) for s in sweepers for _ in range(5))
        )
        ended = [seeker.person.user_id for batch in taken for seeker, game in batch]
        assert sorted(ended) == list(range(100, 140))  # the 40 that began by the cutoff, each once
        assert all(game is None for batch in taken for _, game in batch)
        assert sorted(queue(redis_url, "short") + queue(redis_url, "long")) == list(range(140, 160))
        assert all(search(redis_url, u) is None for u in range(100, 140))
        assert all(search(redis_url, u) is not None for u in range(140, 160))
    finally:
        for storage in sweepers:
            await storage.close()


# ---------------------------------------------------------------------- two players


def test_two_players_are_paired_each_sees_the_board_from_their_side_and_a_move_updates_both(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob", "ru")
    dice.push(6, 1)  # the opening roll: white (Alice, who waited) 6, black 1: Alice moves first with 6-1
    alice_menu = opponent_menu(alice)
    assert "🎲 Find an opponent" in alice_menu.button_texts
    assert not find(alice, alice_menu).show_alert
    waiting = wait_text(tg, alice_menu, WAITING)
    assert "Short nardy (backgammon): looking for an opponent" in waiting.body
    assert waiting.button_texts == ["✖ Stop searching"]
    assert queue(redis_url) == [alice.id]
    record = search(redis_url, alice.id)
    assert record is not None and record["game"] == "short" and record["message_id"] == alice_menu.message_id
    assert record["person"] == {"id": 1, "name": "Alice", "lang": "en"}
    r = client(redis_url)
    assert r.ttl("nardy:seek:short") > 0 and r.ttl(f"nardy:user:{alice.id}:seek") > 0  # every key expires
    r.close()

    bob_menu = opponent_menu(bob)
    assert "🎲 Найти соперника" in bob_menu.button_texts
    assert not find(bob, bob_menu).show_alert
    assert "Соперник найден: Alice. Короткие нарды: игра началась" in wait_text(tg, bob_menu, FOUND).body
    alice_found = wait_text(tg, alice_menu, FOUND)
    assert "Opponent found: Bob. Short nardy (backgammon): the game is on" in alice_found.body
    assert not alice_found.buttons
    alice_board, bob_board = wait_board(tg, alice.id), wait_board(tg, bob.id)
    tg.settle()
    assert (
        queue(redis_url) == [] and search(redis_url, alice.id) is None and search(redis_url, bob.id) is None
    )

    game = live_game(redis_url, alice.id)
    assert game is not None and game == live_game(redis_url, bob.id)
    assert game["mode"] == "match" and [p["id"] for p in game["players"]] == [alice.id, bob.id]
    alice_board, bob_board = (
        tg.message(alice.id, alice_board.message_id),
        tg.message(bob.id, bob_board.message_id),
    )
    assert "Your move, dice 6-1." in (alice_board.caption or "") and alice_board.buttons
    assert "Ходит Alice, кубики 6-1." in (bob_board.caption or "") and not bob_board.buttons

    async def pictures(d: Any) -> dict[int, bytes]:  # each board drawn from its own player's side
        table = await d.storage.games.load(game["id"])
        return {target.chat_id: await render(display._view(table, target)) for target in table.targets}

    expected = bot.call(pictures)
    assert expected[alice.id] != expected[bob.id]
    assert alice_board.photo == expected[alice.id] and bob_board.photo == expected[bob.id]

    before = bob_board.edits
    move = next(b for b in alice_board.button_texts if "→" in b)
    assert not alice.press(alice_board, move).show_alert
    tg.settle()
    assert tg.message(bob.id, bob_board.message_id).edits == before + 1
    record = live_game(redis_url, bob.id)
    assert record is not None and record["version"] == game["version"] + 1
    assert not bot.errors.records, bot.errors.messages()


def test_many_players_racing_over_two_workers_are_each_paired_once_or_left_waiting(
    tg: FakeTelegram, redis_url: str
) -> None:
    """21 players (11 short, 10 long) press Find at once over two webhook workers, some twice, with a third
    of the updates delivered twice: 5 short and 5 long games, one short player waiting, nobody in two games."""
    workers = two_workers(tg, redis_url)
    try:
        users = [SimUser(tg, 500 + i, f"P{i}") for i in range(21)]
        variant = {u.id: "long" if i % 2 else "short" for i, u in enumerate(users)}
        menus = {u.id: opponent_menu(u, variant[u.id]) for u in users}
        tg.duplicate_rate = 0.3
        rng = random.Random(5)
        presses: list[str] = []
        start = threading.Barrier(len(users))

        def press(user: SimUser) -> None:
            menu = menus[user.id]
            data = user.button(menu, "🎲")
            start.wait(10)
            for _ in range(2 if rng.random() < 0.3 else 1):
                qid = user.press_data(menu, data, wait=False)
                assert isinstance(qid, str)
                presses.append(qid)

        threads = [threading.Thread(target=press, args=(u,)) for u in users]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        for qid in presses:
            tg.wait_answer(qid, 20)
        tg.wait_delivered(20)
        tg.settle()

        games: dict[str, dict[str, Any]] = {}
        waiting: list[int] = []
        for user in users:
            game, record = live_game(redis_url, user.id), search(redis_url, user.id)
            assert (game is None) != (record is None), f"user {user.id}: game {game}, search {record}"
            if game is not None:
                games[game["id"]] = game
                assert game["mode"] == "match" and game["game"]["game"] == variant[user.id]
                assert wait_text(tg, menus[user.id], FOUND)
                assert wait_board(tg, user.id)
            else:
                assert record is not None and record["game"] == variant[user.id]
                waiting.append(user.id)
                assert user.id in queue(redis_url, variant[user.id])
                assert wait_text(tg, menus[user.id], WAITING).button_texts == ["✖ Stop searching"]
        seats = Counter(p["id"] for g in games.values() for p in g["players"])
        assert all(n == 1 for n in seats.values()), seats  # nobody in two games
        assert len(seats) + len(waiting) == len(users)  # nobody lost
        assert Counter(g["game"]["game"] for g in games.values()) == {"short": 5, "long": 5}
        assert [variant[u] for u in waiting] == ["short"]
        for variant_name in ("short", "long"):  # the queues hold the one waiting player and nothing stale
            assert queue(redis_url, variant_name) == [u for u in waiting if variant[u] == variant_name]
        assert all(w.handled for w in workers), [w.handled for w in workers]
        for worker in workers:
            assert not worker.errors.records, worker.errors.messages()
    finally:
        stop_workers(tg, workers)


# ---------------------------------------------------------------------- stopping, timing out


def test_stop_searching_leaves_the_queue_and_a_press_after_the_pairing_says_so(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    alice_menu = opponent_menu(alice)
    find(alice, alice_menu)
    stop_data = alice.button(alice_menu, "Stop")
    assert not alice.press(alice_menu, "Stop").show_alert
    assert text_of(tg, alice_menu) == "You stopped searching. Send /newgame to play."
    assert queue(redis_url) == [] and search(redis_url, alice.id) is None
    again = alice.press_data(alice_menu, stop_data)
    assert (
        isinstance(again, CallbackAnswer) and again.show_alert and "This search is over" in (again.text or "")
    )

    bob_menu = opponent_menu(bob)  # Alice stopped: Bob waits
    find(bob, bob_menu)
    wait_text(tg, bob_menu, WAITING)
    bob_stop = bob.button(bob_menu, "Stop")
    assert queue(redis_url) == [bob.id]
    alice_menu = opponent_menu(alice)
    find(alice, alice_menu)
    wait_text(tg, alice_menu, FOUND)
    wait_text(tg, bob_menu, FOUND)
    late = bob.press_data(bob_menu, bob_stop)  # pressed as the pairing happened
    assert isinstance(late, CallbackAnswer) and late.show_alert
    assert late.text == "An opponent has already been found: your game is on."
    assert live_game(redis_url, bob.id) is not None
    other = alice.press_data(alice_menu, bob_stop)  # someone else's Stop button
    assert isinstance(other, CallbackAnswer) and other.show_alert
    assert other.text == "This button does not belong to this message."
    assert not bot.errors.records, bot.errors.messages()


def test_a_search_that_finds_nobody_ends_with_the_computer_offered_by_one_of_two_workers(
    tg: FakeTelegram, redis_url: str
) -> None:
    workers = two_workers(tg, redis_url, seek_timeout=1.0)
    try:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Боб", "ru")
        alice_menu, bob_menu = opponent_menu(alice, "short"), opponent_menu(bob, "long")  # never paired
        find(alice, alice_menu)
        find(bob, bob_menu)
        over = wait_text(tg, alice_menu, ("Nobody turned up",))
        assert "Nobody turned up for Short nardy (backgammon) this time." in over.body
        assert over.button_texts == ["Beginner", "Intermediate", "Expert", "🎲 Look again"]
        bob_over = wait_text(tg, bob_menu, ("никто не нашёлся",))
        assert "🎲 Искать снова" in bob_over.button_texts
        assert queue(redis_url, "short") == queue(redis_url, "long") == []
        assert search(redis_url, alice.id) is None and search(redis_url, bob.id) is None
        tg.settle()
        told = [
            c[1]["chat_id"]
            for c in tg.calls("editMessageText")
            if "Nobody turned up" in str(c[1].get("text")) or "никто не нашёлся" in str(c[1].get("text"))
        ]
        assert sorted(int(c) for c in told) == [alice.id, bob.id]  # each told once, by one worker
        assert sum(_ended(w) for w in workers) == 2  # searches ended, over both workers' sweepers

        find(alice, alice_menu)  # look again: waiting again, then over again
        wait_text(tg, alice_menu, WAITING)
        wait_text(tg, alice_menu, ("Nobody turned up",))
        assert not alice.press(alice_menu, "Beginner").show_alert  # the computer, at the level picked
        assert "against the computer (beginner)" in text_of(tg, alice_menu)
        game = live_game(redis_url, alice.id)
        assert game is not None and game["mode"] == "computer"
        for worker in workers:
            assert not worker.errors.records, worker.errors.messages()
    finally:
        stop_workers(tg, workers)


def _ended(worker: BotRunner) -> int:
    assert worker.app is not None
    return int(worker.app.bot_data[SWEEPER].ended)


def test_a_wait_survives_a_restart_and_so_does_its_timeout(
    tg: FakeTelegram, quick_bot: BotRunner, redis_url: str
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    alice_menu = opponent_menu(alice, "long")
    find(alice, alice_menu)
    wait_text(tg, alice_menu, WAITING)
    quick_bot.stop()
    quick_bot.seek_timeout = 300.0  # the restarted bot waits longer: Alice is still there for Bob
    quick_bot.start()
    assert queue(redis_url, "long") == [alice.id]
    bob_menu = opponent_menu(bob, "long")
    find(bob, bob_menu)
    wait_text(tg, bob_menu, FOUND)
    wait_text(tg, alice_menu, FOUND)
    assert wait_board(tg, alice.id) and wait_board(tg, bob.id)

    quick_bot.stop()  # a search whose time runs out while no bot runs is ended at the next start
    quick_bot.seek_timeout = 1.0
    quick_bot.start()
    carol_menu = opponent_menu(carol)
    find(carol, carol_menu)
    wait_text(tg, carol_menu, WAITING)
    quick_bot.stop()
    time.sleep(1.2)
    assert queue(redis_url) == [carol.id]
    quick_bot.start()
    wait_text(tg, carol_menu, ("Nobody turned up",))
    assert queue(redis_url) == [] and search(redis_url, carol.id) is None
    assert not quick_bot.errors.records, quick_bot.errors.messages()


# ---------------------------------------------------------------------- who may not, who cannot be reached


def test_a_player_with_a_live_game_or_a_search_already_is_refused_and_one_who_starts_a_game_is_dropped(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    old_menu = opponent_menu(alice)
    start_computer_game(tg, alice)
    busy = find(alice, old_menu)
    assert busy.show_alert and busy.text == "A game is already going on here. Finish it or /resign first."
    assert queue(redis_url) == [] and search(redis_url, alice.id) is None
    alice.press(reply_to(alice, "/resign"), "Yes")

    first, second = opponent_menu(alice), opponent_menu(alice)
    find(alice, first)
    again = find(alice, second)
    assert again.show_alert and "already looking for an opponent" in (again.text or "")
    assert queue(redis_url) == [alice.id]
    start_computer_game(tg, alice, level="Beginner")  # while looking: another game
    bob_menu = opponent_menu(bob)
    find(bob, bob_menu)
    assert wait_text(tg, bob_menu, WAITING)  # not paired with Alice, who plays the computer: she is told
    assert "you started another game" in wait_text(tg, first, ("another game",)).body
    assert queue(redis_url) == [bob.id] and search(redis_url, alice.id) is None
    assert not bot.errors.records, bot.errors.messages()


def test_a_blocked_opponent_can_be_claimed_at_once_and_a_blocked_seeker_leaves_the_queue(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob", "ru")
    dice.push(1, 6)  # the opening roll: white (Alice) 1, black (Bob) 6: Bob is on turn
    alice_menu = opponent_menu(alice)
    find(alice, alice_menu)
    wait_text(tg, alice_menu, WAITING)
    tg.set_blocked(alice.id)  # she blocks the bot while she waits
    bob_menu = opponent_menu(bob)
    find(bob, bob_menu)
    wait_text(tg, bob_menu, FOUND)
    told = bob.wait_message(lambda m: m.text is not None and "Alice недоступен" in m.text)
    assert told.button_texts == ["🏳 Забрать победу"]
    assert [m for m in tg.bot_messages(alice.id) if m.photo is not None] == []  # her board never arrived
    bob_board = wait_board(tg, bob.id)
    assert bob_board.buttons  # Bob is on turn, and may still claim at once
    assert not bob.press(told, "Забрать").show_alert
    tg.settle()
    final = tg.message(bob.id, bob_board.message_id)
    assert "Alice недоступен(на)" in (final.caption or "") and "Bob забрал(а) победу" in (final.caption or "")
    assert final.button_texts == ["🔁 Реванш", "📄 Запись", "🎞 Повтор", "📊 Разбор"]
    assert live_game(redis_url, bob.id) is None and live_game(redis_url, alice.id) is None
    assert queue(redis_url) == [] and search(redis_url, alice.id) is None

    carol, dave = SimUser(tg, 3, "Carol"), SimUser(tg, 4, "Dave")  # blocked before the waiting message
    carol_menu = opponent_menu(carol)
    tg.set_blocked(carol.id)
    carol.press_data(carol_menu, carol.button(carol_menu, "🎲"))
    tg.wait_for(lambda: search(redis_url, carol.id) is None, 10, "Carol's search to end")
    assert queue(redis_url) == []
    dave_menu = opponent_menu(dave)
    find(dave, dave_menu)
    wait_text(tg, dave_menu, WAITING)  # not paired with Carol
    assert queue(redis_url) == [dave.id]
    assert not bot.errors.records, bot.errors.messages()


def test_cancel_or_forget_while_searching_leaves_the_queue(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    alice = SimUser(tg, 1, "Alice")
    menu = opponent_menu(alice, "long")
    find(alice, menu)
    wait_text(tg, menu, WAITING)
    assert reply_to(alice, "/cancel").text == "You stopped searching. Send /newgame to play."
    assert "You stopped searching" in wait_text(tg, menu, ("stopped",)).body
    assert queue(redis_url, "long") == [] and search(redis_url, alice.id) is None

    menu = opponent_menu(alice)
    find(alice, menu)
    wait_text(tg, menu, WAITING)
    assert queue(redis_url) == [alice.id]
    alice.press(reply_to(alice, "/forget"), "Yes")
    assert "You stopped searching" in wait_text(tg, menu, ("stopped",)).body
    assert queue(redis_url) == [] and search(redis_url, alice.id) is None
    r = client(redis_url)
    assert list(r.scan_iter(match=f"nardy:user:{alice.id}:*")) == []
    r.close()
    assert not bot.errors.records, bot.errors.messages()


async def test_seekers_pair_only_within_their_game_format_and_a_match_search_times_out_and_stops(
    redis_url: str,
) -> None:
    storage = Storage.from_url(redis_url)
    try:
        assert (await storage.rooms.seek(_seeker(301, 1000.0, "short.5c"), 3600)).kind == "queued"
        assert (await storage.rooms.seek(_seeker(302, 1001.0, "short.5"), 3600)).kind == "queued"
        assert (await storage.rooms.seek(_seeker(303, 1002.0, "short"), 3600)).kind == "queued"
        paired = await storage.rooms.seek(_seeker(304, 1003.0, "short.5c"), 3600)
        assert paired.kind == "pair" and paired.other is not None and paired.other.person.user_id == 301
        stopped = await storage.rooms.stop_seek(302)
        assert stopped is not None and stopped.game == "short.5"
        expired = await storage.rooms.expire_seekers(1002.5)
        # the one in short: timed out; 301's search (paired, its game not yet started) too; 302's was stopped
        assert sorted((s.person.user_id, s.game) for s, _ in expired) == [(301, "short.5c"), (303, "short")]
    finally:
        await storage.close()
