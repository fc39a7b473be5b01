"""Racing presses on two webhook workers sharing one Redis: `python bench/race.py [--presses 10000]`.

Two real bot Applications (webhook mode, each on its own port) share one redis-server (AOF on). The fake
Bot API spreads the updates over both and delivers `--duplicates` of them twice; simulated players race on
`--games` group boards: double taps, both players pressing at once (testkit/fake_telegram/race.py). At the
end every game must replay legally from its record and must have changed exactly once per accepted
press. Prints the figures; the last line is one JSON object:
{"presses": ..., "accepted": ..., "refused": ..., "repeated_deliveries": ..., "problems": ..., "seconds": ...}.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice, engine_computer
from testkit.fake_telegram import race
from testkit.fake_telegram.play import start_group_game
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import FakeTelegram
from testkit.fake_telegram.users import SimUser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=10_000, help="presses in all (default 10000)")
    parser.add_argument("--games", type=int, default=20, help="games racing at once (default 20)")
    parser.add_argument("--duplicates", type=float, default=0.2, help="share of updates delivered twice")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="nardy-race-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_server.start()
        tg = FakeTelegram()
        tg.start()
        dice = ScriptedDice(seed=args.seed)
        workers = [
            BotRunner(tg.api_url, redis_server.url, dice, engine_computer(seed=1), free_port(), name)
            for name in ("worker-a", "worker-b")
        ]
        try:
            for worker in workers:
                worker.start()
            return run(tg, redis_server.url, workers, args)
        finally:
            for worker in workers:
                worker.stop()
            tg.stop()
            redis_server.stop()


def run(tg: FakeTelegram, redis_url: str, workers: list[BotRunner], args: argparse.Namespace) -> int:
    chats = [-7000 - i for i in range(args.games)]
    players = {
        chat: (SimUser(tg, 700 + 2 * i, f"W{i}"), SimUser(tg, 701 + 2 * i, f"B{i}"))
        for i, chat in enumerate(chats)
    }
    for i, chat in enumerate(chats):
        start_group_game(tg, chat, *players[chat], "long" if i % 4 == 3 else "short")
    before = {chat: race.game_of(redis_url, chat) for chat in chats}
    tg.duplicate_rate = args.duplicates
    race.NOTATION = []

    per_game = -(-args.presses // args.games)  # a round makes 1.5 presses on average
    results: dict[int, race.RaceStats] = {}

    def play(chat: int) -> None:
        rng = random.Random(args.seed * 1000 + chat)
        results[chat] = race.race_game(tg, chat, players[chat], rng, rounds=per_game, max_presses=per_game)

    start = time.monotonic()
    threads = [threading.Thread(target=play, args=(chat,)) for chat in chats]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tg.wait_delivered(30)
    seconds = time.monotonic() - start

    stats = race.RaceStats()
    for chat in chats:
        stats.add(results[chat])
    problems = stats.problems + race.check_games(
        redis_url, {c: before[c][0] for c in chats}, {c: before[c][1] for c in chats}, stats
    )
    repeated = [qid for qid, n in tg._state.deliveries.items() if n > 1]
    answered_twice = [qid for qid in repeated if len(tg.answers_to(qid)) != 1]
    problems += [f"query {qid} answered {len(tg.answers_to(qid))} times" for qid in answered_twice]
    errors = [m for w in workers for m in w.errors.messages()]
    problems += errors[:10]

    refused = stats.presses - stats.applied
    print(
        f"{stats.presses} presses in {stats.rounds} rounds on {args.games} games in {seconds:.1f}s "
        f"({stats.presses / seconds:.0f}/s): {stats.applied} accepted, {refused} refused politely"
    )
    print(
        f"double taps {stats.double_taps}, both players at once {stats.both_at_once}, "
        f"updates delivered twice {len(repeated)} (each answered once: {not answered_twice})"
    )
    print(f"updates per worker: { ({w.name: w.handled for w in workers}) }")
    print(f"refusals: {dict(stats.refusals)}")
    if race.NOTATION:
        print(
            f"plays whose recorded text differs from the replayed text: {len(race.NOTATION)}, "
            f"e.g. {race.NOTATION[:3]}"
        )
    print(f"problems: {len(problems)} {problems[:5]}")
    print(
        json.dumps(
            {
                "presses": stats.presses,
                "accepted": stats.applied,
                "refused": refused,
                "repeated_deliveries": len(repeated),
                "problems": len(problems),
                "seconds": round(seconds, 1),
            }
        )
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
