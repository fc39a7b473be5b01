"""RULES.md tables S13, S14, L11, L12 and §6.5: scoring, opening roll, resignation, end of game, head rule."""

from __future__ import annotations

import random
from typing import ClassVar

import pytest

from engine import (
    ALL_ROLLS,
    Dice,
    Game,
    IllegalPlayError,
    InvalidPositionError,
    Options,
    Phase,
    Position,
    ShortNardy,
    Side,
    WinKind,
    WrongPhaseError,
    find_rules,
)
from testkit.random_play import random_play_positions, random_short_position

WINNER_DONE = {0: 15}


@pytest.mark.parametrize(
    ("loser", "kind"),
    [
        ({6: 10, 0: 5}, WinKind.OIN),  # S13a
        ({8: 3, 6: 12}, WinKind.MARS),  # S13b
        ({25: 1, 6: 14}, WinKind.KOKS),  # S13c
        ({20: 1, 6: 14}, WinKind.KOKS),  # S13d
        ({25: 1, 6: 12, 0: 2}, WinKind.OIN),  # S13e
        ({18: 1, 6: 14}, WinKind.MARS),  # S13f
    ],
)
def test_short_scoring_follows_s13(loser: dict[int, int], kind: WinKind) -> None:
    counts = Position.from_counts(WINNER_DONE, loser).o
    assert find_rules("short").score_loser(counts) is kind
    assert kind.points == {WinKind.OIN: 1, WinKind.MARS: 2, WinKind.KOKS: 3}[kind]


@pytest.mark.parametrize(
    ("loser", "default", "home_mars", "koks"),
    [
        ({3: 14, 0: 1}, WinKind.OIN, WinKind.OIN, WinKind.OIN),  # L11a
        ({14: 2, 5: 13}, WinKind.MARS, WinKind.MARS, WinKind.MARS),  # L11b
        ({6: 5, 3: 5, 1: 5}, WinKind.MARS, WinKind.HOME_MARS, WinKind.MARS),  # L11c
        ({24: 1, 9: 4, 2: 10}, WinKind.MARS, WinKind.MARS, WinKind.KOKS),  # L11d
    ],
)
def test_long_scoring_follows_l11(
    loser: dict[int, int], default: WinKind, home_mars: WinKind, koks: WinKind
) -> None:
    counts = Position.from_counts(WINNER_DONE, loser).o
    assert find_rules("long").score_loser(counts) is default
    assert find_rules("long", Options(home_mars_3=True)).score_loser(counts) is home_mars
    assert find_rules("long", Options(koks_3=True)).score_loser(counts) is koks
    assert WinKind.HOME_MARS.points == WinKind.KOKS.points == 3


def test_long_loser_with_checker_off_and_outside_home_is_invalid_l11e() -> None:
    position = Position.from_counts({6: 1, 0: 14}, {24: 1, 1: 13, 0: 1})
    with pytest.raises(InvalidPositionError, match="borne off"):
        find_rules("long").legal_plays(position, (6, 5))


def test_opening_tie_is_rerolled_s14a() -> None:
    game = Game.new("short").opening_roll(5, 5)
    assert game.phase is Phase.OPENING
    assert game.opening_rolls == ((5, 5),)


def test_short_opening_dice_are_the_first_roll_s14b() -> None:
    game = Game.new("short").opening_roll(3, 6)
    assert (game.phase, game.turn, game.dice) == (Phase.MOVE, Side.BLACK, Dice(6, 3))
    fresh = Game.new("short", Options(opening_dice_are_first_roll=False)).opening_roll(3, 6)
    assert (fresh.phase, fresh.turn, fresh.dice) == (Phase.ROLL, Side.BLACK, None)


def test_black_opening_six_three_has_fourteen_outcomes_s14c() -> None:
    game = Game.new("short").opening_roll(3, 6)
    assert len(game.legal_plays()) == 14
    for text in ("24/15", "24/18 13/10", "13/7 8/5", "13/4", "24/18 24/21"):
        assert game.play(text).last_play is not None


def test_resign_before_any_move_scores_by_position_s14d_l12e() -> None:
    short = Game.new("short").opening_roll(2, 1)
    assert short.resign(Side.WHITE).result == short.resign(Side.WHITE).result
    result = short.resign(Side.WHITE).result
    assert result is not None and (result.winner, result.points, result.kind) == (Side.BLACK, 3, WinKind.KOKS)
    single = Game.new("short", Options(resign_scoring="single")).opening_roll(2, 1).resign(Side.WHITE).result
    assert single is not None and single.points == 1
    long_result = Game.new("long").opening_roll(2, 1).resign(Side.BLACK).result
    assert long_result is not None and (long_result.winner, long_result.points) == (Side.WHITE, 2)


def test_resign_with_a_checker_off_scores_one_s14e() -> None:
    rules = find_rules("short")
    position = Position.from_counts({6: 14, 0: 1}, {6: 15})
    game = Game(rules, Phase.ROLL, Side.WHITE, position)
    result = game.resign(Side.WHITE).result
    assert result is not None and (result.winner, result.points, result.kind) == (Side.BLACK, 1, WinKind.OIN)


def test_resign_during_the_opponents_turn_scores_the_resigner() -> None:
    game = Game.new("short").opening_roll(6, 1)  # White to move
    result = game.resign(Side.BLACK).result
    assert result is not None and result.winner is Side.WHITE and result.points == 3


