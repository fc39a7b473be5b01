"""Players who keep pressing while Redis fails over (tests/bot/test_failover.py, bench/failover.py).

Each game's players press their board's buttons in a thread of their own, one press at a time, until told to
stop; an answer with no alert is a press the bot acknowledged (the board is then redrawn, and the version its
buttons carry is noted as seen); "storage slow / not available" is counted as trouble and pressed again; the
wait for every answer is kept. `check` then compares each game's record, as the master holds it, with what
the players were shown: no shown version missing, no acknowledged press lost, none applied twice.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import redis

from bot.i18n import texts
from bot.service.answers import TRY_AGAIN, TRY_AGAIN_SOON
from bot.storage.keys import game_key
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import MOVER, board, data_of
from testkit.fake_telegram.race import POLITE
from testkit.fake_telegram.server import StoredMessage

TROUBLE = {texts("en").gettext(TRY_AGAIN), texts("en").gettext(TRY_AGAIN_SOON)}


def version_shown(data: str) -> int:
    """The version a board's button data carries ("m:<game>:<version>:...")."""
    return int(data.split(":")[2])


@dataclass
class Pressing:
    """What the players of every game did and were told, gathered from their threads."""

    acknowledged: Counter[int] = field(default_factory=Counter)  # chat -> presses answered with no alert
    trouble: Counter[int] = field(default_factory=Counter)  # chat -> presses answered "storage trouble"
    seen: dict[int, int] = field(default_factory=dict)  # chat -> the newest version a redrawn board showed
    waits: list[float] = field(default_factory=list)  # seconds from each press to its answer
    # (pressed, answered) monotonic times of the acknowledged presses
    acknowledged_at: list[tuple[float, float]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    slow_redraws: int = 0  # acknowledged presses whose board was not redrawn within `redraw_wait`
    lock: threading.Lock = field(default_factory=threading.Lock)

    def first_acknowledged_after(self, moment: float) -> float | None:
        """When the first press made after `moment` was acknowledged (an answer that comes just after it to
        a press saved before it does not count)."""
        with self.lock:
            after = [answered for pressed, answered in self.acknowledged_at if pressed > moment]
        return min(after) if after else None


def press_on(
    tg: FakeTelegram,
    chat: int,
    users: tuple[SimUser, SimUser],
    out: Pressing,
    stop: threading.Event,
    timeout: float = 30.0,
    redraw_wait: float = 5.0,
) -> None:
    """Press the moves of `chat`'s board (random legal buttons) until `stop` or the game ends; a board not
    redrawn within `redraw_wait` after an acknowledged press is pressed again, as a player would."""
    rng = random.Random(chat)
    by_name = {u.first_name: u for u in users}
    while not stop.is_set():
        msg = board(tg, chat)
        rematch = data_of(msg, "r:")
        found = MOVER.search(msg.caption or "")
        if rematch:
            break  # the game is over: its record is what the check compares
        if not found:
            stop.wait(0.1)  # a board being redrawn by the healer
            continue
        moves = data_of(msg, "m:") + data_of(msg, "p:") + data_of(msg, "d:")
        if not moves:
            stop.wait(0.1)
            continue
        data = rng.choice(moves)
        edits = tg.message_now(msg.chat_id, msg.message_id).edits
        pressed = time.monotonic()
        qid = str(by_name[found["name"]].press_data(msg, data, wait=False))
        answer = tg.wait_answer(qid, timeout)
        answered = time.monotonic()
        with out.lock:
            out.waits.append(answered - pressed)
        if answer.show_alert:
            with out.lock:
                if answer.text in TROUBLE:
                    out.trouble[chat] += 1
                elif answer.text not in POLITE:
                    out.problems.append(f"chat {chat}: {data} got {answer.text!r}")
            stop.wait(0.2)
            continue
        with out.lock:
            out.acknowledged[chat] += 1
            out.acknowledged_at.append((pressed, answered))

        def redrawn(m: StoredMessage = msg, e: int = edits) -> bool:  # edited, or a new board (the game over)
            return (
                tg.message_now(m.chat_id, m.message_id).edits > e
                or board(tg, chat).message_id != m.message_id
            )

        try:
            tg.wait_for(redrawn, redraw_wait, f"chat {chat} redrawn")
        except (
            TimeoutError
        ):  # its drawing failed while Redis was away: the healers redraw it in 30 s (SHOW_LEASE),
            with (
                out.lock
            ):  # a press on it at once ("The board was behind; here it is now."), as a player does
                out.slow_redraws += 1
            continue
        now = tg.message_now(msg.chat_id, msg.message_id)
        shown = [version_shown(d) for d in data_of(now, "m:") + data_of(now, "p:") + data_of(now, "d:")]
        if shown:
            with out.lock:
                out.seen[chat] = max(out.seen.get(chat, 0), *shown)


def play_until(
    tg: FakeTelegram, players: dict[int, tuple[SimUser, SimUser]], out: Pressing, stop: threading.Event
) -> list[threading.Thread]:
    """Start one pressing thread per game; they run until `stop` is set (join the threads returned)."""
    threads = [
        threading.Thread(
            target=press_on, args=(tg, chat, users, out, stop), name=f"press-{chat}", daemon=True
        )
        for chat, users in players.items()
    ]
    for t in threads:
        t.start()
    return threads


def stored_versions(client: redis.Redis, game_ids: dict[int, str]) -> dict[int, int | None]:
    versions: dict[int, int | None] = {}
    for chat, game_id in game_ids.items():
        raw = client.get(game_key(game_id))
        versions[chat] = None if raw is None else int(json.loads(raw)["version"])
    return versions


def check(stored: dict[int, int | None], before: dict[int, int], out: Pressing) -> list[str]:
    """What the master holds against what the players saw: every shown version is there, every acknowledged
    press is a change, and no change beyond the presses made (a press answered "storage trouble" may or may
    not have been saved: it is never counted twice)."""
    problems = []
    for chat, version in stored.items():
        if version is None:
            problems.append(f"chat {chat}: the game is gone")
            continue
        if version < out.seen.get(chat, 0):
            problems.append(
                f"chat {chat}: a board showed version {out.seen[chat]}, the master holds {version}"
            )
        changes, acked, trouble = version - before[chat], out.acknowledged[chat], out.trouble[chat]
        if not acked <= changes <= acked + trouble:
            problems.append(
                f"chat {chat}: {changes} changes stored for {acked} acknowledged presses and {trouble} in trouble"
            )
    return problems
