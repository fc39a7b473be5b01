"""How long an arena's pairing takes, pure (bot/model/arena.py `pair_free`, no Redis, no Telegram):
`python bench/arena_pairing.py [--players 200] [--rounds 20] [--seed 1]`.

Each round draws a fresh standings of `--players` free players (ranks shuffled over user ids, ratings 1100 to
1900, each one's last opponent a neighbour in the standings, so that the obvious pairing is forbidden) and
pairs them all at once: the worst case, an arena's start or a round where everyone is free together. Prints
p50/p99/max seconds per pairing for 20, 50, 100 (the fewer) and `--players` free players and, for the last, the
mean and largest distance in places between partners and the rematches (0 unless forced); the last line is
one JSON object {"players": ..., "p50_s": ..., "p99_s": ..., "max_s": ..., "mean_gap": ..., "rematches": ...,
"replay_games": ..., "replay_s": ...}: the last two, the time to build an `Arena` of `--players` from nothing
by `--games` games started and recorded (as a service that rebuilds the arena from its record does).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.model.arena import Arena, Candidate, pair_free


def standings(rng: random.Random, players: int) -> list[Candidate]:
    ids = rng.sample(range(1, 1_000_000), players)
    return [
        Candidate(
            user_id=user_id,
            rank=rank,
            rating=rng.uniform(1100.0, 1900.0),
            last_opponent=ids[rank] if rank < players else ids[rank - 2],
            free_since=rng.uniform(0.0, 60.0),
        )
        for rank, user_id in enumerate(ids, start=1)
    ]


def measure(players: int, rounds: int, seed: int) -> dict[str, float | int]:
    rng = random.Random(seed)
    times: list[float] = []
    gaps: list[int] = []
    rematches = 0
    for _ in range(rounds):
        free = standings(rng, players)
        started = time.perf_counter()
        pairs = pair_free(free)
        times.append(time.perf_counter() - started)
        by_id = {c.user_id: c for c in free}
        for a, b in pairs:
            gaps.append(abs(by_id[a].rank - by_id[b].rank))
            rematches += by_id[a].last_opponent == b or by_id[b].last_opponent == a
    times.sort()
    return {
        "players": players,
        "p50_s": round(statistics.median(times), 4),
        "p99_s": round(times[min(len(times) - 1, round(0.99 * (len(times) - 1)))], 4),
        "max_s": round(times[-1], 4),
        "mean_gap": round(statistics.mean(gaps), 3),
        "max_gap": max(gaps),
        "rematches": rematches,
    }


def replay(players: int, games: int, seed: int) -> float:
    """Seconds to build an arena of `players` by `games` games, each started and recorded."""
    rng = random.Random(seed)
    steps: list[tuple[str, int, int]] = []  # (game id, first, second): started, then recorded (first won)
    free = list(range(1, players + 1))
    playing: list[tuple[str, int, int]] = []
    order: list[tuple[bool, tuple[str, int, int]]] = []
    while len(steps) < games:
        rng.shuffle(free)
        while len(free) >= 2 and len(steps) < games:
            game = (f"g{len(steps)}", free.pop(), free.pop())
            steps.append(game)
            playing.append(game)
            order.append((True, game))
        rng.shuffle(playing)
        for game in playing[: max(1, len(playing) // 2)]:
            order.append((False, game))
            free += [game[1], game[2]]
        playing = playing[max(1, len(playing) // 2) :]
    started = time.perf_counter()
    arena = Arena()
    for user_id in range(1, players + 1):
        arena = arena.join(user_id, 1500.0, at=0.0)
    for at, (start, (game_id, first, second)) in enumerate(order):
        arena = arena.start(game_id, first, second) if start else arena.record(game_id, first, at=float(at))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=3000)
    args = parser.parse_args()
    result: dict[str, float | int] = {}
    for players in sorted({n for n in (20, 50, 100) if n < args.players} | {args.players}):
        result = measure(players, args.rounds, args.seed)
        print(
            f"{players:4d} free players: p50 {result['p50_s']:.3f} s, p99 {result['p99_s']:.3f} s, "
            f"max {result['max_s']:.3f} s; partners {result['mean_gap']} places apart "
            f"(at most {result['max_gap']}), {result['rematches']} rematches"
        )
    seconds = replay(args.players, args.games, args.seed)
    print(f"an arena of {args.players} rebuilt from {args.games} games started and recorded: {seconds:.3f} s")
    print(json.dumps({**result, "replay_games": args.games, "replay_s": round(seconds, 4)}))


if __name__ == "__main__":
    main()
