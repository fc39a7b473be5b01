"""Press-to-answer in group games through the fake Bot API with Telegram's limits and the real rate limiter.

`python bench/press_answer.py [--games 4] [--seconds 60] [--root PATH]`

The bot runs in this process with its production defaults (its own rate limiter, inbound limits), polling
the fake Bot API (testkit/fake_telegram), which refuses with 429 what Telegram refuses (20 messages a
minute in a group, 30 a second overall). In each of `--games` group games the player on turn presses a
legal button as soon as the board shows the turn, as a person does. Measured per press: the time from the
press to its answer (what stops the spinner on the button) and to the board's redraw.

`--root PATH` runs the bot of another checkout (e.g. a `git worktree` of an older commit) against this
checkout's fake, to compare. Prints the figures; the last line is one JSON object:
{"presses": ..., "answer_p50_ms": ..., "answer_p99_ms": ..., "redraw_p50_ms": ..., "redraw_p99_ms": ...,
 "flood_refusals": ...}
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Bot:
    """The bot Application of whichever checkout is first on sys.path, polling the fake in a thread."""

    def __init__(self, api_url: str, redis_url: str, token: str) -> None:
        self.api_url, self.redis_url, self.token = api_url, redis_url, token
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        from telegram import Update

        from bot.model.flow import ScriptedDice, engine_computer
        from bot.storage import Storage
        from bot.telegram.app import build_application

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        storage = Storage.from_url(self.redis_url)
        app = build_application(
            self.token, storage, api_url=self.api_url, dice=ScriptedDice(seed=1),
            computer=engine_computer(seed=1), poll_timeout=1,
        )  # fmt: skip
        async with app:
            await app.start()
            if app.post_init is not None:
                await app.post_init(app)
            assert app.updater is not None
            await app.updater.start_polling(
                poll_interval=0, timeout=1, allowed_updates=[Update.MESSAGE, Update.CALLBACK_QUERY]
            )
            self._ready.set()
            await self._stop.wait()
            await app.updater.stop()
            await app.stop()
            if getattr(app, "post_stop", None) is not None:
                await app.post_stop(app)  # type: ignore[misc]
        await storage.close()

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(60):
            raise TimeoutError("the bot did not start")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot is measured")
    args = parser.parse_args()
    sys.path[:0] = [str(args.root.resolve()), str(ROOT)]

    import logging

    from bot.embedded_redis import EmbeddedRedis
    from testkit.fake_telegram.play import MOVER, board, data_of, start_group_game
    from testkit.fake_telegram.server import BOT_TOKEN, FakeTelegram
    from testkit.fake_telegram.users import SimUser

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    answers: list[float] = []
    redraws: list[float] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_server.start()
        tg = FakeTelegram()
        tg.start()
        tg.enforce_limits()
        bot = Bot(tg.api_url, redis_server.url, BOT_TOKEN)
        bot.start()
        try:
            chats = [-7000 - i for i in range(args.games)]
            players = {
                c: (SimUser(tg, 700 + 2 * i, f"W{i}"), SimUser(tg, 701 + 2 * i, f"B{i}"))
                for i, c in enumerate(chats)
            }
            for chat in chats:
                start_group_game(tg, chat, *players[chat])
            end = time.monotonic() + args.seconds

            def play(chat: int) -> None:
                rng = random.Random(chat)
                by_name = {u.first_name: u for u in players[chat]}
                while time.monotonic() < end:
                    msg = board(tg, chat)
                    rematch = data_of(msg, "r:")
                    if rematch:
                        user, data = players[chat][0], rematch[0]
                    else:
                        found = MOVER.search(msg.caption or "")
                        if not found:
                            time.sleep(0.05)
                            continue
                        moves, done = data_of(msg, "m:") + data_of(msg, "p:"), data_of(msg, "d:")
                        user = by_name[found["name"]]
                        data = done[0] if done and (not moves or rng.random() < 0.5) else rng.choice(moves)
                    start = time.monotonic()
                    qid = str(user.press_data(msg, data, wait=False))
                    answer = tg.wait_answer(qid, 120)
                    answered = time.monotonic()
                    if answer.show_alert:
                        time.sleep(0.2)
                        continue

                    def redrawn(msg: Any = msg) -> bool:
                        if tg.message_now(msg.chat_id, msg.message_id).reply_markup != msg.reply_markup:
                            return True
                        return any(
                            c == msg.chat_id and m.photo is not None and m.message_id > msg.message_id
                            for (c, _), m in tg._state.messages.items()
                        )

                    tg.wait_for(redrawn, 180, "the board redrawn")
                    with lock:
                        answers.append(answered - start)
                        redraws.append(time.monotonic() - start)

            threads = [threading.Thread(target=play, args=(c,)) for c in chats]
            for t in threads:
                t.start()
            for t in threads:
                t.join(args.seconds + 240)
        finally:
            bot.stop()
            tg.stop()
            redis_server.stop()
    result = {
        "presses": len(answers),
        "answer_p50_ms": round(1000 * statistics.median(answers), 1) if answers else None,
        "answer_p99_ms": round(1000 * _percentile(answers, 0.99), 1),
        "redraw_p50_ms": round(1000 * statistics.median(redraws), 1) if redraws else None,
        "redraw_p99_ms": round(1000 * _percentile(redraws, 0.99), 1),
        "flood_refusals": tg.flood_refusals(),
    }
    print(f"bot from {args.root}: {args.games} group games, {args.seconds:.0f} s, Telegram's limits enforced")
    print(f"presses taken: {result['presses']}")
    print(f"press -> answer: p50 {result['answer_p50_ms']} ms, p99 {result['answer_p99_ms']} ms")
    print(f"press -> board redrawn: p50 {result['redraw_p50_ms']} ms, p99 {result['redraw_p99_ms']} ms")
    print(f"429 refusals by the fake: {result['flood_refusals']}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
