"""The computer's cube decisions in its worker processes (bot/workers/computer.py): the same answer as in a
thread, and a worker's bad answer refused with the decision then made in a thread.

Run as `python -m tests.bot.test_computer_cube`, this file is a computer worker that answers cube
actions the game does not wait for, or garbage."""

from __future__ import annotations

import logging
import os
import signal

import pytest

from bot.workers.computer import BadAnswer, ComputerProcesses, CubeDecision, accepted_cube_action, cube_answer
from bot.workers.worker_pool import run_worker
from engine import Game, Phase, Position, Side, find_rules
from engine.cube import Cube
from testkit.liar import lying

LAST_ROLL = Position.from_counts({2: 1, 3: 1}, {1: 1})  # 25/36 to bear off: double, take
START = {24: 2, 13: 5, 8: 3, 6: 5}


def games() -> list[Game]:
    """Cube decisions of both kinds, for both colours, money and match."""
    rules = find_rules("short")
    opening = Position.from_counts(START, START)
    rolls = [
        Game(rules, Phase.ROLL, Side.WHITE, LAST_ROLL, cube=Cube()),
        Game(rules, Phase.ROLL, Side.BLACK, LAST_ROLL, cube=Cube(value=2, owner=Side.BLACK)),
        Game(rules, Phase.ROLL, Side.BLACK, opening, cube=Cube(needs=(1, 3))),
        Game(rules, Phase.ROLL, Side.WHITE, opening, cube=Cube()),
    ]
    return rolls + [g.double() for g in rolls]


def in_thread(game: Game, level: str, seed: int) -> str:
    return CubeDecision.of(game, level, seed).choose()


async def test_a_cube_action_made_in_a_computer_process_is_the_one_a_thread_would_make() -> None:
    computers = ComputerProcesses(1)
    await computers.start()
    try:
        for i, game in enumerate(games()):
            for level in ("beginner", "intermediate", "expert"):
                action = await computers.cube_action(game, level, seed=10 + i)
                assert action == in_thread(game, level, 10 + i), (i, level)
                assert action in (("double", "roll") if game.phase is Phase.ROLL else ("take", "pass"))
        assert (computers.from_workers, computers.in_thread) == (3 * len(games()), 0)
    finally:
        await computers.stop()


async def test_a_killed_computer_process_leaves_the_cube_action_to_a_thread() -> None:
    computers = ComputerProcesses(1)
    await computers.start()
    try:
        (first,) = computers.pids
        os.kill(first, signal.SIGKILL)
        game = games()[0]
        assert await computers.cube_action(game, "expert", seed=1) == "double"
        assert (computers.from_workers, computers.in_thread) == (0, 1)
    finally:
        await computers.stop()


async def test_a_computer_process_giving_a_bad_cube_answer_is_refused_and_the_action_still_made(
    caplog: pytest.LogCaptureFixture,
) -> None:
    liar = ComputerProcesses(1, module="tests.bot.test_computer_cube")
    await liar.start()
    started = liar.pids
    game = games()[0]  # Phase.ROLL: "take" is not an answer here
    try:
        with caplog.at_level(logging.ERROR, logger="bot.workers.computer"):
            for seed in range(len(GARBAGE)):
                assert await liar.cube_action(game, "expert", seed) == in_thread(game, "expert", seed)
        assert liar.pids == started
        assert (liar.from_workers, liar.in_thread) == (0, len(GARBAGE))
    finally:
        await liar.stop()
    errors = [r.getMessage() for r in caplog.records if r.name == "bot.workers.computer"]
    assert sum("cube answer was refused" in e for e in errors) == len(GARBAGE) - 1, errors
    assert sum("could not decide a cube action" in e for e in errors) == 1, errors


def test_a_cube_answer_is_taken_only_if_the_game_waits_for_it() -> None:
    roll, offered = games()[0], games()[4]
    assert accepted_cube_action(roll, cube_answer("double")) == "double"
    assert accepted_cube_action(offered, cube_answer("pass")) == "pass"
    for game, bad in [(roll, b'"take"'), (offered, b'"roll"'), (roll, b"double"), (offered, b'["take"]')]:
        with pytest.raises(BadAnswer, match="cube answer"):
            accepted_cube_action(game, bad)


def test_no_cube_decision_is_asked_where_there_is_none() -> None:
    game = Game.new("short", starter=Side.WHITE)  # no cube
    with pytest.raises(ValueError, match="cube action in phase ROLL"):
        CubeDecision.of(game, "expert", 1)
    moving = Game.new("short", starter=Side.WHITE, cube=Cube()).roll(3, 1)
    with pytest.raises(ValueError, match="phase MOVE"):
        CubeDecision.of(moving, "expert", 1)


# ---------------------------------------------------------------------- a lying computer worker

GARBAGE = [
    b'"take"',  # a take when the game waits for double or roll
    b"double",  # not JSON
    b'"redouble"',  # no such action
    b"null",
    b"the liar's engine broke",  # raised in the worker: an error answer, not garbage
]


if __name__ == "__main__":
    run_worker("nardy-cube-liar", lying(GARBAGE))
