"""engine.ai.cube.cube_decision: who it answers for, the phases and cubes it refuses, every level's
answers, determinism, and an import that does no work."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Side, find_rules
from engine.ai.cube import CubeView, cube_decision
from engine.cube import Cube
from engine.errors import CubeError, WrongPhaseError
from engine.game import Game, Phase
from engine.position import Position

ROOT = Path(__file__).resolve().parents[2]
LEVELS = ("beginner", "intermediate", "expert")
START = {24: 2, 13: 5, 8: 3, 6: 5}
# The roller bears off with 34 of 36 rolls; the opponent is off next turn for sure: double, pass.
LAST_ROLL_CASH = Position.from_counts({1: 1, 3: 1}, {1: 1})
# A 100-125 pip race: double, pass.
RACE_PASS = Position.from_counts(
    {1: 1, 2: 1, 3: 2, 4: 1, 5: 2, 6: 1, 8: 2, 9: 1, 11: 2, 12: 2},
    {4: 1, 5: 3, 6: 1, 7: 1, 8: 2, 10: 3, 11: 1, 12: 3},
)


def game_at(position: Position, cube: Cube | None = None, turn: Side = Side.WHITE) -> Game:
    return Game(find_rules("short"), Phase.ROLL, turn, position, cube=Cube() if cube is None else cube)


def opening() -> Game:
    return game_at(Position.from_counts(START, START))


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_answers_double_or_roll_and_take_or_pass(level: str) -> None:
    for position in (LAST_ROLL_CASH, RACE_PASS, opening().position):
        game = game_at(position)
        assert cube_decision(game, level, random.Random(1)) in ("double", "roll")
        assert cube_decision(game.double(), level, random.Random(1)) in ("take", "pass")


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_doubles_a_cash_and_the_opponent_passes_it(level: str) -> None:
    for position in (LAST_ROLL_CASH, RACE_PASS):
        game = game_at(position)
        assert cube_decision(game, level, random.Random(2)) == "double"
        assert cube_decision(game.double(), level, random.Random(2)) == "pass"


@pytest.mark.parametrize("level", LEVELS)
def test_no_level_doubles_the_opening_position_and_each_takes_there(level: str) -> None:
    game = opening()
    assert cube_decision(game, level, random.Random(3)) == "roll"
    assert cube_decision(game.double(), level, random.Random(3)) == "take"


def test_the_take_is_decided_for_the_side_offered_the_double() -> None:
    """Phase.CUBE: game.turn is the doubler, the answer is game.deciding's: a take with 25/36 to lose."""
    game = game_at(Position.from_counts({2: 1, 3: 1}, {1: 1}), turn=Side.BLACK).double()
    assert game.phase is Phase.CUBE and game.deciding is Side.WHITE
    assert cube_decision(game, "expert", random.Random(0)) == "take"


def test_the_redouble_is_offered_by_the_owner_of_the_cube() -> None:
    game = game_at(LAST_ROLL_CASH, Cube(value=2, owner=Side.WHITE))
    assert CubeView.of(game).owner == "player"
    assert cube_decision(game, "expert", random.Random(0)) == "double"


def test_match_away_scores_are_those_of_the_side_on_turn() -> None:
    cube = Cube(needs=(1, 3))  # white is 1-away, black (on turn, the trailer) 3-away: post-Crawford
    view = CubeView.of(game_at(opening().position, cube, turn=Side.BLACK))
    assert (view.away1, view.away2, view.crawford) == (3, 1, False)
    game = game_at(opening().position, cube, turn=Side.BLACK)
    assert cube_decision(game, "expert", random.Random(0)) == "double"  # the trailer doubles at once
    assert cube_decision(game.double(), "expert", random.Random(0)) == "take"  # odd away: a free take


def test_no_decision_when_the_side_on_turn_may_not_double() -> None:
    cases = [
        game_at(LAST_ROLL_CASH, Cube(value=2, owner=Side.BLACK)),  # the opponent's cube
        game_at(LAST_ROLL_CASH, Cube(crawford=True, needs=(1, 3))),  # the Crawford game
        game_at(LAST_ROLL_CASH, Cube(needs=(1, 3))),  # 1-away: a single game wins the match
    ]
    for game in cases:
        with pytest.raises(CubeError, match="may not double"):
            cube_decision(game, "expert", random.Random(0))
    with pytest.raises(CubeError, match="no cube"):
        cube_decision(
            Game(find_rules("short"), Phase.ROLL, Side.WHITE, LAST_ROLL_CASH), "expert", random.Random(0)
        )


def test_no_decision_outside_the_roll_and_cube_phases() -> None:
    game = Game.new("short", cube=Cube())
    with pytest.raises(WrongPhaseError, match="phase opening"):
        cube_decision(game, "expert", random.Random(0))
    moving = game.opening_roll(3, 1)
    assert moving.phase is Phase.MOVE
    with pytest.raises(WrongPhaseError, match="phase move"):
        cube_decision(moving, "beginner", random.Random(0))


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown level 'grandmaster'"):
        cube_decision(opening(), "grandmaster", random.Random(0))


def test_decisions_are_the_same_for_the_same_rng_seed() -> None:
    borderline = game_at(Position.from_counts({1: 1, 5: 1}, {1: 1}))  # 23/36: the beginner's noise matters
    for level in LEVELS:
        first = [cube_decision(borderline, level, random.Random(seed)) for seed in range(20)]
        again = [cube_decision(borderline, level, random.Random(seed)) for seed in range(20)]
        assert first == again


def test_importing_the_cube_module_loads_no_network() -> None:
    code = "import sys, engine.ai.cube; assert 'bgbot_cpp' not in sys.modules, 'bgbot_cpp imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)
