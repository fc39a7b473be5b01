"""What the players choose in positions with a known right answer."""

from __future__ import annotations

import random

import pytest

from engine import Position, find_rules
from engine.ai import choose_play
from engine.ai.long_eval import FEATURES, features, score, shipped_weights

SHORT = find_rules("short")
LONG = find_rules("long")


@pytest.mark.parametrize(
    ("dice", "best"),
    [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7"), ((6, 5), "24/18 18/13")],
)
def test_short_expert_plays_the_book_opening_moves(dice: tuple[int, int], best: str) -> None:
    play = choose_play(SHORT, SHORT.start_position(), dice, "expert", random.Random(1))
    assert play == SHORT.parse_play(SHORT.start_position(), dice, best)


def test_short_expert_bears_off_the_last_checkers_to_win() -> None:
    position = Position.from_counts({2: 1, 1: 1}, {20: 2, 13: 5, 8: 3, 6: 5})
    play = choose_play(SHORT, position, (2, 1), "expert", random.Random(1))
    assert play.position.x[0] == 15


def test_short_expert_hits_the_last_blot_when_it_is_losing_the_race() -> None:
    # X is far behind in the race; O's last checker sits alone on X's 5-point: hitting is the only chance.
    position = Position.from_counts({13: 5, 8: 5, 6: 5}, {20: 1, 6: 4, 5: 4, 4: 3})
    play = choose_play(SHORT, position, (3, 1), "expert", random.Random(1))
    assert any(move.hit for move in play.moves)


def test_long_score_is_antisymmetric() -> None:
    weights = shipped_weights("expert")
    rng = random.Random(2)
    position = LONG.start_position()
    for _ in range(60):
        plays = LONG.legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        play = plays[rng.randrange(len(plays))]
        if play.position.x[0] == 15:
            break
        assert score(weights, play.position) == pytest.approx(-score(weights, play.position.swapped()))
        position = play.position.swapped()


def test_long_features_of_the_start_position() -> None:
    start = LONG.start_position()
    values = dict(zip(FEATURES, features(start.x, start.o)))
    assert values["pips"] == 36.0  # 15 × 24 / 10
    assert values["head"] == 15.0
    assert values["trap"] == 0.0 and values["off"] == 0.0
    assert values["mobility"] == 1.0  # every die moves a head checker


def test_long_trap_counts_the_opponents_dice_landing_on_our_points() -> None:
    # X holds X-points 6..11 except 8: O's head (X-point 12) can play only a 4 (to X-point 8).
    x = {24: 10, 11: 1, 10: 1, 9: 1, 7: 1, 6: 1}
    o = {24: 15}
    values = dict(zip(FEATURES, features(Position.from_counts(x, o).x, Position.from_counts(x, o).o)))
    assert values["trap"] == pytest.approx(15 * 5 / 6)


def test_long_expert_wins_when_it_can() -> None:
    position = Position.from_counts({1: 1, 2: 1}, {24: 15})
    play = choose_play(LONG, position, (2, 1), "expert", random.Random(1))
    assert play.position.x[0] == 15


def test_lookahead_scores_a_won_game_above_everything() -> None:
    from engine.ai.long_eval import LinearEvaluator
    from engine.ai.player import WIN_VALUE, LookaheadEvaluator

    deep = LookaheadEvaluator(LinearEvaluator(shipped_weights("expert")))
    won = Position.from_counts({}, {24: 15})
    racing = Position.from_counts({1: 1}, {24: 15})
    assert deep.values(LONG, racing, [won]) == [WIN_VALUE + 2]  # a mars: O has borne off nothing
    assert deep.values(LONG, racing, [racing])[0] < WIN_VALUE


def test_short_two_ply_agrees_with_the_raw_net_on_a_clear_choice() -> None:
    from engine.ai.short_net import NetEvaluator

    start = SHORT.start_position()
    plays = SHORT.legal_plays(start, (3, 1))
    for evaluator in (NetEvaluator(), NetEvaluator(plies=2)):
        values = evaluator.values(SHORT, start, [p.position for p in plays])
        assert str(plays[values.index(max(values))]) == str(SHORT.parse_play(start, (3, 1), "8/5 6/5"))
