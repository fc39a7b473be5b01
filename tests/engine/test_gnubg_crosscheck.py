"""Short nardy cross-checked against an independent engine, gnubg-nn (a test-only dependency).

For every position the set of legal full-turn outcomes must equal gnubg's set of distinct move results
exactly, and our position id must be GNU Backgammon's Position ID. gnubg-nn's board is
[opponent, mover], two lists of 25 counts each from its own side (index 0 = own point 1, index 24 =
the bar; borne-off checkers are 15 minus the sum). A pass is an empty tuple for gnubg and one empty
play for us. The larger run (20,000+ positions) is `bench/crosscheck.py`.
"""

from __future__ import annotations

import random

import gnubg_nn
import pytest

from engine import Dice, Options, Position, find_rules
from testkit.gnubg_oracle import RULES, disagreement, gnubg_board, gnubg_outcomes, position_from_gnubg
from testkit.random_play import random_dice, random_play_positions, random_short_position

Corpus = list[tuple[Position, Dice]]


@pytest.fixture(scope="module")
def random_play() -> Corpus:
    """2,000 positions met in seeded random play, with the roll then drawn."""
    return list(random_play_positions(RULES, random.Random(20260101), 2000))


@pytest.fixture(scope="module")
def odd() -> Corpus:
    """600 random valid positions, bar and bear-off heavy."""
    rng = random.Random(20260102)
    return [(random_short_position(rng), random_dice(rng)) for _ in range(600)]


# Hand-made odd cases: (name, X counts, O counts, dice).
HAND_MADE = [
    ("dance on a closed board", {25: 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3}, (6, 6)),
    ("two on the bar, one entry point open", {25: 2, 13: 13}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 13: 5}, (1, 6)),
    ("enter with a hit", {25: 1, 13: 14}, {5: 1, 13: 14}, (5, 2)),
    ("bear off with a larger die", {3: 2, 2: 3, 0: 10}, {24: 15}, (6, 5)),
    (
        "larger die cannot bear off below a blocked higher checker",
        {6: 1, 2: 1, 0: 13},
        {24: 2, 13: 13},
        (5, 4),
    ),
    ("last checker off needs both dice", {2: 1, 0: 14}, {24: 1, 1: 1, 13: 13}, (1, 3)),
    ("hit while bearing in", {6: 2, 5: 3, 0: 10}, {21: 1, 13: 14}, (1, 1)),
    ("doubles bear off all", {1: 4, 0: 11}, {13: 15}, (1, 1)),
    ("only the smaller die plays", {24: 1, 0: 14}, {7: 2, 8: 2, 13: 11}, (6, 1)),
]


def test_corpus_reaches_bars_hits_and_bear_offs(random_play: Corpus, odd: Corpus) -> None:
    positions = [p for p, _ in random_play + odd]
    assert sum(p.x[25] > 0 for p in positions) > 100
    assert sum(p.x[0] > 0 for p in positions) > 100
    assert (
        sum(any(m.hit for m in play.moves) for p, d in random_play[:300] for play in RULES.legal_plays(p, d))
        > 100
    )
    assert len(set(positions)) > 2000


def test_legal_outcomes_match_gnubg_on_2000_positions_from_random_play(random_play: Corpus) -> None:
    problems = [text for p, d in random_play if (text := disagreement(p, d)) is not None]
    assert not problems, f"{len(problems)} disagreements, first: {problems[:3]}"


def test_legal_outcomes_match_gnubg_on_random_valid_positions(odd: Corpus) -> None:
    problems = [text for p, d in odd if (text := disagreement(p, d)) is not None]
    assert not problems, f"{len(problems)} disagreements, first: {problems[:3]}"


@pytest.mark.parametrize("name, x, o, dice", HAND_MADE, ids=[case[0] for case in HAND_MADE])
def test_legal_outcomes_match_gnubg_on_hand_made_positions(
    name: str, x: dict[int, int], o: dict[int, int], dice: tuple[int, int]
) -> None:
    position = Position.from_counts(x, o)
    assert disagreement(position, Dice(*dice)) is None


def test_every_roll_from_the_start_matches_gnubg() -> None:
    start = RULES.start_position()
    problems = [
        text
        for a in range(1, 7)
        for b in range(1, 7)
        if (text := disagreement(start, Dice(a, b))) is not None
    ]
    assert not problems


def test_full_pip_rule_keeps_gnubgs_outcomes_with_the_lowest_pip_count(
    random_play: Corpus, odd: Corpus
) -> None:
    """Option FULL_PIP_RULE (RULES.md §2.3 step 4) on top of gnubg's outcomes."""
    rules = find_rules("short", Options(full_pip_rule=True))
    for position, dice in random_play[:500] + odd:
        theirs = gnubg_outcomes(position, dice)
        lowest = min(p.pips()[0] for p in theirs)
        expected = {p for p in theirs if p.pips()[0] == lowest}
        assert {play.position for play in rules.legal_plays(position, dice)} == expected, position.describe()


def test_pass_is_one_empty_play_where_gnubg_has_no_moves() -> None:
    position = Position.from_counts({25: 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3})
    assert gnubg_nn.moves(gnubg_board(position), 6, 6) == ()
    plays = RULES.legal_plays(position, Dice(6, 6))
    assert [(p.moves, p.position) for p in plays] == [((), position)]


def test_position_id_is_gnubgs_and_round_trips(random_play: Corpus, odd: Corpus) -> None:
    for position, _ in random_play + odd:
        text = RULES.position_id(position)
        assert text == gnubg_nn.position_id(gnubg_board(position)), position.describe()
        assert RULES.position_from_id(text) == position
        assert position_from_gnubg(gnubg_nn.board_from_position_id(text)) == position


def test_result_positions_have_gnubgs_ids(random_play: Corpus) -> None:
    for position, dice in random_play[:500]:
        for play in RULES.legal_plays(position, dice):
            after = play.position.swapped()
            assert RULES.position_id(after) == gnubg_nn.position_id(gnubg_board(after))
