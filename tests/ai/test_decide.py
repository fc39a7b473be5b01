"""SearchPlayer.decide: the one decision procedure of the computer's players and of the analysis's judge,
with the scores behind it (pinned with stand-in evaluators whose scores are chosen by hand)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pytest

from engine import Dice, Position, find_rules
from engine.ai.player import WIN_VALUE, Decision, LookaheadEvaluator, OverBudget, SearchPlayer
from engine.dice import ALL_ROLLS
from engine.rules import Rules

SHORT = find_rules("short")
START = SHORT.start_position()
OPENING = SHORT.legal_plays(START, Dice(3, 1))  # 16 plays


@dataclass(frozen=True)
class Scores:
    """A stand-in evaluator: the positions it is asked about, in order, get `scores` in order; every
    call is noted in `asked`."""

    scores: tuple[float, ...]
    asked: list[tuple[Position, ...]] = field(default_factory=list, compare=False)

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        self.asked.append(tuple(after))
        return list(self.scores[: len(after)])


def _screen(*head: float) -> Scores:
    """Screen scores: `head` for the first plays of OPENING, then 0.0 for the rest."""
    return Scores(head + (0.0,) * (len(OPENING) - len(head)))


def test_deep_candidates_are_the_best_screened_within_the_margin_and_the_first_best_deep_one_wins() -> None:
    screen = _screen(0.5, 0.9, 0.9, 0.85, 0.2, 0.79)
    deep = Scores((0.3, 0.4, 0.4))
    player = SearchPlayer(screen, deep=deep, candidates=4, margin=0.1)
    decision = player.decide(SHORT, START, OPENING, random.Random(1))
    # Ranked by (-score, index): plays 1, 2, 3, 0; within 0.1 of 0.9: 1, 2 and 3; deep ties go to the first.
    assert deep.asked == [tuple(OPENING[i].position for i in (1, 2, 3))]
    assert decision == Decision(2, screen.scores, {1: 0.3, 2: 0.4, 3: 0.4})
    assert decision.score == 0.4
    assert player.choose(SHORT, START, Dice(3, 1), random.Random(1)) == OPENING[2]


def test_a_single_candidate_within_the_margin_is_played_without_a_deep_look() -> None:
    deep = Scores((1.0,) * 4)
    player = SearchPlayer(_screen(0.1, 0.5, 0.3), deep=deep, candidates=4, margin=0.1)
    decision = player.decide(SHORT, START, OPENING, random.Random(1))
    assert (decision.chosen, dict(decision.deep), deep.asked) == (1, {}, [])
    assert decision.score == 0.5


def test_without_a_deep_evaluator_the_first_best_screened_play_is_chosen() -> None:
    decision = SearchPlayer(_screen(0.1, 0.5, 0.5)).decide(SHORT, START, OPENING, random.Random(1))
    assert (decision.chosen, dict(decision.deep)) == (1, {})


def test_a_won_game_is_taken_without_a_deep_look() -> None:
    position = Position.from_counts({2: 1, 1: 1}, {20: 2, 13: 5, 8: 3, 6: 5})
    plays = SHORT.legal_plays(position, Dice(2, 1))
    deep = Scores((5.0,) * len(plays))
    decision = SearchPlayer(Scores((0.0,) * len(plays)), deep=deep).decide(
        SHORT, position, plays, random.Random(1)
    )
    assert plays[decision.chosen].position.x[0] == 15 and decision.score >= WIN_VALUE
    assert (dict(decision.deep), deep.asked) == ({}, [])


def test_a_single_play_is_scored_but_the_random_source_is_not_drawn_from() -> None:
    closed = Position.from_counts({25: 1, 13: 14}, {8: 3, 6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2})
    plays = SHORT.legal_plays(closed, Dice(1, 1))
    assert [str(play) for play in plays] == ["pass"]
    rng = random.Random(5)
    state = rng.getstate()
    decision = SearchPlayer(Scores((0.25,)), noise=1.0).decide(SHORT, closed, plays, rng)
    assert decision == Decision(0, (0.25,)) and rng.getstate() == state


def test_noise_blurs_the_screen_scores_the_decision_reports() -> None:
    player = SearchPlayer(_screen(0.5), noise=0.3)
    decision = player.decide(SHORT, START, OPENING, random.Random(9))
    assert decision == player.decide(SHORT, START, OPENING, random.Random(9))
    assert decision.screen != _screen(0.5).scores
    assert decision.chosen == max(range(len(OPENING)), key=lambda i: (decision.screen[i], -i))


def test_a_decision_refuses_a_choice_or_deep_scores_outside_its_plays() -> None:
    with pytest.raises(ValueError, match="chosen play 3 is not one of 2 plays"):
        Decision(3, (0.0, 1.0))
    with pytest.raises(ValueError, match=r"deep scores for plays \[0, 5\] of 2"):
        Decision(0, (0.0, 1.0), {0: 0.0, 5: 1.0})


LONG = find_rules("long")


def _long_middle() -> Position:
    """A long nardy position a few turns in (each side's first legal play of fixed rolls)."""
    position = LONG.start_position()
    for roll in (Dice(6, 5), Dice(4, 2), Dice(5, 3), Dice(6, 1), Dice(4, 3), Dice(2, 1)):
        position = LONG.legal_plays(position, roll)[0].position.swapped()
    return position


LONG_START = _long_middle()
LONG_OPENING = LONG.legal_plays(LONG_START, Dice(5, 2))


@dataclass(frozen=True)
class Pips:
    """A stand-in antisymmetric evaluator: the mover's pip lead (the opponent's pips minus its own)."""

    def values(self, rules: Rules, before: Position, after: Sequence[Position]) -> list[float]:
        return [float(p.pips()[1] - p.pips()[0]) for p in after]


def _replies(after: Position) -> int:
    return sum(len(LONG.legal_outcomes(after.swapped(), d)) for d in ALL_ROLLS)


def test_a_lookahead_within_its_budget_gives_what_an_unbounded_one_gives() -> None:
    positions = [play.position for play in LONG_OPENING[:2]]
    needed = sum(_replies(p) for p in positions)
    bounded = LookaheadEvaluator(Pips(), budget=needed)
    assert bounded.values(LONG, LONG_START, positions) == LookaheadEvaluator(Pips()).values(
        LONG, LONG_START, positions
    )
    assert bounded.unbounded() == LookaheadEvaluator(Pips())


def test_a_lookahead_past_its_budget_refuses_and_the_player_keeps_its_first_impression() -> None:
    positions = [play.position for play in LONG_OPENING[:2]]
    needed = sum(_replies(p) for p in positions)
    with pytest.raises(OverBudget):
        LookaheadEvaluator(Pips(), budget=needed - 1).values(LONG, LONG_START, positions)
    screen = Scores((0.5, 0.49) + (0.0,) * (len(LONG_OPENING) - 2))
    deep = LookaheadEvaluator(Pips(), budget=needed - 1)
    decision = SearchPlayer(screen, deep=deep, candidates=2).decide(
        LONG, LONG_START, LONG_OPENING, random.Random(1)
    )
    assert (decision.chosen, dict(decision.deep)) == (0, {})
    generous = SearchPlayer(screen, deep=replace(deep, budget=needed), candidates=2)
    assert set(generous.decide(LONG, LONG_START, LONG_OPENING, random.Random(1)).deep) == {0, 1}
