"""Strength of the computer players: N games between two of them, with wins, points per game, a 95 %
confidence interval and decision times. The last line printed is one JSON object.

    .venv/bin/python bench/strength.py --game short --a expert --b pubeval --games 2000 --workers 2
    .venv/bin/python bench/strength.py --game long --a expert --b greedy --games 1000 --workers 2

    .venv/bin/python bench/strength.py --game short --a intermediate --cube --games 2000 --workers 2

Levels: beginner, intermediate, expert; and as opponents random, greedy (long nardy: the play moving
the most pips, then keeping the most made points) and pubeval (short nardy: Tesauro's pubeval, as
shipped in gnubg-nn, a test-only dependency); long_v1 (long nardy: the expert of before the neural
network, kept as the baseline every net is measured against). Player A starts the even-numbered games, B
the odd ones; games 2k and 2k+1 share their dice (mirrored dice: each sequence of rolls is played once
with each player starting; the 95 % interval is computed over single games, which overstates it a
little), drawn from random.Random(f(seed, k)), so a run is the same for any number of workers.

--cube (short nardy, money games): A is the computer at its level WITH the doubling cube (its doubles,
takes and passes from engine/ai/cube.py); B is the same computer (--b, by default A's level) WITHOUT
cube decisions: it never doubles and always takes (the usual cubeless baseline: a player who ignores
the cube, which is what the computer was before it had cube decisions). Points per game count the
cube's value (a pass scores the cube's value before the double; gammons and backgammons multiply it);
no Jacoby rule, no beavers. It reports the share of games with a double, the passes, the average final
cube and A's cube decision times.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Dice, Play, Position, Rules, find_rules
from engine.ai import BENCH_LEVELS, LEVELS, Player, player_for
from engine.ai.selfplay import percentile, play_game, points_interval


class PubEvalPlayer:
    """Tesauro's pubeval (gnubg-nn's pub_best_move) mapped back onto the engine's legal plays."""

    def choose(self, rules: Rules, position: Position, dice: Dice, rng: random.Random) -> Play:
        import gnubg_nn

        plays = rules.legal_plays(position, dice)
        if len(plays) == 1:
            return plays[0]
        # gnubg board: [side not on roll, side on roll], index i = point i + 1, index 24 = the bar.
        flat = gnubg_nn.pub_best_move([list(position.o[1:26]), list(position.x[1:26])], dice.a, dice.b)
        x, o = list(position.x), list(position.o)
        for i in range(0, len(flat) - 1, 2):
            if flat[i] < 0:
                break
            src, dst = flat[i] + 1, max(flat[i + 1] + 1, 0)
            x[src] -= 1
            x[dst] += 1
            if dst and o[25 - dst] == 1:
                o[25 - dst] = 0
                o[25] += 1
        for play in plays:
            if play.position.x == tuple(x) and play.position.o == tuple(o):
                return play
        raise RuntimeError(f"pubeval's play {flat} with {dice} is not legal in {rules.describe(position)}")


def make_player(game: str, level: str) -> Player:
    if level == "pubeval":
        if game != "short":
            raise SystemExit("pubeval plays short nardy only")
        return PubEvalPlayer()
    return player_for(game, level)


