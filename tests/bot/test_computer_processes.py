"""The computer opponent's decisions in worker processes of their own (bot/workers/computer.py on
bot/workers/worker_pool.py): real `python -m bot.workers.computer` processes, killed, stopped and lied to for real.

Run as `python -m tests.bot.test_computer_processes`, this file is a computer worker that answers
garbage (the bot must refuse every answer and still make the move)."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
from pathlib import Path

import pytest

from bot.config import Config, ConfigError
from bot.model.flow import ScriptedDice, engine_computer
from bot.workers import computer
from bot.workers.computer import ComputerProcesses, Decision, accepted_play
from bot.workers.pictures import RenderProcesses
from bot.workers.worker_pool import run_worker, worker_env
from engine import Game, Phase, Play
from testkit.fake_telegram import FakeTelegram
from testkit.fake_telegram.runner import BotRunner
from testkit.liar import lying

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {"BOT_TOKEN": "123:secret-token", "WEBHOOK_SECRET": "hook-secret", "REDIS_URL": "redis://pw@h:1/0"}


def midgame(variant: str, turns: int, seed: int) -> Game:
    """A game `turns` random turns in, with the dice rolled and more than one play to choose from."""
    rng = random.Random(seed)
    game = Game.new(variant)
    while game.phase is Phase.OPENING:
        game = game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    played = 0
    while True:
        if game.phase is Phase.OVER:
            return midgame(variant, turns // 2, seed + 1)
        if game.phase is Phase.ROLL:
            game = game.roll(rng.randint(1, 6), rng.randint(1, 6))
            continue
        plays = game.legal_plays()
        if played >= turns and len(plays) > 1:
            return game
        game = game.play(rng.choice(plays))
        played += 1


GAMES = [midgame("short", 8, 1), midgame("long", 12, 2), midgame("short", 20, 3), midgame("long", 30, 4)]


def in_thread(game: Game, level: str, seed: int) -> Play:
    return Decision.of(game, level, seed).choose()


def same_play(a: Play, b: Play) -> bool:
    return a == b and a.moves == b.moves


async def test_a_decision_made_in_a_computer_process_is_the_legal_play_a_thread_would_choose() -> None:
    computers = ComputerProcesses(1)
    await computers.start()
    try:
        for i, game in enumerate(GAMES):
            for level in ("beginner", "intermediate", "expert"):
                chosen = await computers.choose(game, level, seed=100 + i)
                assert chosen in game.legal_plays()
                assert same_play(chosen, in_thread(game, level, 100 + i)), (game.rules.name, level)
                game.play(chosen)  # the engine takes it as a move
        assert (computers.from_workers, computers.in_thread) == (3 * len(GAMES), 0)
    finally:
        await computers.stop()
    assert computers.pids == []


async def test_a_seeded_computer_plays_the_same_in_processes_as_in_a_thread() -> None:
    computers = ComputerProcesses(2)
    await computers.start()
    try:
        in_processes, threaded = engine_computer(seed=5, processes=computers), engine_computer(seed=5)
        for game in GAMES:
            for level in ("beginner", "expert"):
                assert same_play(await in_processes(game, level), await threaded(game, level))
        assert (computers.from_workers, computers.in_thread) == (2 * len(GAMES), 0)
    finally:
        await computers.stop()


async def test_a_killed_computer_process_is_replaced_and_the_next_decision_is_still_made() -> None:
    game = GAMES[1]
    computers = ComputerProcesses(1)
    await computers.start()
    try:
        (first,) = computers.pids
        os.kill(first, signal.SIGKILL)
        chosen = await computers.choose(game, "expert", seed=7)  # the dead worker's: decided in a thread
        assert same_play(chosen, in_thread(game, "expert", 7))
        assert (computers.from_workers, computers.in_thread) == (0, 1)
        await computers.settle()  # the replacement starts in the background
        (second,) = computers.pids
        assert second != first
        assert same_play(await computers.choose(game, "expert", seed=8), in_thread(game, "expert", 8))
        assert computers.pids == [second] and computers.from_workers == 1  # made by the new worker
    finally:
        await computers.stop()


async def test_a_hung_computer_process_is_replaced_and_its_decision_made_in_a_thread() -> None:
    game = GAMES[0]
    computers = ComputerProcesses(1, timeout=0.5)
    await computers.start()
    try:
        (first,) = computers.pids
        os.kill(first, signal.SIGSTOP)  # no answer within the time limit
        assert same_play(await computers.choose(game, "expert", seed=3), in_thread(game, "expert", 3))
        assert (computers.from_workers, computers.in_thread) == (0, 1)
        await computers.settle()
        assert computers.pids and computers.pids[0] != first
        assert same_play(await computers.choose(game, "expert", seed=4), in_thread(game, "expert", 4))
        assert computers.from_workers == 1
    finally:
        await computers.stop()


async def test_a_computer_process_answering_garbage_is_refused_and_the_move_is_still_made(
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = GAMES[0]
    liar = ComputerProcesses(1, module="tests.bot.test_computer_processes")
    await liar.start()
    started = liar.pids
    try:
        with caplog.at_level(logging.ERROR, logger="bot.workers.computer"):
            for seed in range(len(GARBAGE)):
                chosen = await liar.choose(game, "intermediate", seed)
                assert chosen in game.legal_plays()
                assert same_play(chosen, in_thread(game, "intermediate", seed))
        assert liar.pids == started, "a bad answer is refused; the worker is not a failed one"
        assert (liar.from_workers, liar.in_thread) == (0, len(GARBAGE))
    finally:
        await liar.stop()
    errors = [r.getMessage() for r in caplog.records if r.name == "bot.workers.computer"]
    assert len(errors) == len(GARBAGE), errors
    assert sum("answer was refused" in e for e in errors) == len(GARBAGE) - 1
    assert sum("could not decide" in e and "the liar's engine broke" in e for e in errors) == 1


def test_an_answer_is_taken_only_if_it_is_a_whole_legal_turn() -> None:
    game = GAMES[0]
    play = in_thread(game, "expert", 1)
    assert same_play(accepted_play(game, repr([[m.src, m.die] for m in play.moves]).encode()), play)
    for garbage in GARBAGE[:-1]:
        with pytest.raises(ValueError, match="answer"):
            accepted_play(game, garbage)


async def test_more_decisions_than_the_queue_bound_all_complete_and_no_worker_is_sent_more() -> None:
    computers = ComputerProcesses(1, queue_bound=2)
    await computers.start()
    try:
        asked = [(GAMES[i % len(GAMES)], seed) for i, seed in enumerate(range(12))]
        chosen = await asyncio.gather(*(computers.choose(g, "intermediate", s) for g, s in asked))
        expected = [in_thread(g, "intermediate", s) for g, s in asked]
        assert all(same_play(c, e) for c, e in zip(chosen, expected, strict=True))
        assert (computers.from_workers, computers.in_thread) == (12, 0)
        assert computers.most_queued == 2, "the bound was reached and never passed"
    finally:
        await computers.stop()


async def test_past_max_waiting_decisions_a_press_is_refused_as_busy_instead_of_queued(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(computer, "MAX_WAITING", 3)
    computers = ComputerProcesses(1, queue_bound=1)
    await computers.start()
    try:
        asked = [(GAMES[i % len(GAMES)], seed) for i, seed in enumerate(range(8))]
        outcomes = await asyncio.gather(
            *(computers.choose(g, "expert", s) for g, s in asked), return_exceptions=True
        )
        busy = [o for o in outcomes if isinstance(o, computer.ComputerBusy)]
        made = [o for o in outcomes if isinstance(o, Play)]
        assert len(busy) == 4 and len(made) == 4, outcomes  # 1 written to the worker, 3 waiting
    finally:
        await computers.stop()


async def test_a_request_cancelled_while_waiting_for_a_slot_does_not_hold_up_the_others() -> None:
    computers = ComputerProcesses(2, queue_bound=1)
    await computers.start()
    try:
        tasks = [asyncio.create_task(computers.choose(GAMES[1], "expert", s)) for s in range(6)]
        await asyncio.sleep(0)  # every task has asked: two written, four waiting for a slot
        tasks[3].cancel()
        done = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
        assert isinstance(done[3], asyncio.CancelledError)
        for seed in (0, 1, 2, 4, 5):
            assert same_play(done[seed], in_thread(GAMES[1], "expert", seed))  # type: ignore[arg-type]
        assert computers.most_queued == 1
        assert (computers.from_workers, computers.in_thread) == (5, 0)
    finally:
        await computers.stop()


async def test_render_and_computer_workers_get_none_of_the_bots_secrets_a_name_for_ps_and_their_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    render, computers = RenderProcesses(1), ComputerProcesses(1)
    await asyncio.gather(render.start(), computers.start())
    try:
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        for pool, title, nice in (
            (render, "nardy-render", ours),
            (computers, "nardy-computer", min(19, ours + 10)),
        ):
            (pid,) = pool.pids
            assert os.getpriority(os.PRIO_PROCESS, pid) == nice, "the computer yields the cores to the loop"
            environ = dict(
                item.split("=", 1) for item in Path(f"/proc/{pid}/environ").read_text().split("\0") if item
            )
            assert not set(SECRETS) & set(environ), f"{title} got {sorted(set(SECRETS) & set(environ))}"
            assert not any(value in Path(f"/proc/{pid}/environ").read_text() for value in SECRETS.values())
            assert environ["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
            assert environ["PYTHONHASHSEED"] == "0" and environ["PATH"] == os.environ["PATH"]
            assert Path(f"/proc/{pid}/comm").read_text().strip() == title
    finally:
        await asyncio.gather(render.stop(), computers.stop())


def test_a_worker_environment_keeps_only_what_starting_python_needs() -> None:
    env = worker_env(
        {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8", "LC_ALL": "C", "TMPDIR": "/t", "PYTHONPATH": "/x",
         "PYTHONHASHSEED": "1", "AWS_SECRET_ACCESS_KEY": "k", "TELEGRAM_API_URL": "u", **SECRETS},
        root="/app",
    )  # fmt: skip
    assert env == {
        "PATH": "/bin",
        "HOME": "/h",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TMPDIR": "/t",
        "PYTHONPATH": f"/app{os.pathsep}/x",
        "PYTHONHASHSEED": "1",
    }


def test_computer_processes_default_to_one_and_zero_means_a_thread() -> None:
    assert Config.from_env({"BOT_TOKEN": "1:x"}).computer_processes == 1
    assert Config.from_env({"BOT_TOKEN": "1:x", "NARDY_COMPUTER_PROCESSES": "0"}).computer_processes == 0
    assert Config.from_env({"BOT_TOKEN": "1:x", "NARDY_COMPUTER_PROCESSES": " 4 "}).computer_processes == 4
    for bad in ("many", "-1", "65", "1.5"):
        with pytest.raises(ConfigError, match=f"NARDY_COMPUTER_PROCESSES='{bad}'.*0..64"):
            Config.from_env({"BOT_TOKEN": "1:x", "NARDY_COMPUTER_PROCESSES": bad})


# ---------------------------------------------------------------------- a lying computer worker

GARBAGE = [
    b"not json at all",
    b'{"moves": [[13, 6]]}',  # not a list of pairs
    b"[[true, 6], [13, 1]]",  # not ints
    b"[[99, 7]]",  # no such point, no such die
    b"[]",  # a pass when there are moves to make
    b"[[13, 6], [13, 6], [13, 6], [13, 6], [13, 6]]",  # five moves
    b"the liar's engine broke",  # raised in the worker: an error answer, not garbage
]


if __name__ == "__main__":
    run_worker("nardy-liar", lying(GARBAGE))


def test_a_computer_thinking_for_long_delays_no_other_game(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    """The computer's worker is stopped in the middle of a decision (as a very long search would hold
    it): the press that asked for it waits, and meanwhile another game's presses are answered and drawn."""
    from testkit.fake_telegram import SimUser
    from testkit.fake_telegram.play import (
        board,
        data_of,
        press_and_wait,
        start_computer_game,
        start_group_game,
    )

    runner = BotRunner(
        tg.api_url, redis_url, dice, engine_computer(seed=3), computer_processes=1, computer_timeout=120
    )
    runner.start()
    try:
        alice, bob, carol = SimUser(tg, 41, "Alice"), SimUser(tg, 42, "Bob"), SimUser(tg, 43, "Carol")
        dice.push(5, 3)  # the group game: Alice opens with 5-3
        start_group_game(tg, -4100, alice, bob)
        dice.push(6, 1)  # Carol's game: she (white) opens 6-1 and plays it
        carol_board = start_computer_game(tg, carol, "short")
        assert runner.computers is not None
        (worker,) = runner.computers.pids
        os.kill(worker, signal.SIGSTOP)
        try:
            for _ in range(6):  # Carol's moves; then ✅ Done hands the turn to the (stopped) computer
                msg = tg.message(carol.id, carol_board.message_id)
                if data_of(msg, "d:") and not (data_of(msg, "m:") or data_of(msg, "p:")):
                    break
                move = (data_of(msg, "p:") or data_of(msg, "m:"))[0]
                press_and_wait(carol, msg, move)
            msg = tg.message(carol.id, carol_board.message_id)
            waiting = carol.press_data(msg, data_of(msg, "d:")[0], wait=False)
            mine = board(tg, -4100)
            moved = press_and_wait(
                alice, mine, (data_of(mine, "p:") or data_of(mine, "m:"))[0]
            )  # another game
            assert not moved.show_alert
            with pytest.raises(TimeoutError):  # Carol's press is still waiting for the computer
                tg.wait_answer(str(waiting), timeout=0.5)
        finally:
            os.kill(worker, signal.SIGCONT)
        answer = tg.wait_answer(str(waiting), timeout=30)
        assert not answer.show_alert, answer.text
        after = tg.wait_for(
            lambda: (
                "Computer (expert) rolled" in (tg.message(carol.id, carol_board.message_id).caption or "")
            ),
            30,
            "the computer's move",
        )
        assert after
        assert not runner.errors.records, runner.errors.messages()
    finally:
        runner.stop()
