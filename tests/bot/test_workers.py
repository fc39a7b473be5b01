"""Two bot workers behind webhooks share one Redis: racing presses never double or lose a move."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from bot.config import Config, ConfigError, default_render_processes
from bot.model.flow import ScriptedDice, engine_computer
from bot.workers import pictures
from bot.workers.pictures import RenderProcesses, use_render_processes
from render.gallery import samples
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import reply_to, start_group_game
from testkit.fake_telegram.race import RaceStats, check_games, game_of, race_game
from testkit.fake_telegram.runner import WEBHOOK_SECRET, BotRunner
from testkit.fake_telegram.server import BOT_TOKEN, CallbackAnswer

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def workers(tg: FakeTelegram, redis_url: str) -> Iterator[tuple[BotRunner, BotRunner]]:
    """Two webhook workers on their own ports, registered with the fake (which spreads the updates)."""
    dice = ScriptedDice(seed=11)
    pair = tuple(
        BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=5), webhook_port=free_port(), name=name)
        for name in ("worker-a", "worker-b")
    )
    for worker in pair:
        worker.start()
    yield pair  # type: ignore[misc]
    for worker in pair:
        worker.stop()


def test_both_workers_register_their_webhook_with_the_secret(
    tg: FakeTelegram, workers: tuple[BotRunner, BotRunner]
) -> None:
    assert sorted(tg.webhooks()) == sorted(w.webhook_url for w in workers)
    secrets = {c[1].get("secret_token") for c in tg.calls("setWebhook")}
    assert secrets == {WEBHOOK_SECRET}


def test_racing_presses_on_two_workers_neither_double_nor_lose_a_move(
    tg: FakeTelegram, redis_url: str, workers: tuple[BotRunner, BotRunner]
) -> None:
    """4 games, 50 rounds each (~250 presses): double taps, both players at once, updates delivered twice."""
    games = 4
    chats = [-2000 - i for i in range(games)]
    players = {
        chat: (SimUser(tg, 100 + 2 * i, f"W{i}"), SimUser(tg, 101 + 2 * i, f"B{i}"))
        for i, chat in enumerate(chats)
    }
    for chat in chats:
        start_group_game(tg, chat, *players[chat])
    before = {chat: game_of(redis_url, chat) for chat in chats}
    tg.duplicate_rate = 0.3

    results: dict[int, RaceStats] = {}

    def play(chat: int) -> None:
        results[chat] = race_game(tg, chat, players[chat], random.Random(chat), rounds=50)

    threads = [threading.Thread(target=play, args=(chat,)) for chat in chats]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    tg.wait_delivered()

    stats = RaceStats()
    for chat in chats:
        stats.add(results[chat])
    assert not stats.problems, stats.problems[:5]
    assert stats.rounds == 4 * 50 and stats.presses > stats.rounds
    assert stats.double_taps and stats.both_at_once
    problems = check_games(
        redis_url, {c: before[c][0] for c in chats}, {c: before[c][1] for c in chats}, stats
    )
    assert not problems, problems
    # a repeated delivery is dropped: no press is answered twice, and both workers did some of the work
    repeated = [qid for qid, n in tg._state.deliveries.items() if n > 1]
    assert repeated, "the fake delivered no update twice"
    assert all(len(tg.answers_to(qid)) == 1 for qid in repeated)
    handled = {w.name: w.handled for w in workers}
    assert all(handled.values()), handled
    for worker in workers:
        assert not worker.errors.records, worker.errors.messages()


def test_a_worker_that_stops_leaves_the_updates_to_the_other(
    tg: FakeTelegram, redis_url: str, workers: tuple[BotRunner, BotRunner]
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    start_group_game(tg, -3001, alice, bob)
    workers[0].stop()  # its webhook URL stays registered: deliveries to it fail and go to the other
    for _ in range(5):
        assert reply_to(alice, "/help").text is not None
    workers[0].start()


def test_python_m_bot_serves_webhooks_when_webhook_url_is_set(tg: FakeTelegram, redis_url: str) -> None:
    port = free_port()
    env = dict(
        os.environ,
        BOT_TOKEN=BOT_TOKEN,
        REDIS_URL=redis_url,
        TELEGRAM_API_URL=tg.api_url,
        WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET="s3cret",
        PYTHONPATH=str(ROOT),
    )
    proc = subprocess.Popen([sys.executable, "-m", "bot"], env=env, cwd=ROOT, stderr=subprocess.PIPE)
    try:
        tg.wait_for(lambda: tg.calls("setWebhook"), 20, "setWebhook")
        assert tg.webhooks() == [f"http://127.0.0.1:{port}/telegram"]
        assert tg.calls("setWebhook")[-1][1]["secret_token"] == "s3cret"
        alice = SimUser(tg, 7, "Alice")
        assert "/newgame" in (reply_to(alice, "/help", None).text or "")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err.decode()[-2000:]


async def test_render_processes_draw_the_same_picture_as_a_thread() -> None:
    view = samples()["03-short-hit-white-view"]
    processes = RenderProcesses(2)
    await processes.start()
    try:
        use_render_processes(processes)
        drawn = await asyncio.gather(*(pictures.render(view) for _ in range(6)))
    finally:
        use_render_processes(None)
        await processes.stop()
    assert drawn[0][:2] == b"\xff\xd8"
    assert set(drawn) == {await pictures.render(view)}


async def test_a_killed_or_hung_render_process_loses_no_board_and_is_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    views = list(samples().values())[:3]
    processes = RenderProcesses(1)
    await processes.start()
    try:
        use_render_processes(processes)
        expected = [await asyncio.to_thread(pictures.image, v) for v in views]
        (first,) = processes.pids
        os.kill(first, signal.SIGKILL)
        assert list(await asyncio.gather(*(pictures.render(v) for v in views))) == expected
        await processes.settle()  # the replacement starts in the background
        (second,) = processes.pids
        assert second != first
        assert await pictures.render(views[0]) == expected[0]  # drawn by the new worker
        os.kill(second, signal.SIGSTOP)  # hung: no answer within the time limit
        monkeypatch.setattr(pictures, "RENDER_TIMEOUT", 0.5)
        assert await pictures.render(views[1]) == expected[1]
        await processes.settle()
        (third,) = processes.pids
        assert third not in (first, second)
    finally:
        use_render_processes(None)
        await processes.stop()
    assert processes.pids == []


async def test_when_no_render_process_can_start_boards_are_drawn_in_a_thread_and_starting_is_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = samples()["03-short-hit-white-view"]
    expected = pictures.image(view)
    processes = RenderProcesses(1)
    await processes.start()
    spawn = processes._spawn

    async def cannot_start() -> NoReturn:
        raise OSError("no more processes")

    try:
        use_render_processes(processes)
        monkeypatch.setattr(processes, "_spawn", cannot_start)
        os.kill(processes.pids[0], signal.SIGKILL)
        assert await pictures.render(view) == expected  # the worker's death: drawn in a thread
        await processes.settle()
        assert processes.pids == []  # could not start another one
        assert await pictures.render(view) == expected  # in a thread, no new attempt before RESPAWN_DELAY
        assert processes._growing is None
        monkeypatch.setattr(processes, "_spawn", spawn)
        monkeypatch.setattr(processes, "_retry_at", 0.0)  # RESPAWN_DELAY has passed
        assert await pictures.render(view) == expected
        await processes.settle()
        assert len(processes.pids) == 1
        assert await pictures.render(view) == expected
    finally:
        use_render_processes(None)
        await processes.stop()


async def test_a_renderer_bug_reaches_the_caller_and_keeps_the_worker_and_a_long_queue_is_not_a_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    views = list(samples().values())[:4]
    bug = dataclasses.replace(views[0], points=None)  # type: ignore[arg-type]  # even the fallback fails
    processes = RenderProcesses(1)
    await processes.start()
    started = processes.pids
    try:
        use_render_processes(processes)
        with pytest.raises(pictures.RenderFailed, match="TypeError"):
            await pictures.render(bug)
        # The answer's timeout is for one picture, not for the queue in front of it: a queue that takes
        # several times the timeout is no hang. The queue's length is measured against this machine's speed
        # now (a loaded machine draws slower), so the test holds on a fast machine and on a busy one alike.
        timeout = 2.0
        began = time.monotonic()
        for view in views:
            await pictures.render(view)
        each = max((time.monotonic() - began) / len(views), 1e-3)
        count = max(40, math.ceil(3 * timeout / each))  # the queue takes about three timeouts
        monkeypatch.setattr(pictures, "RENDER_TIMEOUT", timeout)
        drawn = await asyncio.gather(*(pictures.render(views[i % 4]) for i in range(count)))
        assert drawn == [pictures.image(views[i % 4]) for i in range(count)]
        assert processes.pids == started  # neither the bug nor the queue cost the worker
    finally:
        use_render_processes(None)
        await processes.stop()


def test_a_render_worker_ignores_ctrl_c_and_ends_with_its_input() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.workers.pictures"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stdout.read(1) == b"R"
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGTERM)
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(0.5)
    _, _ = proc.communicate(b"", timeout=20)  # closing its input ends it
    assert proc.returncode == 0


async def test_a_worker_that_fails_to_start_does_not_stop_the_others_and_is_started_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = samples()["03-short-hit-white-view"]
    processes = RenderProcesses(2)
    spawn, calls = processes._spawn, []

    async def first_fails() -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("fork failed")
        return await spawn()

    monkeypatch.setattr(processes, "_spawn", first_fails)
    await processes.start()
    try:
        assert len(processes.pids) == 1
        use_render_processes(processes)
        assert await pictures.render(view) == pictures.image(view)
        await processes.settle()
        assert len(processes.pids) == 2
    finally:
        use_render_processes(None)
        await processes.stop()
    assert processes.pids == []


async def test_a_view_the_renderer_refuses_still_gets_a_picture_in_a_thread_and_in_a_worker(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = dataclasses.replace(samples()["03-short-hit-white-view"], points=(1, 2, 3))  # not 24 points
    assert pictures.image(broken)[:2] == b"\xff\xd8"  # the plain fallback picture, and the error logged
    assert "the renderer refused a board view" in caplog.text
    processes = RenderProcesses(1)
    await processes.start()
    started = processes.pids
    try:
        use_render_processes(processes)
        assert (await pictures.render(broken))[:2] == b"\xff\xd8"
        assert processes.pids == started  # drawn by the worker: a refused view is not a failed worker
    finally:
        use_render_processes(None)
        await processes.stop()


def test_render_processes_default_to_one_fewer_than_the_cpus_at_most_two() -> None:
    assert [default_render_processes(n) for n in (1, 2, 3, 16)] == [0, 1, 2, 2]
    assert Config.from_env({"BOT_TOKEN": "1:x"}).render_processes == default_render_processes()
    assert Config.from_env({"BOT_TOKEN": "1:x", "NARDY_RENDER_PROCESSES": "0"}).render_processes == 0
    with pytest.raises(ConfigError, match="NARDY_RENDER_PROCESSES"):
        Config.from_env({"BOT_TOKEN": "1:x", "NARDY_RENDER_PROCESSES": "many"})


def test_config_reads_the_webhook_settings_and_refuses_bad_ones() -> None:
    env = {
        "BOT_TOKEN": "1:x",
        "WEBHOOK_URL": "https://bot.example.org/telegram",
        "WEBHOOK_PORT": "8443",
        "WEBHOOK_SECRET": "abc_DEF-123",
        "NARDY_RENDER_PROCESSES": "2",
    }
    config = Config.from_env(env)
    assert (config.webhook_url, config.webhook_listen, config.webhook_port) == (
        "https://bot.example.org/telegram",
        "0.0.0.0",
        8443,
    )
    assert config.webhook_secret == "abc_DEF-123" and "abc_DEF" not in repr(config)
    assert config.render_processes == 2
    assert Config.from_env({"BOT_TOKEN": "1:x"}).webhook_url is None
    for key, bad in [("WEBHOOK_PORT", "http"), ("WEBHOOK_SECRET", "has space"), ("WEBHOOK_URL", "bot.org")]:
        with pytest.raises(ConfigError, match=key):
            Config.from_env({**env, key: bad})


def test_a_game_end_raced_on_two_workers_changes_the_ratings_once(
    tg: FakeTelegram, redis_url: str, workers: tuple[BotRunner, BotRunner]
) -> None:
    """A double passed by ten presses at once, each update delivered to both workers now and then: the
    game ends once, and its result counts once in both players' statistics and ratings."""
    from bot.model import stats
    from bot.storage.results import ResultStore
    from testkit.fake_telegram.play import board, data_of, play_turn, wait_board

    group = -2100
    alice, bob = SimUser(tg, 201, "Alice"), SimUser(tg, 202, "Bob")
    tg.add_chat(group, "group", "Race club")
    menu = reply_to(alice, "/newgame", group)
    alice.press_data(menu, f"v:{alice.id}:short.1c")
    lobby = tg.wait_for(
        lambda: (
            "Join" in tg.message(group, menu.message_id).button_texts and tg.message(group, menu.message_id)
        ),
        10,
        "the lobby",
    )
    bob.press(lobby, "Join", wait_edit=False)
    users = {"Alice": alice, "Bob": bob}
    rng = random.Random(4)
    wait_board(tg, group)
    for _ in range(10):
        msg = board(tg, group)
        if data_of(msg, "cd:"):
            break
        mover = next(u for name, u in users.items() if f"{name} moves" in (msg.caption or ""))
        play_turn(mover, msg, rng)
    msg = board(tg, group)
    doubler = next(u for name, u in users.items() if f"{name}: roll, or double" in (msg.caption or ""))
    taker = bob if doubler is alice else alice
    answer = doubler.press_data(msg, data_of(msg, "cd:")[0])
    assert isinstance(answer, CallbackAnswer) and not answer.show_alert
    offered = tg.wait_for(lambda: data_of(board(tg, group), "cp:") and board(tg, group), 10, "Take / Pass")
    tg.duplicate_rate = 0.5
    pass_data = data_of(offered, "cp:")[0]
    queries = [taker.press_data(offered, pass_data, wait=False) for _ in range(10)]
    answers = [tg.wait_answer(str(q)) for q in queries]
    tg.duplicate_rate = 0.0
    assert sum(not a.show_alert for a in answers) == 1, [a.text for a in answers]

    async def read() -> tuple[stats.PlayerStats, stats.PlayerStats]:
        import redis.asyncio as aioredis

        client = aioredis.from_url(redis_url)
        try:
            results = ResultStore(client)
            return await results.stats_of(doubler.id), await results.stats_of(taker.id)
        finally:
            await client.aclose()

    won, lost = asyncio.run(read())
    assert (won.of("short").wins, won.of("short").games, won.of("short").rated) == (1, 1, 1)
    assert (lost.of("short").losses, lost.of("short").games, lost.of("short").rated) == (1, 1, 1)
    assert won.of("short").rating == 1510.0 and lost.of("short").rating == 1490.0
    assert isinstance(answer, CallbackAnswer) and not answer.show_alert
