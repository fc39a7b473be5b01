"""The vectorised long nardy features against a plain, point-by-point reference implementation."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from engine import Position, find_rules
from engine.ai.long_eval import FEATURES, features, score, scores, shipped_weights

LONG = find_rules("long")


def _mirror(q: int) -> int:
    return q + 12 if q <= 12 else q - 12


def reference_features(s: Sequence[int], t: Sequence[int]) -> dict[str, float]:
    """FEATURES computed the slow, obvious way (see long_eval.FEATURES for their meaning)."""
    held = {q: s[_mirror(q)] > 0 for q in range(1, 25)}  # S's points in T's numbering
    runs, longest, run = 0, 0, 0
    for q in range(1, 26):
        if q <= 24 and held[q]:
            run += 1
            longest = max(longest, run)
        else:
            runs += max(0, run - 2)
            run = 0
    trap = sum(t[q] * sum(1 for d in range(1, 7) if q - d >= 1 and held[q - d]) for q in range(1, 25))
    mobility = sum(
        1 for p in range(1, 25) if s[p] for d in range(1, 7) if p - d >= 1 and not t[_mirror(p - d)]
    )
    return {
        "pips": sum(p * s[p] for p in range(1, 25)) / 10,
        "head": s[24],
        "points_home": sum(1 for p in range(1, 7) if s[p]),
        "points_outer": sum(1 for p in range(7, 13) if s[p]),
        "points_far": sum(1 for p in range(13, 19) if s[p]),
        "points_start": sum(1 for p in range(19, 24) if s[p]),
        "runs": runs,
        "longest_run": longest,
        "trap": trap / 6,
        "stacking": sum(max(0, s[p] - 3) for p in range(1, 24)),
        "off": s[0],
        "home": sum(s[0:7]),
        "mobility": mobility / 6,
    }


def _positions(seed: int) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    position = LONG.start_position()
    while True:
        plays = LONG.legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        found.extend(p.position for p in plays)
        play = plays[rng.randrange(len(plays))]
        if play.position.x[0] == 15:
            return found
        position = play.position.swapped()


@pytest.mark.parametrize("seed", [1, 2])
def test_features_match_the_reference_on_every_play_of_a_random_game(seed: int) -> None:
    for position in _positions(seed):
        for s, t in ((position.x, position.o), (position.o, position.x)):
            expected = reference_features(s, t)
            assert features(s, t) == pytest.approx([expected[f] for f in FEATURES]), LONG.describe(position)


def test_batch_scores_equal_single_scores() -> None:
    weights = shipped_weights("expert")
    positions = _positions(3)[:200]
    assert scores(weights, positions) == pytest.approx([score(weights, p) for p in positions])
