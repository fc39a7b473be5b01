"""The search's fast path (Rules.legal_outcomes: positions only, no moves, no validation) equals
legal_plays' positions, in the same order, on many positions of both games and every roll."""

from __future__ import annotations

import random

import pytest

from engine import ALL_ROLLS, LongNardy, Options, find_rules
from testkit.random_play import random_long_position, random_play_positions


@pytest.mark.parametrize("game", ["short", "long"])
def test_legal_outcomes_equal_the_positions_of_legal_plays_on_played_positions(game: str) -> None:
    rules = find_rules(game)
    checked = 0
    for position, _ in random_play_positions(rules, random.Random(7), 300):
        for dice in ALL_ROLLS:
            assert rules.legal_outcomes(position, dice) == [
                p.position for p in rules.legal_plays(position, dice)
            ]
            checked += 1
    assert checked == 300 * 21


@pytest.mark.parametrize(
    "options",
    [
        Options(),
        Options(block_timing="end_of_turn"),
        Options(block_rule="none"),
        Options(head_exception="fixed_663"),
    ],
)
def test_legal_outcomes_equal_legal_plays_on_random_long_positions_under_each_house_rule(
    options: Options,
) -> None:
    rules = find_rules("long", options)
    rng = random.Random(11)
    for _ in range(150):
        position = random_long_position(rng, options.block_rule)
        for dice in ALL_ROLLS:
            assert rules.legal_outcomes(position, dice) == [
                p.position for p in rules.legal_plays(position, dice)
            ]


def test_doubles_take_the_fast_generator_unless_the_block_rule_refuses_a_move_and_stay_exact() -> None:
    """Long nardy's doubles under the per-step block rule: the search tries the fast generator and falls
    back to the full search when the block rule refused a move on its way; both branches are met here,
    and both give legal_plays' outcomes."""
    rules = LongNardy(Options())
    full: list[int] = []
    outcomes = rules._outcomes

    def counted(*args: object) -> object:
        full.append(1)
        return outcomes(*args)  # type: ignore[arg-type]

    object.__setattr__(rules, "_outcomes", counted)
    rng = random.Random(5)
    doubles = [d for d in ALL_ROLLS if d.is_double]
    checked = 0
    for _ in range(400):
        position = random_long_position(rng)
        if position.x_first_turn:
            continue
        for dice in doubles:
            expected = [p.position for p in LongNardy(Options()).legal_plays(position, dice)]
            assert rules.legal_outcomes(position, dice) == expected
            checked += 1
    assert checked > 1000
    assert 0 < len(full) < checked / 2, (len(full), checked)  # mostly the fast generator, sometimes not
