"""Group pace: the Bot API calls a turn of a group game costs, and how long turns wait on the rate limiter.

`python bench/group_pace.py [--games 1] [--paces 5,2] [--seed 1] [--turns 0] [--root PATH]`

Telegram lets a bot send about 20 messages a minute to one group, and the bot's rate limiter holds every
call to a group (sends and edits) to that. Here two simulated players play a group game (`--games`: that
many, by rematches) through the fake Bot API with Telegram's limits enforced (`enforce_limits`: a 429 past
20 a minute), against the bot with its production defaults: build_application's own limiter (the bot's
ChatRateLimiter class with its default rates, wrapped only to time its holds) and the production inbound
limits. Each player takes T seconds a turn: the board shows their turn at t0; they press the buttons the
board offers (a bear-off first, else a random move, `mm:` buttons that move one checker twice and `p:`
buttons that play a whole turn included; Done when only Done is left), spread evenly over T (with p presses
expected, the k-th at t0 + k*T/p: one per die, four for doubles, or one when the board offers the turn's
few plays as whole-play buttons, plus one for Done while the bot asks for it), and never before the board shows
the result of their previous press (plus 0.2 s to see it). The players never open /settings: the defaults apply (in a group a turn ends with its last die;
the code before that always asked for Done). Dice and choices are seeded (the same dice before and after;
the choices differ once a board offers buttons the other did not).

Figures, per `--paces` T (a fresh bot, Redis and fake for each):
- turns: every turn of the games in their records (the bot's `nardy:game:<id>`): the turns a player
  pressed in, and those the bot played by itself (a forced play, or no move at all: no call of their own,
  folded into the edit of the turn before). "Pressed" figures count only the former;
- calls: the calls to the group the fake logged from the game's first board on (every send and edit: moves,
  turn ends, the boards of rematches; callback answers are not chat calls);
- wait: the seconds the group's calls were held by the rate limiter (from a call reaching the limiter to
  its HTTP request starting: the limiter's bucket, and the pauses after a 429), summed. A limiter that
  never holds a call gives exactly 0; a held edit is time the board does not yet show a press;
- late: how much later than they planned the players could press (each press waits for the board to
  show the one before), plus how long each turn's last press took to show the next turn, each beyond
  0.25 s (what a redraw takes without any limit): what the limiter cost the game's pace, as the players
  felt it (a hold during a player's thinking costs nothing here);
- from a turn's last press to the board showing the next turn (p50, max): what the next player waits.

`--root PATH` runs the bot of another checkout (a copy of an older tree, say) with that checkout's testkit,
to compare. Prints the figures; the last line is one JSON object (per turn of the games, every pace run
together for calls; a pace not run is null):
{"calls_per_turn": x, "turns": n, "wait_s_per_turn_at_5s": a, "wait_s_per_turn_at_2s": b}
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GROUP = -8800
DICE = re.compile(r"dice (\d)-(\d)")
REACTION = 0.2  # seconds a player takes to see a redrawn board before pressing again
LATE_ALLOWANCE = 0.25  # seconds a redraw may take without any limit (picture, Bot API) before it is "late"
UNLIMITED = {"answerCallbackQuery", "getMe", "getUpdates", "setMyCommands", "setMyDescription"}


@dataclass
class Holds:
    """What the wrapped limiter saw: the seconds group calls were held, and how many there were."""

    seconds: float = 0.0
    calls: int = 0
    longest: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def measured_limiter(holds: Holds) -> Any:
    """The bot's ChatRateLimiter (production defaults), timing how long it holds each call to a group."""
    from bot.telegram.rate_limit import ChatRateLimiter

    class Measured(ChatRateLimiter):
        async def process_request(
            self,
            callback: Any,
            args: Any,
            kwargs: dict[str, Any],
            endpoint: str,
            data: dict[str, Any],
            rate_limit_args: int | None,
        ) -> Any:
            entered = time.monotonic()
            started: list[float] = []

            async def timed(*a: Any, **k: Any) -> Any:
                started.append(time.monotonic())
                return await callback(*a, **k)

            try:
                return await super().process_request(timed, args, kwargs, endpoint, data, rate_limit_args)
            finally:
                chat = data.get("chat_id")
                if started and chat is not None and int(chat) < 0:
                    held = started[-1] - entered
                    with holds.lock:
                        holds.seconds += held
                        holds.calls += 1
                        holds.longest = max(holds.longest, held)

    return Measured()


