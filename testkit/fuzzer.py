"""The fuzzing harness behind `python bench/fuzz.py` and tests/bot/test_fuzz.py.

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

import itertools
import json
import logging
import random
import re
import string
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import redis

from bot.i18n import texts
from bot.telegram import callbacks
from bot.telegram.callbacks import BadCallback
from bot.telegram.handlers.common import WENT_WRONG
from testkit.fake_telegram.play import (
    MOVER,
    start_computer_game,
    start_friend_game,
    start_group_game,
)
from testkit.fake_telegram.server import CallbackAnswer, FakeTelegram, StoredMessage
from testkit.fake_telegram.users import SimUser

# The fake's ThreadingHTTPServer listens with the stdlib's backlog of 5: a batch of presses makes the bot
# open more connections at once than that, and the dropped ones end in httpx.ReadError. Telegram has no
# such limit, so the fuzz runs give the fake a longer queue.
LISTEN_BACKLOG = 128
GAME_KEY = re.compile(r"^nardy:game:[^:]+$")
BOOKKEEPING = ("nardy:once:", "nardy:limit:", "nardy:unshown", "nardy:update:", "nardy:drawing:")
# which message each button lives on (bot/telegram/button_homes.py): written when a message is sent, not by a press
HOMES = ("nardy:home:",)
IMPOLITE = {texts("en").gettext(WENT_WRONG), texts("ru").gettext(WENT_WRONG)}
ACTIONS: tuple[str, ...] = ("m", "mm", "u", "d", "r", "ry", "rn", "v", "o", "l", "j", "x", "xi", "c", "fy")
ACTIONS += ("fn", "s", "zz", "")
COMMANDS = (
    "/start",
    "/help",
    "/rules",
    "/newgame",
    "/resign",
    "/cancel",
    "/claim",
    "/forget",
    "/deletedata",
    "/nosuchcommand",
    "/start@nardy_test_bot",
    "/newgame@some_other_bot",
    "/",
)
JUNK = [
    "\x00",
    "\udcff",
    "\ud800",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\uffff",
    "é",
    "١",
    "٣",
    "𝟘",
    "🎲",
    "\n",
    "\r\n",
    " ",
    "%s",
    "{}",
    "{name}",
    "'",
    '"',
    "\\",
    "*",
    "?",
    "../",
    ":",
    "::",
    "-1",
    "999999999999",
    "0",
    "00",
    "nardy:*",
]


class Captured(logging.Handler):
    """Log records that show a failure: anything with a traceback, and ERROR records of bot/telegram."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or (
            record.levelno >= logging.ERROR and record.name.split(".")[0] in ("bot", "telegram")
        ):
            self.records.append(record)

    def lines(self) -> list[str]:
        fmt = logging.Formatter("%(levelname)s %(name)s: %(message)s")
        return [fmt.format(r) for r in self.records]


