"""Fuzzing the whole bot: `python bench/fuzz.py [N] [--seed S]` (N presses and messages, default 100,000).

The real bot (polling, real redis-server) runs live games in groups and private chats (short and long,
friend and computer). A seeded generator sends it callback presses (real buttons, old versions, other
games' buttons, mutated bytes, truncated, oversized, non-ASCII, lone surrogates, presses without a
message) by players, spectators and strangers, and commands with odd arguments and arbitrary texts.

Properties checked on every step:
- no exception escapes a handler: the Application's error handler is never called, no traceback is logged;
- every press is answered (answerCallbackQuery), a press that cannot be legal with a non-empty alert;
- forged presses change nothing: every nardy:* key is snapshotted before and after each batch of them;
  only a press of a button the bot shows to that user (or a menu carrying the presser's own id) may change
  state, and those are sent one at a time. Commands and texts never change a game record.

Prints the counts; the last line is one JSON object:
{"steps": ..., "presses": ..., "answers": ..., "forged": ..., "legal": ..., "commands": ..., "texts": ...,
 "state_changes": ..., "forbidden_changes": ..., "unanswered": ..., "impolite": ..., "exceptions": ...,
 "seconds": ...}
The test tests/bot/test_fuzz.py runs the same harness with a smaller count.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from collections import Counter
from http.server import ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from testkit.fake_telegram.server import FakeTelegram
from testkit.fuzzer import LISTEN_BACKLOG, Fuzzer


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("n", nargs="?", type=int, default=100_000, help="presses and messages to send")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=32, help="forged presses sent at once")
    parser.add_argument(
        "--claim-after",
        type=float,
        default=3.0,
        help="NARDY_CLAIM_AFTER for the run (idle games get claimed)",
    )
    args = parser.parse_args()
    os.environ["NARDY_CLAIM_AFTER"] = str(args.claim_after)

    from bot.embedded_redis import EmbeddedRedis
    from bot.model.flow import ScriptedDice, engine_computer
    from testkit.fake_telegram.runner import BotRunner

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis")
        server.start()
        ThreadingHTTPServer.request_queue_size = LISTEN_BACKLOG
        tg = FakeTelegram()
        tg.start()
        runner = BotRunner(
            tg.api_url, server.url, ScriptedDice(seed=args.seed), engine_computer(seed=args.seed)
        )
        runner.start()
        fuzzer = Fuzzer(tg, server.url, seed=args.seed, batch=args.batch)
        t0 = time.monotonic()
        try:
            fuzzer.setup()
            stats = fuzzer.run(args.n, progress=True)
        finally:
            fuzzer.close()
            runner.stop()
            tg.stop()
            server.stop()
        seconds = time.monotonic() - t0
    for line in stats.failures:
        print("FAIL", line)
    kinds = Counter({k: v for k, v in stats.as_json().items() if isinstance(v, int)})
    for name, value in kinds.items():
        print(f"{name:>18}: {value}")
    print("answers by text:")
    for text, count in stats.alerts.most_common():
        print(f"{count:>8}  {text[:100]!r}")
    print(json.dumps({**stats.as_json(), "seconds": round(seconds, 1)}))
    ok = not (stats.forbidden_changes or stats.unanswered or stats.impolite or stats.exceptions)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
