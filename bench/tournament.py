"""Tournament benchmark: `python bench/tournament.py [--players 200] [--rounds 30]`.

An arena with `--players` signed up runs in the real bot (in this process, polling the fake Bot API, a real
redis-server). Each round ends two of its running games at once (their white players resign), which frees
four players; the time from that save ("free") to the fake Bot API receiving each freed player's new board
(sendPhoto in their private chat: "board sent") is measured. That span holds the sweeper's wait for the
inbox (every 0.5 s), the tournament's compare-and-set with the pairing, the games' creation and the boards'
drawing and sending. Also `MEMORY USAGE` of the tournament's keys after the start and at the end.

The last line printed is one JSON object: {"players": ..., "samples": ..., "p50_ms": ..., "p99_ms": ...,
"max_ms": ..., "start_s": ..., "record_bytes_start": ..., "record_bytes_end": ..., "games": ...}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice, engine_computer, resign
from bot.model.table import Person
from bot.service import tournaments
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.runner import BotRunner

GROUP = -1009999


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def memory_of(redis_url: str, tourney_id: str) -> int:
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return sum(int(r.memory_usage(k) or 0) for k in r.scan_iter(match=f"nardy:tourney:{tourney_id}*"))
    finally:
        r.close()


def newest_photo(tg: FakeTelegram, chat_id: int) -> int:
    photos = [m.message_id for m in tg.bot_messages(chat_id) if m.photo is not None]
    return max(photos, default=0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=30, help="rounds of two games ended at once")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp))
        server.start()
        tg = FakeTelegram()
        tg.start()
        runner = BotRunner(tg.api_url, server.url, ScriptedDice(seed=1), engine_computer(seed=1))
        runner.start()
        try:
            tg.add_chat(GROUP, "supergroup", "Bench club")
            users = [SimUser(tg, 10_000 + i, f"P{i}") for i in range(args.players)]

            async def create(d: Any) -> str:
                t = await tournaments.create(
                    d, GROUP, "Bench club", Person(users[0].id, "P0"), "arena", "short-blitz", 90, 5
                )
                for u in users:
                    await tournaments.join(d, t.id, Person(u.id, u.first_name))
                return t.id

            tid: str = runner.call(create, 120)
            began = time.perf_counter()

            async def start(d: Any) -> None:
                await tournaments.start_games(d, await tournaments.start(d, tid, users[0].id))

            runner.call(start, 120)
            tg.wait_for(lambda: all(newest_photo(tg, u.id) for u in users), 300, "every first board")
            start_s = time.perf_counter() - began
            record_start = memory_of(server.url, tid)

            samples: list[float] = []
            for _ in range(args.rounds):
                t = runner.call(lambda d: d.storage.tournaments.load(tid))
                ending = t.running_games[:2]
                freed = [u for g in ending for u in g.players]
                seen = {u: newest_photo(tg, u) for u in freed}

                async def end(d: Any, ending: Any = ending) -> float:
                    for g in ending:
                        table = await d.storage.games.load(g.game)
                        done = d.stamped(resign(table, g.players[0], table.number))
                        await d.storage.games.save(done)
                        d.changed(done, table)
                    return time.perf_counter()

                freed_at = runner.call(end)
                arrived: dict[int, float] = {}

                def all_new(
                    freed: list[int] = freed, seen: dict[int, int] = seen, arrived: dict[int, float] = arrived
                ) -> bool:
                    for u in freed:
                        if u not in arrived and newest_photo(tg, u) > seen[u]:
                            arrived[u] = time.perf_counter()
                    return len(arrived) == len(freed)

                tg.wait_for(all_new, 60, "the freed players' new boards")
                samples += [(at - freed_at) * 1000 for at in arrived.values()]
            final = runner.call(lambda d: d.storage.tournaments.load(tid))
            record_end = memory_of(server.url, tid)
        finally:
            runner.stop()
            tg.stop()
            server.stop()

    out = {
        "players": args.players,
        "samples": len(samples),
        "p50_ms": round(statistics.median(samples), 1),
        "p99_ms": round(percentile(samples, 0.99), 1),
        "max_ms": round(max(samples), 1),
        "start_s": round(start_s, 2),
        "record_bytes_start": record_start,
        "record_bytes_end": record_end,
        "games": len(final.games),
    }
    print(
        f"{args.players} players: free -> board sent p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms "
        f"({len(samples)} samples); first {args.players // 2} games' boards sent {out['start_s']} s after the "
        f"start; tournament keys {record_start} bytes after the start, {record_end} after {out['games']} games"
    )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