def test_bearing_off_the_last_checker_ends_the_game_l12a() -> None:
    rules = find_rules("long")
    position = Position.from_counts({6: 1, 0: 14}, {3: 15})
    plays = rules.legal_plays(position, (6, 5))
    assert [str(p) for p in plays] in (["6/1 1/off"], ["6/1 1/off"])
    assert plays[0].position.x[0] == 15
    game = Game(rules, Phase.MOVE, Side.WHITE, position, dice=Dice(6, 5)).play(plays[0])
    assert game.phase is Phase.OVER and game.result is not None
    assert (game.result.winner, game.result.points, game.result.kind) == (Side.WHITE, 2, WinKind.MARS)


def test_no_draw_and_no_last_roll_l12b() -> None:
    rules = find_rules("long")
    position = Position.from_counts({1: 1, 0: 14}, {1: 1, 0: 14})
    game = Game(rules, Phase.MOVE, Side.WHITE, position, dice=Dice(1, 2)).play("1/off")
    assert game.phase is Phase.OVER and game.result is not None
    assert (game.result.winner, game.result.points) == (Side.WHITE, 1)
    with pytest.raises(WrongPhaseError):
        game.roll(6, 6)


def test_long_opening_winner_rolls_fresh_dice_l12c() -> None:
    game = Game.new("long").opening_roll(2, 4)
    assert (game.phase, game.turn, game.dice) == (Phase.ROLL, Side.BLACK, None)
    game = game.roll(6, 6)
    assert [str(p) for p in game.legal_plays()] == ["24/18 24/18"]


def test_long_next_game_is_started_by_the_winner_l12d() -> None:
    game = Game.new("long").opening_roll(4, 2).resign(Side.BLACK)
    nxt = game.rematch()
    assert (nxt.phase, nxt.turn) == (Phase.ROLL, Side.WHITE)
    assert nxt.position.x_first_turn and nxt.position.o_first_turn
    short_next = Game.new("short").opening_roll(4, 2).resign(Side.BLACK).rematch()
    assert short_next.phase is Phase.OPENING
    black_next = (
        Game.new("long", Options(next_game_starter="previous_black")).opening_roll(4, 2).resign(Side.BLACK)
    )
    assert black_next.rematch().turn is Side.BLACK


def test_first_player_gets_two_head_checkers_only_on_3_3_4_4_6_6() -> None:
    rules = find_rules("long")
    start = rules.start_position()
    two_from_head = set()
    for dice in ALL_ROLLS:
        for play in rules.legal_plays(start, dice):
            if sum(1 for m in play.moves if m.src == 24) == 2:
                two_from_head.add(str(dice))
    assert two_from_head == {"3-3", "4-4", "6-6"}


def test_only_legal_plays_are_accepted() -> None:
    game = Game.new("short").opening_roll(6, 1)
    with pytest.raises(IllegalPlayError, match="4HPwATDgc/ABMA"):
        game.play("13/12")
    other = find_rules("short").legal_plays(Position.from_counts({6: 15}, {6: 15}), (6, 1))[0]
    with pytest.raises(IllegalPlayError):
        game.play(other)


def test_a_pass_is_one_empty_play() -> None:
    rules = find_rules("short")
    position = Position.from_counts({25: 1, 13: 2, 6: 12}, {6: 2, 4: 2, 1: 11})
    plays = rules.legal_plays(position, (6, 4))
    assert len(plays) == 1 and plays[0].is_pass and str(plays[0]) == "pass"
    game = Game(rules, Phase.MOVE, Side.WHITE, position, dice=Dice(6, 4)).play(plays[0])
    assert game.turn is Side.BLACK and game.history[-1].play == "pass"


def test_a_finished_long_game_with_the_losers_home_full_loads_back() -> None:
    """Found by the property tests: X all off, O holding its whole home is not an illegal six-block."""
    import json

    rules = find_rules("long")
    position = Position.from_counts({1: 1, 0: 14}, {6: 1, 5: 2, 4: 1, 3: 5, 2: 1, 1: 4, 15: 1})
    game = Game(rules, Phase.MOVE, Side.WHITE, position, dice=Dice(1, 2)).play("1/off")
    assert game.phase is Phase.OVER
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game


def test_the_full_pip_rule_belongs_to_short_nardys_class_not_to_its_name() -> None:
    """A variant built on ShortNardy under another name keeps short nardy's full pip rule; long nardy, whose
    class has no such rule, plays the same with the option set or not."""

    class RenamedShort(ShortNardy):
        name: ClassVar[str] = "short-renamed"

    pip_rule = Options(full_pip_rule=True)
    short, renamed = find_rules("short", pip_rule), RenamedShort(pip_rule)
    long_plain, long_pip_rule = find_rules("long"), find_rules("long", pip_rule)
    narrowed = 0
    rng = random.Random(32)
    for _ in range(1500):  # a third of them bearing off, where the rule may have plays to choose between
        position, dice = random_short_position(rng), Dice(rng.randint(1, 6), rng.randint(1, 6))
        expected = {play.position for play in short.legal_plays(position, dice)}
        assert {play.position for play in renamed.legal_plays(position, dice)} == expected, (
            position.describe()
        )
        narrowed += len(expected) < len(find_rules("short").legal_plays(position, dice))
    assert narrowed >= 5  # the rule did choose in some of these positions
    for position, dice in random_play_positions(long_plain, random.Random(32), 300):
        assert long_pip_rule.legal_plays(position, dice) == long_plain.legal_plays(position, dice)
