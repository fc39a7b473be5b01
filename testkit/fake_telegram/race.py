"""Racing players for the two-worker tests and bench/race.py: double taps, both players pressing at once.

Each round, the player on turn presses a legal button of the newest board; sometimes they tap it twice,
sometimes the other player presses the same button at the same moment. The fake may also deliver any
update twice (FakeTelegram.duplicate_rate). A round waits for every press's answer, then records what
happened: at most one press of a round may change the game (they all carry the same version).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field, fields

import redis

from bot.model.table import Table
from bot.storage.keys import game_key
from engine import Game
from testkit.fake_telegram.play import MOVER, board, data_of
from testkit.fake_telegram.server import FakeTelegram, StoredMessage
from testkit.fake_telegram.users import SimUser

# the refusals a losing press of a round may get (the winner's change came first)
POLITE = {
    "Someone was quicker. Look at the board again.",
    "This board is out of date. Use the latest message.",
    "It is not your turn.",
    "You are not playing in this game.",
    "This game is over or no longer exists.",
    "That move is not possible now.",
    "The board was behind; here it is now.",
    "The board has just changed. Look at it again.",
}


@dataclass
class RaceStats:
    """What the racing players did and what they were told."""

    rounds: int = 0
    presses: int = 0
    applied: int = 0  # presses answered without an alert: each must have changed the game once
    double_taps: int = 0
    both_at_once: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    applied_by_chat: Counter[int] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def add(self, other: RaceStats) -> None:
        self.rounds += other.rounds
        self.presses += other.presses
        self.applied += other.applied
        self.double_taps += other.double_taps
        self.both_at_once += other.both_at_once
        self.refusals.update(other.refusals)
        self.applied_by_chat.update(other.applied_by_chat)
        self.problems.extend(other.problems)


def _choose(rng: random.Random, datas: list[str]) -> str:
    moves = [d for d in datas if d.startswith(("m:", "p:"))]  # a single move, or a whole play
    done = [d for d in datas if d.startswith("d:")]
    undo = [d for d in datas if d.startswith("u:")]
    if undo and rng.random() < 0.05:
        return undo[0]
    if done and (not moves or rng.random() < 0.5):
        return done[0]
    return rng.choice(moves)


def race_game(
    tg: FakeTelegram,
    chat: int,
    users: tuple[SimUser, SimUser],
    rng: random.Random,
    rounds: int,
    double_tap: float = 0.25,
    both_at_once: float = 0.25,
    timeout: float = 30.0,
    max_presses: int | None = None,
) -> RaceStats:
    """Play `rounds` racing rounds on the group board of `chat` (a rematch when a game ends), or fewer
    once `max_presses` presses are made."""
    stats = RaceStats()
    by_name = {u.first_name: u for u in users}
    for _ in range(rounds):
        if max_presses is not None and stats.presses >= max_presses:
            break
        msg = board(tg, chat)
        datas = [str(b.get("callback_data", "")) for b in msg.buttons]
        rematch = data_of(msg, "r:")
        if rematch:
            mover, data = users[rng.randrange(2)], rematch[0]
        else:
            found = MOVER.search(msg.caption or "")
            if not found:
                stats.problems.append(f"chat {chat}: no player on turn in {msg.caption!r}")
                return stats
            mover, data = by_name[found["name"]], _choose(rng, datas)
        other = users[1] if mover is users[0] else users[0]
        presses = [(mover, data)]
        if rng.random() < double_tap:
            presses.append((mover, data))
            stats.double_taps += 1
        if rng.random() < both_at_once:
            presses.insert(rng.randrange(len(presses) + 1), (other, data))
            stats.both_at_once += 1
        qids = [str(user.press_data(msg, d, wait=False)) for user, d in presses]
        answers = [tg.wait_answer(qid, timeout) for qid in qids]
        ok = [a for a in answers if not a.show_alert]
        if ok:  # the board is drawn after the answer: wait for it, as a person does before the next press
            _wait_redrawn(tg, msg, timeout, new_board=data.startswith("r:"))
        stats.rounds += 1
        stats.presses += len(qids)
        stats.applied += len(ok)
        stats.applied_by_chat[chat] += len(ok)
        if len(ok) != 1:  # a legal button of the newest board: exactly one of its presses wins
            stats.problems.append(
                f"chat {chat}: {len(ok)} of {len(qids)} presses of {data} accepted: {[a.text for a in answers]}"
            )
        for a in answers:
            if a.show_alert:
                stats.refusals[str(a.text)] += 1
                if a.text not in POLITE:
                    stats.problems.append(f"chat {chat}: {data} got an unexpected alert {a.text!r}")
    return stats


def _wait_redrawn(tg: FakeTelegram, msg: StoredMessage, timeout: float, new_board: bool = False) -> None:
    """Until the board `msg` is edited, or (`new_board`: a rematch) a newer board is sent in its chat."""

    def redrawn() -> bool:
        now = tg.message_now(msg.chat_id, msg.message_id)
        if now.reply_markup != msg.reply_markup and not new_board:  # its buttons carry the new version
            return True
        return any(
            chat == msg.chat_id and m.from_bot and m.photo is not None and m.message_id > msg.message_id
            for (chat, _), m in tg._state.messages.items()
        )

    tg.wait_for(redrawn, timeout, f"the board {msg.message_id} in chat {msg.chat_id} redrawn")


NOTATION: list[tuple[str, str]] | None = None  # set to a list to collect plays written differently


def check_games(
    redis_url: str, game_ids: dict[int, str], versions_before: dict[int, int], stats: RaceStats
) -> list[str]:
    """Every game replays legally from its record, and changed exactly once per accepted press."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    problems: list[str] = []
    try:
        for chat, game_id in game_ids.items():
            raw = client.get(game_key(game_id))
            if raw is None:
                problems.append(f"chat {chat}: game {game_id} is gone")
                continue
            table = Table.from_json(json.loads(raw))
            replayed = Game.replay(table.game.record())
            differ = [
                f.name
                for f in fields(Game)
                if f.name != "history" and getattr(replayed, f.name) != getattr(table.game, f.name)
            ]
            if len(replayed.history) != len(table.game.history):
                differ.append("number of turns")
            for mine, again in zip(table.game.history, replayed.history, strict=False):
                if (mine.side, mine.dice) != (again.side, again.dice):
                    differ.append(f"turn {mine} / {again}")
                elif mine.play != again.play and NOTATION is not None:
                    NOTATION.append((mine.play, again.play))
            if differ:
                problems.append(f"chat {chat}: game {game_id} replays to a different {differ}")
            table.step()  # the turn in progress is legal too
            changes = table.version - versions_before[chat]
            if changes != stats.applied_by_chat[chat]:
                problems.append(
                    f"chat {chat}: game {game_id} changed {changes} times, "
                    f"but {stats.applied_by_chat[chat]} presses were accepted"
                )
    finally:
        client.close()
    return problems


def game_of(redis_url: str, chat: int) -> tuple[str, int]:
    """The id and version of the chat's current game, straight from Redis."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        found = client.get(f"nardy:chat:{chat}:game")
        assert found is not None, f"chat {chat} has no game"
        game_id = str(found)
        raw = client.get(game_key(game_id))
        assert raw is not None, f"game {game_id} of chat {chat} is gone"
        return game_id, int(json.loads(raw)["version"])
    finally:
        client.close()
