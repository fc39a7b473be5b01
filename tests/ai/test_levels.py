"""choose_play for every level of both games: whole games to the end, legality, determinism."""

from __future__ import annotations

import random

import pytest

from engine import Dice, Game, Phase, Side, find_rules
from engine.ai import BENCH_LEVELS, LEVELS, choose_play, player_for


def _play_out(game_name: str, levels: tuple[str, str], seed: int, turns: int = 1000) -> Game:
    """A whole game (or its first `turns` turns), White at levels[0] and Black at levels[1], every play
    checked for legality."""
    dice = random.Random(seed)
    rng = random.Random(seed + 1)
    game = Game.new(game_name)
    while game.phase is Phase.OPENING:
        game = game.opening_roll(dice.randint(1, 6), dice.randint(1, 6))
    for _ in range(turns):
        if game.phase is Phase.OVER:
            return game
        if game.phase is Phase.ROLL:
            game = game.roll(dice.randint(1, 6), dice.randint(1, 6))
        assert game.dice is not None
        legal = game.legal_plays()
        level = levels[0] if game.turn is Side.WHITE else levels[1]
        play = choose_play(game.rules, game.position, game.dice, level, rng)
        assert play in legal, f"{level} chose {play}, not legal with {game.dice} in {game.position_id()}"
        game = game.play(play)
    if turns < 1000:
        return game
    raise AssertionError(f"game did not end: {game.position_id()}")


@pytest.mark.parametrize("game_name", ["short", "long"])
@pytest.mark.parametrize("level", LEVELS)
def test_level_plays_whole_games_with_legal_plays_only(game_name: str, level: str) -> None:
    for seed in (1, 2):
        game = _play_out(game_name, (level, level), seed)
        assert game.result is not None and game.result.points >= 1


@pytest.mark.parametrize("game_name", ["short", "long"])
def test_levels_against_each_other_finish(game_name: str) -> None:
    game = _play_out(game_name, ("beginner", "expert"), 3)
    assert game.result is not None


@pytest.mark.parametrize("game_name", ["short", "long"])
@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_gives_the_same_game(game_name: str, level: str) -> None:
    first = _play_out(game_name, (level, level), 7, turns=60)
    again = _play_out(game_name, (level, level), 7, turns=60)
    assert len(first.history) >= 30
    assert first.history == again.history


def test_noisy_level_depends_on_the_rng_only() -> None:
    rules = find_rules("short")
    position = rules.start_position()
    picks = [str(choose_play(rules, position, (4, 2), "beginner", random.Random(s))) for s in range(40)]
    again = [str(choose_play(rules, position, (4, 2), "beginner", random.Random(s))) for s in range(40)]
    assert picks == again
    assert len(set(picks)) > 1  # the beginner's noise does change its choice sometimes


@pytest.mark.parametrize("level", ["", "Expert", "grandmaster", "random", "greedy", "pubeval"])
def test_unknown_level_raises_value_error(level: str) -> None:
    rules = find_rules("short")
    with pytest.raises(ValueError, match="unknown level"):
        choose_play(rules, rules.start_position(), (3, 1), level, random.Random(1))


def test_levels_are_the_three_user_levels() -> None:
    assert LEVELS == ("beginner", "intermediate", "expert")
    assert not set(LEVELS) & set(BENCH_LEVELS)


@pytest.mark.parametrize(
    ("game_name", "level"), [("short", "random"), ("long", "random"), ("long", "greedy")]
)
def test_bench_opponents_play_legal_whole_games(game_name: str, level: str) -> None:
    rules = find_rules(game_name)
    player = player_for(game_name, level)
    rng = random.Random(4)
    position = rules.start_position()
    for _ in range(1000):
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
        play = player.choose(rules, position, dice, rng)
        assert play in rules.legal_plays(position, dice)
        if play.position.x[0] == 15:
            return
        position = play.position.swapped()
    raise AssertionError("game did not end")


def test_greedy_is_long_nardy_only() -> None:
    with pytest.raises(ValueError, match="long nardy only"):
        player_for("short", "greedy")


def test_dice_may_be_a_tuple_or_dice() -> None:
    rules = find_rules("long")
    position = rules.start_position()
    assert choose_play(rules, position, (6, 5), "expert", random.Random(1)) == choose_play(
        rules, position, Dice(6, 5), "expert", random.Random(1)
    )