def _run(args: tuple[str, str, str, int, list[int]]) -> list[tuple[int, list[float], list[float]]]:
    game, a_level, b_level, seed, indices = args
    rules = find_rules(game)
    a, b = make_player(game, a_level), make_player(game, b_level)
    results = []
    for i in indices:
        dice = random.Random(seed * 1_000_003 + i // 2)  # games 2k and 2k+1: the same dice (mirrored)
        rng = random.Random(seed * 7_919 + i)
        outcome = play_game(rules, a, b, i % 2 == 0, dice, rng)
        results.append((outcome.a_points, outcome.a_times, outcome.b_times))
    return results


# A's points, the final cube, whether A doubled, passes, A's cube decision times
CubeGame = tuple[int, int, bool, int, list[float]]


def _cube_game(game_index: int, level_a: str, level_b: str, seed: int) -> CubeGame:
    """One money game with the cube: A (cube decisions by engine.ai.cube) against B (no cube decisions:
    never doubles, always takes). A starts the even-numbered games."""
    from engine.ai.cube import cube_decision
    from engine.ai.selfplay import MAX_TURNS
    from engine.cube import Cube
    from engine.game import Game, Phase
    from engine.sides import Side

    dice = random.Random(seed * 1_000_003 + game_index)
    rng = random.Random(seed * 7_919 + game_index)
    a_side = Side.WHITE if game_index % 2 == 0 else Side.BLACK
    players = {a_side: make_player("short", level_a), a_side.other: make_player("short", level_b)}
    game = Game.new("short", cube=Cube())
    while game.phase is Phase.OPENING:  # a tie is rolled again; A's side wins the even games' openings
        a, b = dice.randint(1, 6), dice.randint(1, 6)
        if a != b:
            high, low = max(a, b), min(a, b)
            game = game.opening_roll(high, low) if a_side is Side.WHITE else game.opening_roll(low, high)
    doubled, passes, times = False, 0, []
    for _ in range(MAX_TURNS):
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.ROLL and game.may_double() and game.turn is a_side:
            start = time.perf_counter()
            action = cube_decision(game, level_a, rng)
            times.append(time.perf_counter() - start)
            if action == "double":
                doubled = True
                game = game.double()
        elif game.phase is Phase.ROLL and game.may_double():
            pass  # B never doubles
        if game.phase is Phase.CUBE:
            if game.deciding is a_side:
                start = time.perf_counter()
                action = cube_decision(game, level_a, rng)
                times.append(time.perf_counter() - start)
            else:
                action = "take"  # B always takes
            if action == "pass":
                passes += 1
                game = game.drop()
                break
            game = game.take()
        if game.phase is Phase.ROLL:
            game = game.roll(dice.randint(1, 6), dice.randint(1, 6))
        assert game.dice is not None
        play = players[game.turn].choose(game.rules, game.position, game.dice, rng)
        game = game.play(play)
    if game.result is None or game.cube is None:
        raise RuntimeError(f"game {game_index} not over after {MAX_TURNS} turns")
    points = game.result.points if game.result.winner is a_side else -game.result.points
    return points, game.cube.value, doubled, passes, times


def _run_cube(args: tuple[str, str, int, list[int]]) -> list[CubeGame]:
    level_a, level_b, seed, indices = args
    return [_cube_game(i, level_a, level_b, seed) for i in indices]


def cube_main(args: argparse.Namespace) -> None:
    """--cube: A with the cube against B without it; the summary as the last line (JSON)."""
    level_b = args.b or args.a
    chunks = [list(range(w, args.games, args.workers)) for w in range(args.workers)]
    jobs = [(args.a, level_b, args.seed, chunk) for chunk in chunks if chunk]
    started = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(_run_cube, jobs))
    else:
        parts = [_run_cube(job) for job in jobs]
    wall = time.perf_counter() - started
    results = [r for part in parts for r in part]
    points = [r[0] for r in results]
    times = [t for r in results for t in r[4]]
    n = len(points)
    ppg, half = points_interval(points)
    doubled = sum(1 for r in results if r[2]) / n
    passes = sum(r[3] for r in results)
    cube = sum(r[1] for r in results) / n
    wins = sum(1 for p in points if p > 0)
    print(
        f"short nardy money games: {args.a} with the cube (A) vs {level_b} without it (B), {n} games, seed {args.seed}"
    )
    print(f"A wins {wins} ({wins / n:.1%}), B wins {n - wins}; wall {wall:.0f} s")
    print(f"A points per game {ppg:+.3f} (cube included), 95% CI [{ppg - half:+.3f}, {ppg + half:+.3f}]")
    print(
        f"games with a double {doubled:.1%}, passes {passes} ({passes / n:.1%} of games), average final cube {cube:.2f}"
    )
    kinds = {k: sum(1 for p in points if p == k) for k in sorted(set(points))}
    print("results by points for A: " + ", ".join(f"{k:+d}: {v}" for k, v in kinds.items()))
    median = statistics.median(times) * 1e3 if times else float("nan")
    p99 = percentile(times, 0.99) * 1e3
    print(
        f"A's cube decisions {len(times)}: median {median:.2f} ms, p99 {p99:.2f} ms, "
        f"max {max(times, default=float('nan')) * 1e3:.2f} ms"
    )
    summary = {
        "mode": "cube",
        "game": "short",
        "a": args.a,
        "b": level_b,
        "games": n,
        "win_rate": round(wins / n, 4),
        "ppg": round(ppg, 4),
        "ci95": [round(ppg - half, 4), round(ppg + half, 4)],
        "doubled_share": round(doubled, 4),
        "passes": passes,
        "average_cube": round(cube, 3),
        "cube_decisions": len(times),
        "cube_median_ms": round(median, 3),
        "cube_p99_ms": round(p99, 3),
        "wall_s": round(wall, 1),
    }
    print(json.dumps(summary))


