"""What kind of mistakes each computer level makes, judged by the expert's own analysis.

    .venv/bin/python bench/level_mistakes.py --game long --games 20 --workers 2
    .venv/bin/python bench/level_mistakes.py --game short --games 20 --levels beginner intermediate

Each level (beginner, intermediate, expert: `engine.ai.player_for(game, level)`) plays `--games` games against
the expert, as an `engine.Game` record (no cube); each game is analysed by `engine.ai.analysis.analyse` at
depth "expert" (the judge's best play is the expert's own decision) and only the level's plays are counted.

Seeds, as bench/strength.py: games 2k and 2k+1 share their dice, drawn from random.Random(seed·1,000,003 + k)
(the opening roll first, a tie rolled again, the first die White's), so the same colour starts both; the level
plays White in the even games and Black in the odd ones, so each sequence of rolls is played once with each
player starting. The players' own randomness (the beginner's noise) comes from random.Random(seed·7,919 + i).
A run gives the same figures for any number of workers.

Printed per level, over its unforced plays (forced plays and passes are not decisions, as in gnubg):
- ppg: the level's points per game against the expert;
- mEMG: 1000 × the mean loss per decision (gnubg's error rate, in thousandths of the judge's equity:
  expected points per game; long nardy's mars counts 2);
- lose: the share of decisions that lose anything (loss > LOSES = 0.001);
- ?!, ?, ??: the shares marked doubtful (loss in [0.04, 0.08)), error ([0.08, 0.16)), blunder (≥ 0.16);
- median: the median loss of the plays that lose anything;
- ?? loss: the share of the level's total loss that comes from its blunders.

Then a breakdown by the phase of the position before the play, for each level: its decisions, its mEMG and
its plays that lose ≥ 0.04 (marked ?!, ? or ??) in each phase. Phases, simply:
- bear-off: the mover has no checker outside its home (points 1..6, nor on the bar), whatever the other side
  does;
- race: otherwise, when the rules' `is_race` says no checker can meet the other side's any more (long nardy:
  every checker of both sides is in the second half of its path, its own points 1..12; short nardy: nothing on
  the bar and every checker past the other side's rearmost one);
- contact: everything else.

The last line is one JSON object: {"game", "games", "seed", "wall_s", "levels": {level: {"games", "ppg",
"decisions", "mean_loss", "memg", "lose_share", "doubtful_share", "error_share", "blunder_share",
"median_losing_loss", "blunder_loss_share", "s_per_game", "phases": {phase: {"decisions", "memg", "marked"}}}}}.
This prints figures; no test asserts them (tests/ai/test_level_mistakes_bench.py checks the shape, and that the
expert against itself loses nothing).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import json
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from engine import Game, Phase, Position, Rules, Side
from engine.ai import LEVELS, player_for
from engine.ai.analysis import BAD, DOUBTFUL, VERY_BAD, analyse
from engine.ai.selfplay import MAX_TURNS

LOSES = 0.001  # a play that loses more than this loses something (less is the evaluator's rounding)
PHASES = ("contact", "race", "bear-off")

# One game seen from the level's side: its points (negative when it lost), seconds to play and analyse,
# and (loss, phase) for each of its unforced plays.
GameMistakes = tuple[int, float, list[tuple[float, str]]]


def phase_of(rules: Rules, position: Position) -> str:
    """The phase of `position` for its side to move (X): bear-off, race or contact (see the docstring)."""
    if not any(position.x[7:26]):
        return "bear-off"
    return "race" if rules.is_race(position) else "contact"


def level_game(game: str, level: str, index: int, seed: int) -> tuple[Game, Side]:
    """Game `index` of `level` against the expert, finished, and the level's side (White in even games)."""
    dice = random.Random(seed * 1_000_003 + index // 2)  # games 2k and 2k+1: the same dice
    rng = random.Random(seed * 7_919 + index)
    side = Side.WHITE if index % 2 == 0 else Side.BLACK
    players = {side: player_for(game, level), side.other: player_for(game, "expert")}
    g = Game.new(game)
    while g.phase is Phase.OPENING:
        g = g.opening_roll(dice.randint(1, 6), dice.randint(1, 6))
    for _ in range(MAX_TURNS):
        if g.is_over:
            return g, side
        if g.phase is Phase.ROLL:
            g = g.roll(dice.randint(1, 6), dice.randint(1, 6))
        assert g.dice is not None
        g = g.play(players[g.turn].choose(g.rules, g.position, g.dice, rng))
    raise RuntimeError(f"{game} game {index} ({level} vs expert) not over after {MAX_TURNS} turns")


def mistakes(game: str, level: str, index: int, seed: int) -> GameMistakes:
    """Game `index` of `level` against the expert, analysed, from the level's side."""
    start = time.perf_counter()
    g, side = level_game(game, level, index, seed)
    analysis = analyse(g, depth="expert")
    assert g.result is not None
    points = g.result.points if g.result.winner is side else -g.result.points
    plays = [(r.loss, phase_of(g.rules, r.position)) for r in analysis.plays if r.side is side]
    return points, time.perf_counter() - start, plays


def _run(job: tuple[str, str, int, list[int]]) -> list[GameMistakes]:
    game, level, seed, indices = job
    return [mistakes(game, level, i, seed) for i in indices]


def _share(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def summarise(results: list[GameMistakes]) -> dict[str, object]:
    """One level's figures (the JSON's per-level object) from its games."""
    losses = [loss for _, _, plays in results for loss, _ in plays]
    n, total = len(losses), sum(losses)
    losing = [loss for loss in losses if loss > LOSES]
    phases: dict[str, dict[str, float]] = {}
    for phase in PHASES:
        mine = [loss for _, _, plays in results for loss, p in plays if p == phase]
        phases[phase] = {
            "decisions": len(mine),
            "memg": round(1000 * _share(sum(mine), len(mine)), 2),
            "marked": sum(1 for loss in mine if loss >= DOUBTFUL),
        }
    return {
        "games": len(results),
        "ppg": round(_share(sum(points for points, _, _ in results), len(results)), 3),
        "decisions": n,
        "mean_loss": round(_share(total, n), 5),
        "memg": round(1000 * _share(total, n), 2),
        "lose_share": round(_share(len(losing), n), 4),
        "doubtful_share": round(_share(sum(1 for x in losses if DOUBTFUL <= x < BAD), n), 4),
        "error_share": round(_share(sum(1 for x in losses if BAD <= x < VERY_BAD), n), 4),
        "blunder_share": round(_share(sum(1 for x in losses if x >= VERY_BAD), n), 4),
        "median_losing_loss": round(statistics.median(losing), 4) if losing else 0.0,
        "blunder_loss_share": round(_share(sum(x for x in losses if x >= VERY_BAD), total), 4),
        "s_per_game": round(_share(sum(s for _, s, _ in results), len(results)), 2),
        "phases": phases,
    }


def print_tables(game: str, games: int, seed: int, levels: dict[str, dict[str, object]]) -> None:
    print(
        f"{game} nardy: each level against the expert, {games} games each, seed {seed}; judged by the expert"
    )
    print(
        f"{'level':13} {'ppg':>6} {'decisions':>9} {'mEMG':>6} {'lose':>6} {'?!':>6} {'?':>6} {'??':>6} "
        f"{'median':>7} {'?? loss':>8} {'s/game':>6}"
    )
    for level, s in levels.items():
        print(
            f"{level:13} {s['ppg']:+6.2f} {s['decisions']:9} {s['memg']:6.1f} {s['lose_share']:6.1%} "
            f"{s['doubtful_share']:6.1%} {s['error_share']:6.1%} {s['blunder_share']:6.1%} "
            f"{s['median_losing_loss']:7.3f} {s['blunder_loss_share']:8.1%} {s['s_per_game']:6.2f}"
        )
    print(
        "by phase (before the play): the level's decisions there, their mEMG, its plays losing >= 0.04 there"
    )
    print(f"{'level':13} {'phase':9} {'decisions':>9} {'mEMG':>6} {'>=0.04':>6} {'of its >=0.04':>13}")
    for level, s in levels.items():
        phases = s["phases"]
        assert isinstance(phases, dict)
        marked = sum(phases[p]["marked"] for p in PHASES)
        for p in PHASES:
            f = phases[p]
            print(
                f"{level:13} {p:9} {f['decisions']:9} {f['memg']:6.1f} {f['marked']:6} "
                f"{_share(f['marked'], marked):13.1%}"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=("long", "short"), default="long")
    parser.add_argument("--games", type=int, default=20, help="games per level")
    parser.add_argument("--levels", nargs="+", choices=LEVELS, default=list(LEVELS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="processes playing games in parallel")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    workers = max(args.workers, 1)
    jobs = [
        (args.game, level, args.seed, list(range(w, args.games, workers)))
        for level in args.levels
        for w in range(workers)
        if w < args.games
    ]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_run, jobs))
    else:
        parts = [_run(job) for job in jobs]
    by_level: dict[str, list[GameMistakes]] = {level: [] for level in args.levels}
    for (_, level, _, _), part in zip(jobs, parts, strict=True):
        by_level[level] += part
    levels = {level: summarise(results) for level, results in by_level.items()}
    wall = time.perf_counter() - started

    print_tables(args.game, args.games, args.seed, levels)
    print(f"wall {wall:.1f} s ({workers} worker{'s' if workers > 1 else ''})")
    summary = {"game": args.game, "games": args.games, "seed": args.seed, "wall_s": round(wall, 1)}
    print(json.dumps({**summary, "levels": levels}))


if __name__ == "__main__":
    main()