class Bot:
    """The bot Application of whichever checkout is first on sys.path, polling the fake in a thread."""

    def __init__(self, api_url: str, redis_url: str, token: str, holds: Holds) -> None:
        self.api_url, self.redis_url, self.token, self.holds = api_url, redis_url, token, holds
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
            computer=engine_computer(seed=1), poll_timeout=1, rate_limiter=measured_limiter(self.holds),
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


@dataclass
class Run:
    pace: float
    turns: int = 0  # every turn of the games played: a player's, forced or passed (the games' records)
    played: int = 0  # the turns a player pressed in
    calls: int = 0
    presses: int = 0
    done_presses: int = 0
    games: int = 0
    hold_s: float = 0.0
    longest_hold_s: float = 0.0
    handovers: list[float] = field(default_factory=list)
    late_s: float = 0.0  # how much later than planned the players could press, and turns were handed over
    flood_refusals: int = 0
    alerts: int = 0


def play(pace: float, games: int, most: int, seed: int) -> Run:
    """Two players, one group, `games` games (at most `most` turns pressed, 0: no cap) at `pace` seconds a
    turn: a fresh bot, Redis and fake."""
    import redis

    from bot.embedded_redis import EmbeddedRedis
    from testkit.fake_telegram.play import MOVER, board, data_of, start_group_game

    moves_made = re.compile(r"^Moves so far: ", re.MULTILINE)  # a turn in progress (English boards)
    from testkit.fake_telegram.server import BOT_TOKEN, FakeTelegram, StoredMessage
    from testkit.fake_telegram.users import SimUser

    run = Run(pace)
    holds = Holds()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_server.start()
        tg = FakeTelegram()
        tg.start()
        tg.enforce_limits()
        bot = Bot(tg.api_url, redis_server.url, BOT_TOKEN, holds)
        bot.start()
        client = redis.Redis.from_url(redis_server.url, decode_responses=True)

        def turns_of(game_id: str) -> int:
            """The turns in the game's record: chosen, forced and passed (the table keeps its id in a rematch,
            so read it before the rematch)."""
            raw = client.get(f"nardy:game:{game_id}")
            assert isinstance(raw, str), game_id
            return len(json.loads(raw)["game"]["turns"])

        try:
            players = (SimUser(tg, 881, "Anna"), SimUser(tg, 882, "Boris"))
            by_name = {u.first_name: u for u in players}
            expects_done = {
                u.id: True for u in players
            }  # learnt: does the bot ask for Done after the last die?
            first = start_group_game(tg, GROUP, *players)
            game_id = str(first.buttons[0]["callback_data"]).split(":")[1]
            first_call = len(tg.calls())
            holds_before = (holds.seconds, holds.calls)
            run.games = 1

            def newest() -> StoredMessage:
                return board(tg, GROUP)

            def whose(msg: StoredMessage) -> str | None:
                found = MOVER.search(msg.caption or "")
                return found["name"] if found else None

            shown_at = time.monotonic()  # when the board showed the current turn
            while not most or run.played < most:
                msg = newest()
                rematch = data_of(msg, "r:")
                if rematch:
                    run.turns += turns_of(game_id)
                    if run.games == games:
                        break
                    tg.wait_answer(str(players[0].press_data(msg, rematch[0], wait=False)), 120)

                    def new_board(old: int = msg.message_id) -> bool:
                        return newest().message_id != old

                    tg.wait_for(new_board, 120, "the rematch board")
                    shown_at = time.monotonic()
                    run.games += 1
                    continue
                name = whose(msg)
                if name is None:
                    raise AssertionError(f"cannot tell whose turn it is:\n{msg.caption}")
                user = by_name[name]
                found = DICE.search(msg.caption or "")
                assert found is not None, msg.caption
                dice = 4 if found[1] == found[2] else 2
                whole = bool(data_of(msg, "p:"))  # few plays: each a button, the turn in one press
                planned = (1 if whole else dice) + (1 if expects_done[user.id] else 0)
                t0, pressed, last_press = shown_at, 0, 0.0
                while True:
                    current = tg.message(GROUP, msg.message_id)
                    moves = data_of(current, "m:") + data_of(current, "mm:") + data_of(current, "p:")
                    done = data_of(current, "d:")
                    if not moves and not done:
                        break
                    if moves:
                        home = [
                            b
                            for b in current.buttons
                            if str(b.get("callback_data", "")).startswith(("m:", "p:")) and "⌂" in b["text"]
                        ]
                        data = str(home[0]["callback_data"]) if home else rng.choice(moves)
                    else:
                        data = done[0]
                    due = t0 + pace * (pressed + 1) / max(planned, pressed + 1)
                    time.sleep(max(0.0, due - time.monotonic()))
                    last_press = time.monotonic()
                    run.late_s += max(0.0, last_press - due - LATE_ALLOWANCE)
                    answer = tg.wait_answer(str(user.press_data(current, data, wait=False)), 120)
                    if answer.show_alert:
                        run.alerts += 1
                        time.sleep(0.5)
                        continue
                    pressed += 1
                    run.presses += 1
                    run.done_presses += data.startswith("d:")

                    def redrawn(mid: int = msg.message_id, before: Any = current.reply_markup) -> bool:
                        return bool(tg.message_now(GROUP, mid).reply_markup != before)

                    tg.wait_for(redrawn, 180, "the board redrawn after a press")
                    seen = tg.message(GROUP, msg.message_id)
                    if not moves_made.search(
                        seen.caption or ""
                    ):  # a new turn (maybe theirs again), or the end
                        run.handovers.append(time.monotonic() - last_press)
                        run.late_s += max(0.0, run.handovers[-1] - LATE_ALLOWANCE)
                        expects_done[user.id] = data.startswith("d:")
                        shown_at = time.monotonic() + REACTION
                        break
                    time.sleep(REACTION)
                if pressed:
                    run.played += 1
            else:
                run.turns += turns_of(game_id)  # the game in progress when the cap was reached
            tg.settle()
            run.calls = sum(
                1
                for method, params in tg.calls()[first_call:]
                if method not in UNLIMITED
                and params.get("chat_id") is not None
                and int(params["chat_id"]) == GROUP
            )
            with holds.lock:
                run.hold_s = holds.seconds - holds_before[0]
                run.longest_hold_s = holds.longest
            run.flood_refusals = tg.flood_refusals()
        finally:
            bot.stop()
            tg.stop()
            redis_server.stop()
    return run


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1, help="games played per pace (rematches)")
    parser.add_argument("--turns", type=int, default=0, help="stop after this many turns pressed (0: none)")
    parser.add_argument("--paces", default="5,2", help="seconds a player takes per turn, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot is measured")
    args = parser.parse_args()
    sys.path[:0] = [str(args.root.resolve()), str(ROOT)]

    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    paces = [float(p) for p in args.paces.split(",") if p.strip()]
    runs = [play(pace, args.games, args.turns, args.seed) for pace in paces]
    print(
        f"bot from {args.root}: one group game, two players, Telegram's limits enforced, production limiter"
    )
    for run in runs:
        turns, played = max(1, run.turns), max(1, run.played)
        handover = statistics.median(run.handovers) if run.handovers else float("nan")
        print(
            f"T={run.pace:g} s: {run.games} game(s), {run.turns} turns, {run.played} of them pressed "
            f"({run.presses} presses, {run.done_presses} of them Done); {run.calls} group calls: "
            f"{run.calls / turns:.2f} a turn, {run.calls / played:.2f} a pressed turn; limiter held "
            f"{run.hold_s:.1f} s: {run.hold_s / turns:.2f} s a turn, {run.hold_s / played:.2f} s a pressed "
            f"turn (longest hold {run.longest_hold_s:.1f} s); the game ran {run.late_s / turns:.2f} s a turn "
            f"late; from a turn's last press to the next turn "
            f"shown: p50 {1000 * handover:.0f} ms, max {1000 * max(run.handovers, default=0):.0f} ms; "
            f"429s {run.flood_refusals}; alerts {run.alerts}"
        )
    by_pace = {run.pace: run for run in runs}
    total_turns = sum(run.turns for run in runs)

    def wait(pace: float) -> float | None:
        run = by_pace.get(pace)
        return None if run is None else round(run.hold_s / max(1, run.turns), 2)

    result = {
        "calls_per_turn": round(sum(run.calls for run in runs) / max(1, total_turns), 2),
        "turns": total_turns,
        "wait_s_per_turn_at_5s": wait(5.0),
        "wait_s_per_turn_at_2s": wait(2.0),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