def main(argv: list[str] | None = None) -> None:
    levels = LEVELS + BENCH_LEVELS + ("pubeval",)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=("short", "long"), required=True)
    parser.add_argument("--a", choices=levels, required=True, help="the player measured")
    parser.add_argument("--b", choices=levels, help="its opponent (with --cube: by default A's level)")
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes playing games in parallel")
    parser.add_argument(
        "--cube", action="store_true", help="short nardy money games: A with the cube, B without it"
    )
    args = parser.parse_args(argv)
    if args.cube:
        if args.game != "short":
            parser.error("--cube is for short nardy only (long nardy has no doubling cube)")
        if args.a not in LEVELS or (args.b is not None and args.b not in LEVELS):
            parser.error(f"--cube plays the computer's levels only: {', '.join(LEVELS)}")
        cube_main(args)
        return
    if args.b is None:
        parser.error("--b is required (except with --cube)")

    chunks = [list(range(w, args.games, args.workers)) for w in range(args.workers)]
    jobs = [(args.game, args.a, args.b, args.seed, chunk) for chunk in chunks if chunk]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(_run, jobs))
    else:
        parts = [_run(job) for job in jobs]
    results = [r for part in parts for r in part]

    points = [r[0] for r in results]
    a_times = [t for r in results for t in r[1]]
    b_times = [t for r in results for t in r[2]]
    n = len(points)
    wins = sum(1 for p in points if p > 0)
    ppg, half = points_interval(points)
    win_rate = wins / n
    win_half = 1.96 * math.sqrt(win_rate * (1 - win_rate) / n)
    kinds = {k: sum(1 for p in points if p == k) for k in sorted(set(points))}

    print(f"{args.game} nardy: {args.a} (A) vs {args.b} (B), {n} games, seed {args.seed}")
    print(f"A wins {wins} ({win_rate:.1%} ± {win_half:.1%}), B wins {n - wins}")
    print(f"A points per game {ppg:+.3f}, 95% CI [{ppg - half:+.3f}, {ppg + half:+.3f}]")
    print("results by points for A: " + ", ".join(f"{k:+d}: {v}" for k, v in kinds.items()))
    for name, times in ((args.a + " (A)", a_times), (args.b + " (B)", b_times)):
        print(
            f"{name} decisions {len(times)}: median {statistics.median(times) * 1e3:.2f} ms, "
            f"p99 {percentile(times, 0.99) * 1e3:.2f} ms, max {max(times) * 1e3:.2f} ms"
        )
    summary = {
        "game": args.game,
        "a": args.a,
        "b": args.b,
        "games": n,
        "win_rate": round(win_rate, 4),
        "ppg": round(ppg, 4),
        "ci95": [round(ppg - half, 4), round(ppg + half, 4)],
        "a_median_ms": round(statistics.median(a_times) * 1e3, 3),
        "a_p99_ms": round(percentile(a_times, 0.99) * 1e3, 3),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