@dataclass
class Stats:
    steps: int = 0
    presses: int = 0
    answers: int = 0
    forged: int = 0
    legal: int = 0
    commands: int = 0
    texts: int = 0
    state_changes: int = 0
    forbidden_changes: int = 0
    unanswered: int = 0
    impolite: int = 0
    exceptions: int = 0
    failures: list[str] = field(default_factory=list)
    alerts: Counter[str] = field(default_factory=Counter)  # the answers' texts, for the report

    def fail(self, line: str) -> None:
        if len(self.failures) < 50:
            self.failures.append(line)

    def as_json(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out.pop("failures")
        out.pop("alerts")
        return out


class Fuzzer:
    """Sets up live games against a running bot, then sends `run(n)` seeded fuzz steps."""

    def __init__(self, tg: FakeTelegram, redis_url: str, seed: int = 0, batch: int = 16) -> None:
        self.tg = tg
        self.rng = random.Random(seed)
        self.batch = batch
        self.redis = redis.Redis.from_url(redis_url, decode_responses=True)
        self.stats = Stats()
        self.captured = Captured()
        self.seen: list[str] = []  # every callback data the bot ever sent, old versions included
        self._seen_set: set[str] = set()
        self._qids = itertools.count(1)
        self.users: list[SimUser] = []
        self.players: dict[int, SimUser] = {}
        self.chats: list[int] = []
        self.groups: list[int] = []
        self.boards: list[tuple[str, list[int]]] = []  # (kind, chats) of each live game: "group"/"private"

    # ------------------------------------------------------------------ setup

    def setup(self) -> None:
        """Two group games (short, long), two friend games, two computer games; spectators, strangers."""
        tg = self.tg
        names = iter(
            ["Alice", "Bob", "Вера", "Глеб", "Eve", "Fred", "Ира", "Hugo", "Jan", "Катя", "Lev", "Mia"]
        )
        langs = itertools.cycle(["en", "ru", "en", "ru-RU"])
        ppl = [SimUser(tg, 101 + i, next(names), next(langs)) for i in range(12)]
        self.players = {u.id: u for u in ppl}
        spectators = [SimUser(tg, 201, "Spectator"), SimUser(tg, 202, "Зритель", "ru")]
        strangers = [
            SimUser(tg, 301, "Stranger", "zz"),
            SimUser(tg, 302, "𝕏\u202eevil{name}%s", ""),
            SimUser(tg, 9_999_999_999, "Big id", "ru"),
        ]
        self.users = ppl + spectators + strangers
        for group, (a, b), variant in ((-1001, (0, 1), "short"), (-1002, (2, 3), "long")):
            start_group_game(tg, group, ppl[a], ppl[b], variant)
            self.groups.append(group)
            self.boards.append(("group", [group]))
        for (a, b), variant in (((4, 5), "short"), ((6, 7), "long")):
            start_friend_game(tg, ppl[a], ppl[b], variant)
            self.boards.append(("private", [ppl[a].id, ppl[b].id]))
        for a, variant in ((8, "short"), (9, "long")):
            start_computer_game(
                tg, ppl[a], variant, "Новичок" if ppl[a].language_code.startswith("ru") else "Beginner"
            )
            self.boards.append(("private", [ppl[a].id]))
        self.chats = self.groups + [u.id for u in self.users]
        self._remember()
        logging.getLogger().addHandler(self.captured)

    def close(self) -> None:
        logging.getLogger().removeHandler(self.captured)
        self.redis.close()

    # ------------------------------------------------------------------ what the bot shows

    def _remember(self) -> None:
        for chat in self.chats:
            for msg in self.tg.bot_messages(chat):
                for b in msg.buttons:
                    data = b.get("callback_data")
                    if data and data not in self._seen_set:
                        self._seen_set.add(data)
                        self.seen.append(str(data))

    def _name_to_id(self, name: str) -> int | None:
        return next((u.id for u in self.users if u.first_name == name), None)

    def _game_players(self, game_id: str) -> set[int]:
        raw = self.redis.get(f"nardy:game:{game_id}")
        if raw is None:
            return set()
        return {int(p["id"]) for p in json.loads(raw)["players"] if not p.get("level")}

    def displayed(self) -> dict[str, set[int] | None]:
        """Callback data on the bot's messages now -> who may press it (None: anyone)."""
        shown: dict[str, set[int] | None] = {}
        for chat in self.chats:
            for msg in self.tg.bot_messages(chat):
                mover: int | None = None
                if chat < 0 and msg.caption:
                    found = MOVER.search(msg.caption)
                    mover = self._name_to_id(found["name"]) if found else None
                for b in msg.buttons:
                    data = b.get("callback_data")
                    if not data:
                        continue
                    if data.split(":", 1)[0] in ("m", "mm", "u", "d"):
                        owner = {chat} if chat > 0 else ({mover} if mover is not None else set())
                    elif data.startswith("r:"):
                        owner = self._game_players(data.split(":")[1])
                    else:
                        owner = None
                    prev = shown.get(data, set())
                    shown[data] = None if owner is None or prev is None else prev | owner
        return shown

    def maybe_legal(self, user: int, data: Any, shown: dict[str, set[int] | None]) -> bool:
        """Could the bot rightly accept this press (and change state)? Otherwise it is forged."""
        if not isinstance(data, str):
            return False
        try:
            cb = callbacks.decode(data)
        except BadCallback:
            return False
        if cb.action in ("m", "mm", "u", "d", "r"):
            if data not in shown:
                return False
            owners = shown[data]
            return owners is None or user in owners
        if cb.action in ("ry", "rn", "v", "o", "l", "c", "fy", "fn", "s"):
            return cb.user == user  # menus carry their owner's id; the bot checks the presser
        return True  # j:, x:, xi: lobbies and invitations (anyone may join; the bot checks the rest)

    # ------------------------------------------------------------------ state

    def snapshot(self) -> dict[str, Any]:
        """Every nardy:* key but the bot's bookkeeping: throttles, inbound limits, the boards it is still to
        draw, the versions they show and the lease of the worker drawing them now (a press on a board that
        is behind, or a stale press repeated, redraws it: that is no change of the game), and the homes of
        messages (written once a message the bot sent earlier is out, whatever is pressed meanwhile)."""
        out: dict[str, Any] = {}
        for key in sorted(self.redis.scan_iter(match="nardy:*", count=1000)):
            if key.startswith(BOOKKEEPING + HOMES) or key.endswith(":homes"):
                continue
            kind = self.redis.type(key)
            if kind == "string":
                out[key] = self.redis.get(key)
            elif kind == "hash":
                fields: dict[str, str] = self.redis.hgetall(key)  # type: ignore[assignment]
                out[key] = {k: v for k, v in fields.items() if not k.startswith("v:")}
            elif kind == "set":
                out[key] = sorted(self.redis.smembers(key))
            else:
                out[key] = kind
        return out

    # ------------------------------------------------------------------ generators

    def _junk(self, n: int) -> str:
        rng = self.rng
        pool = string.ascii_letters + string.digits + ":_-"
        return "".join(rng.choice(JUNK) if rng.random() < 0.2 else rng.choice(pool) for _ in range(n))

    def mutate(self, data: str) -> str:
        rng = self.rng
        parts = data.split(":")
        how = rng.randrange(14)
        if how == 0 and data:  # flip one character
            i = rng.randrange(len(data))
            return (
                data[:i]
                + chr(rng.choice([ord(data[i]) ^ (1 << rng.randrange(7)), rng.randrange(32, 0x3000)]))
                + data[i + 1 :]
            )
        if how == 1:  # truncate
            return data[: rng.randrange(len(data) + 1)]
        if how == 2:  # oversized
            return data + self._junk(rng.choice([1, 10, 60, 500, 5000]))
        if how == 3 and len(parts) > 1:  # another game's / lobby's id
            other = rng.choice(self.seen).split(":")
            if len(other) > 1:
                parts[1] = other[1]
            return ":".join(parts)
        if how == 4 and len(parts) > 2:  # another version: older, newer, huge, negative, padded
            v = parts[2]
            n = int(v) if v.isascii() and v.isdecimal() else 0  # "፱" is a digit int() refuses
            parts[2] = str(rng.choice([n - 1, n + 1, n - 5, 0, 10**9 - 1, 10**12, -1]))
            if rng.random() < 0.2:
                parts[2] = "0" + parts[2]
            return ":".join(parts)
        if how == 5:  # another user's id
            user = rng.choice(self.users).id
            return re.sub(r"\d{3,}$", str(user), data) if re.search(r"\d{3,}$", data) else f"{data}:{user}"
        if how == 6:  # junk inserted
            i = rng.randrange(len(data) + 1)
            return data[:i] + rng.choice(JUNK) + data[i:]
        if how == 7:  # a trailing newline or space
            return data + rng.choice(["\n", " ", "\t", "\x00"])
        if how == 8:  # non-ASCII digits look like digits to \d
            return (
                data.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
                if rng.random() < 0.5
                else (data.translate(str.maketrans("0123456789", "０１２３４５６７８９")))
            )
        if how == 9 and len(parts) > 3:  # another point / die
            parts[rng.choice([3, 4][: len(parts) - 3])] = str(rng.choice([0, 1, 6, 7, 24, 25, 26, 99, -3]))
            return ":".join(parts)
        if how == 10:  # another action with the same fields
            parts[0] = rng.choice(ACTIONS)
            return ":".join(parts)
        if how == 11:  # a field dropped or doubled
            if len(parts) > 1 and rng.random() < 0.5:
                del parts[rng.randrange(1, len(parts))]
            else:
                parts.append(rng.choice(parts))
            return ":".join(parts)
        if how == 12:  # upper case, lone surrogates
            return data.upper() if rng.random() < 0.5 else data + "\udcff"
        return data  # pressed as it is, by whoever, under whatever message

    def random_data(self) -> str:
        rng = self.rng
        action = rng.choice(ACTIONS)
        fields = [
            rng.choice(
                [
                    str(rng.randrange(-5, 40)),
                    str(rng.choice(self.users).id),
                    self._junk(rng.randrange(0, 12)),
                    rng.choice(["short", "long", "c", "f", "beginner", "expert"]),
                ]
            )
            for _ in range(rng.randrange(0, 6))
        ]
        return ":".join([action, *fields])

    def pick_data(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.10:
            return self.random_data()
        if roll < 0.15:
            return self._junk(rng.randrange(0, 80))
        recent = self.seen[-300:]  # mostly the newest buttons: current versions, live games
        data = rng.choice(recent if rng.random() < 0.7 else self.seen)
        if roll < 0.50:
            return data  # a real button: by the wrong person, an old version, under another message
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            data = self.mutate(data)
        return data

    def random_message(self) -> StoredMessage | None:
        chat = self.rng.choice(self.chats)
        msgs = self.tg.bot_messages(chat)
        return self.rng.choice(msgs) if msgs else None

    # ------------------------------------------------------------------ sending

    def _press(self, user: SimUser, msg: StoredMessage | None, data: Any) -> str:
        """Push a callback query; without `msg` it comes like an inline message's (no message)."""
        if msg is not None and self.rng.random() < 0.97:
            return self.tg.press(user.json, msg, data)
        qid = f"fz{next(self._qids)}"
        payload: dict[str, Any] = {"id": qid, "from": user.json, "chat_instance": "fuzz"}
        if msg is None or self.rng.random() < 0.5:
            payload["inline_message_id"] = "AAAAfuzz"
        else:  # an old message: Telegram sends it as inaccessible (date 0)
            payload["message"] = {
                "chat": {"id": msg.chat_id, "type": "private" if msg.chat_id > 0 else "group"},
                "message_id": msg.message_id,
                "date": 0,
            }
        if data is not None:
            payload["data"] = data
        else:
            payload["game_short_name"] = "nardy"
        self.tg.push_update("callback_query", payload)
        return qid

    def _wait(self, qid: str) -> CallbackAnswer | None:
        try:
            return self.tg.wait_answer(qid, timeout=15)
        except TimeoutError:
            return None

    def _check_answer(self, qid: str, data: Any, forged: bool) -> None:
        answer = self._wait(qid)
        if answer is None:
            self.stats.unanswered += 1
            self.stats.fail(f"press {data!r}: no answer")
            return
        self.stats.answers += 1
        self.stats.alerts[str(answer.text)] += 1
        if answer.text in IMPOLITE:
            self.stats.impolite += 1
            self.stats.fail(f"press {data!r}: answered {answer.text!r}")
        elif forged and not (answer.text and answer.text.strip() and answer.show_alert):
            self.stats.impolite += 1
            self.stats.fail(f"forged press {data!r}: answered {answer!r}, expected a polite alert")

    def forged_batch(self) -> None:
        """Up to `batch` presses that cannot be legal, at once; nothing may change."""
        shown = self.displayed()
        before = self.snapshot()
        sent: list[tuple[str, Any]] = []
        tries = 0
        while len(sent) < self.batch and tries < self.batch * 4:
            tries += 1
            user = self.rng.choice(self.users)
            data: Any = self.pick_data() if self.rng.random() > 0.003 else None
            if self.maybe_legal(user.id, data, shown):
                continue
            sent.append((self._press(user, self.random_message(), data), data))
        for qid, data in sent:
            self._check_answer(qid, data, forged=True)
        self.stats.presses += len(sent)
        self.stats.forged += len(sent)
        after = self.snapshot()
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            self.stats.forbidden_changes += 1
            self.stats.fail(f"forged presses {[d for _, d in sent]!r} changed {changed}")

    def legal_press(self) -> None:
        """A press the bot should accept: a move, Undo, Done or Rematch by the right player, alone."""
        kind, chats = self.rng.choice(self.boards)
        choices: list[tuple[SimUser, StoredMessage, str]] = []
        for chat in chats:
            photos = [m for m in self.tg.bot_messages(chat) if m.photo is not None]
            if not photos:
                continue
            msg = photos[-1]
            datas = [str(b["callback_data"]) for b in msg.buttons if b.get("callback_data")]
            if not datas:
                continue
            if kind == "group":
                found = MOVER.search(msg.caption or "")
                mover = self._name_to_id(found["name"]) if found else None
                if any(d.startswith("r:") for d in datas):
                    players = self._game_players(datas[0].split(":")[1])
                    mover = self.rng.choice(sorted(players)) if players else None
                if mover is None:
                    continue
                user = self.players[mover]
            else:
                user = self.players[chat]
            home = [
                d
                for d in datas
                if d.startswith(("m:", "p:"))
                and any("⌂" in b["text"] and b.get("callback_data") == d for b in msg.buttons)
            ]
            moves = [d for d in datas if d.startswith(("m:", "mm:", "p:"))]
            done = [d for d in datas if d.startswith("d:")]
            undo = [d for d in datas if d.startswith("u:")]
            if done and (not moves or self.rng.random() < 0.5):
                pick = done[0]
            elif undo and self.rng.random() < 0.05:
                pick = undo[0]
            elif moves:
                pick = self.rng.choice(home or moves)
            else:
                pick = self.rng.choice(datas)
            choices.append((user, msg, pick))
        if not choices:
            return
        user, msg, data = self.rng.choice(choices)
        self._single(user, msg, data)

    def _single(self, user: SimUser, msg: StoredMessage | None, data: str) -> None:
        before = self.snapshot()
        qid = self._press(user, msg, data) if msg is not None else self.tg.press(user.json, msg, data)  # type: ignore[arg-type]
        self._check_answer(qid, data, forged=False)
        self.stats.presses += 1
        self.stats.legal += 1
        if self.snapshot() != before:
            self.stats.state_changes += 1
        self._remember()

    def self_authorized_press(self) -> None:
        """A mutated press that may be legal (a menu with the presser's own id): alone, may change state."""
        shown = self.displayed()
        for _ in range(20):
            user = self.rng.choice(self.users)
            data = self.pick_data()
            if data.startswith("fy:") and user.id in self.players:
                continue  # a player deleting their data would end the live games; tested in test_forget
            if self.maybe_legal(user.id, data, shown):
                msg = self.random_message()
                if msg is not None:
                    self._single(user, msg, data)
                return

    def message(self) -> None:
        """A command with odd arguments, or any text, in some chat; no game record may change."""
        rng = self.rng
        user = rng.choice(self.users)
        chat = rng.choice([user.id, *self.groups]) if rng.random() < 0.8 else rng.choice(self.chats)
        if rng.random() < 0.7:
            text = rng.choice(COMMANDS)
            if rng.random() < 0.5:
                text += " " + rng.choice(
                    [
                        self._junk(rng.randrange(1, 40)),
                        rng.choice(self.seen),
                        "a b c",
                        str(rng.randrange(-9, 99)),
                    ]
                )
            self.stats.commands += 1
        else:
            text = self._junk(rng.randrange(1, 200))
            self.stats.texts += 1
        text = text.replace("\udcff", "?").replace("\ud800", "?")  # a message text is valid UTF-8
        if not text.strip():
            text = "."
        before = {k: v for k, v in self.snapshot().items() if GAME_KEY.match(k)}
        sent = user.say(text, chat)
        try:  # the bot answers most messages; wait briefly for its reply (or its silence)
            self.tg.wait_for(lambda: self.tg.pending_updates() == 0, 10, "the bot to take the update")
            user.wait_message(lambda m: m.message_id > sent.message_id, chat, timeout=0.3)
        except TimeoutError:
            pass
        after = {k: v for k, v in self.snapshot().items() if GAME_KEY.match(k)}
        if after != before:
            self.stats.forbidden_changes += 1
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            self.stats.fail(f"message {text!r} in chat {chat} changed {changed}")
        self._remember()

    # ------------------------------------------------------------------ the run

    def run(self, steps: int, progress: bool = False) -> Stats:
        """About `steps` presses and messages in all (forged ones go in batches)."""
        rng = self.rng
        t0 = time.monotonic()
        while self.stats.presses + self.stats.commands + self.stats.texts < steps:
            roll = rng.random()
            if roll < 0.25:
                self.legal_press()
            elif roll < 0.30:
                self.self_authorized_press()
            elif roll < 0.38:
                self.message()
            else:
                self.forged_batch()
            self.stats.steps += 1
            if progress and self.stats.steps % 500 == 0:
                done = self.stats.presses + self.stats.commands + self.stats.texts
                print(f"  {done} sent, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
        self.stats.exceptions = len(self.captured.records)
        for line in self.captured.lines()[:20]:
            self.stats.fail(f"log: {line}")
        return self.stats
