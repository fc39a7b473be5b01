"""The larger short-nardy cross-check against gnubg-nn (the test suite runs 2,000+ positions).

    .venv/bin/python bench/crosscheck.py [N] [seed]

Checks N positions from seeded random play plus N/4 random valid positions (bar and bear-off
heavy), each with a random roll: the set of legal outcomes must equal gnubg-nn's set of distinct
move results, and the position id must be gnubg's Position ID and decode back. Prints the
agreements and, for each disagreement (up to 10), a reproducer; exits 1 if any.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if sys.path and Path(sys.path[0] or ".").resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)

import random
import time

import gnubg_nn

from engine import Dice, Position, find_rules
from testkit.gnubg_oracle import disagreement, gnubg_board
from testkit.random_play import random_dice, random_play_positions, random_short_position

RULES = find_rules("short")


def id_problem(position: Position) -> str | None:
    text = RULES.position_id(position)
    theirs = gnubg_nn.position_id(gnubg_board(position))
    if text != theirs:
        return f"id {text} but gnubg {theirs} for {position.describe()}"
    if RULES.position_from_id(text) != position:
        return f"id {text} decodes to {RULES.position_from_id(text).describe()}, not {position.describe()}"
    return None


def check(name: str, cases: list[tuple[Position, Dice]]) -> int:
    start = time.perf_counter()
    problems = [
        "; ".join(found)
        for pos, dice in cases
        if (found := [p for p in (disagreement(pos, dice), id_problem(pos)) if p is not None])
    ]
    seconds = time.perf_counter() - start
    print(
        f"{name:<22} {len(cases):>7} positions  {len(cases) - len(problems):>7} agree  "
        f"{len(problems):>4} disagree  ({seconds:.1f} s)"
    )
    for text in problems[:10]:
        print("   ", text)
    return len(problems)


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 20_000
    seed = int(argv[2]) if len(argv) > 2 else 20260301
    played = list(random_play_positions(RULES, random.Random(seed), n))
    rng = random.Random(seed + 1)
    odd = [(random_short_position(rng), random_dice(rng)) for _ in range(n // 4)]
    bad = check("random play", played) + check("random valid positions", odd)
    total = len(played) + len(odd)
    print(f"total {total} positions: {total - bad} agree, {bad} disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
