"""Tournaments: a group's arena or knockout (bot/model/tournament.py), its inbox of ended games and the set of
tournaments due a look.

A tournament is one JSON record changed only by compare-and-set (lua/save_tournament.lua): the same script
keeps the group's pointer to its one live tournament, the tournament's place in the due set, and drops the
inbox entries the change applied. A tournament game's end is pushed onto the inbox by the game's own save
(lua/save_game.lua), so a result is never lost between the game and the tournament; a result applied twice
changes nothing (Tournament.record), so two workers applying the same inbox converge.
"""

from __future__ import annotations

import json
from dataclasses import replace

import redis.asyncio as aioredis

from bot.model.tournament import MAX_PLAYERS, Entrant, Tournament
from bot.storage import scripts
from bot.storage.client import ChatBusy, VersionConflict, compact_json, redis_errors
from bot.storage.keys import (
    ACTIVE_TTL,
    CHAT_TTL,
    TOURNEY_KEPT,
    TOURNEYS_KEY,
    chat_last_tourney_key,
    chat_tourney_admins_key,
    chat_tourney_key,
    tourney_inbox_key,
    tourney_key,
    tourney_players_key,
)

SIGN_UP_ANSWERS = ("ok", "in", "out", "full", "closed")


class TournamentStore:
    """Load, create and save (compare-and-set) tournaments; their inboxes; the tournaments due a look."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        self._save_script = scripts.register(client, "save_tournament")
        self._sign_up_script = scripts.register(client, "sign_up")

    async def load(self, tourney_id: str, players: bool = True) -> Tournament | None:
        """The tournament; while it signs up, with its sign-ups as its entrants (in the order they came), unless
        `players` is False (a Join needs only the settings: 300 at once do not each read 300 sign-ups)."""
        if not players:
            async with redis_errors(f"load tournament {tourney_id}"):
                raw = await self._r.get(tourney_key(tourney_id))
            return None if raw is None else Tournament.from_json(json.loads(raw))
        async with redis_errors(f"load tournament {tourney_id}"), self._r.pipeline(transaction=True) as pipe:
            pipe.get(tourney_key(tourney_id))
            pipe.hvals(tourney_players_key(tourney_id))
            raw, found = await pipe.execute()
        if raw is None:
            return None
        t = Tournament.from_json(json.loads(raw))
        if t.stage != "signup":
            return t
        ordered = sorted((json.loads(p) for p in found), key=lambda d: (float(d["at"]), int(d["p"]["id"])))
        return replace(t, entrants=tuple(Entrant.from_json(d) for d in ordered))

    async def sign_up(self, t: Tournament, entrant: Entrant | None, user_id: int, at: float) -> str:
        """Join (`entrant`) or leave (None) `t` while it signs up, in one atomic step: one of SIGN_UP_ANSWERS."""
        data = "" if entrant is None else compact_json({**entrant.to_json(), "at": at})
        async with redis_errors(f"sign up {user_id} for tournament {t.id}"):
            answer = await self._sign_up_script(
                keys=[tourney_key(t.id), tourney_players_key(t.id)],
                args=["leave" if entrant is None else "join", user_id, data, MAX_PLAYERS[t.kind], ACTIVE_TTL],
            )
        return str(answer)

    async def of_chat(self, chat_id: int) -> Tournament | None:
        """The group's live tournament, if any."""
        async with redis_errors(f"chat {chat_id} tournament"):
            found = await self._r.get(chat_tourney_key(chat_id))
        return None if found is None else await self.load(str(found))

    async def last_of_chat(self, chat_id: int) -> Tournament | None:
        """The group's last finished tournament (kept TOURNEY_KEPT)."""
        async with redis_errors(f"chat {chat_id} last tournament"):
            found = await self._r.get(chat_last_tourney_key(chat_id))
        return None if found is None else await self.load(str(found))

    async def admins_only(self, chat_id: int) -> bool:
        """Whether only the group's administrators may create a tournament there."""
        async with redis_errors(f"chat {chat_id} tournament setting"):
            return bool(await self._r.exists(chat_tourney_admins_key(chat_id)))

    async def set_admins_only(self, chat_id: int, only: bool) -> None:
        async with redis_errors(f"chat {chat_id} tournament setting"):
            if only:
                await self._r.set(chat_tourney_admins_key(chat_id), "1", ex=CHAT_TTL)
            else:
                await self._r.delete(chat_tourney_admins_key(chat_id))

    async def inbox(self, tourney_id: str) -> list[str]:
        """The ids of the tournament's games that ended and are not applied yet, oldest first."""
        async with redis_errors(f"tournament {tourney_id} inbox"):
            found = await self._r.lrange(tourney_inbox_key(tourney_id), 0, -1)
        return [str(x) for x in found]

    async def due(self, now: float, count: int = 100) -> list[str]:
        """Ids of the tournaments due a look by `now`."""
        async with redis_errors("tournaments due"):
            found = await self._r.zrangebyscore(TOURNEYS_KEY, "-inf", now, start=0, num=count)
        return [str(x) for x in found]

    async def create(self, t: Tournament, due: float | None) -> None:
        """Store a new tournament as its group's live one: ChatBusy (the other's id) if the group has one."""
        await self._write(t, None, due, 0)

    async def save(self, t: Tournament, expected: int, due: float | None, applied: int = 0) -> None:
        """Compare-and-set: store `t` only if the stored version is `expected`, the one it was made from (one
        change may move the version on by several steps; VersionConflict else);
        `applied`: how many of the inbox's first entries it applied; `due`: when it is next due a look
        (None: never)."""
        if t.version <= expected:
            raise ValueError(f"tournament {t.id}: version {t.version} saved over {expected}")
        await self._write(t, expected, due, applied)

    async def _write(self, t: Tournament, expected: int | None, due: float | None, applied: int) -> None:
        finished = t.stage == "over"
        signing = t.stage == "signup"  # the sign-ups live in their own hash until the start
        args: list[str | int | float] = [
            "" if expected is None else str(expected),
            compact_json((replace(t, entrants=()) if signing else t).to_json()),
            ACTIVE_TTL if t.live else TOURNEY_KEPT,
            t.id,
            "" if due is None else repr(round(due, 3)),
            applied,
            "1" if t.live else "0",
            "1" if finished else "0",
            ",".join(sorted(str(e.person.user_id) for e in t.entrants)),
            _counted(t),
        ]
        keys = [
            tourney_key(t.id),
            chat_tourney_key(t.chat_id),
            TOURNEYS_KEY,
            tourney_inbox_key(t.id),
            chat_last_tourney_key(t.chat_id),
            tourney_players_key(t.id),
        ]
        async with redis_errors(f"save tournament {t.id} v{t.version}"):
            saved, stored, reason = await self._save_script(keys=keys, args=args)
        if not saved:
            if reason == "busy":
                raise ChatBusy(
                    f"tournament {t.id}: group {t.chat_id} has the live tournament {stored}", stored
                )
            raise VersionConflict(
                f"tournament {t.id}: stored version {stored or None}, this change was made from {expected}"
            )


def _counted(t: Tournament) -> str:
    """What an ended tournament counts in its players' statistics (save_tournament.lua's ARGV[10])."""
    if t.stage != "over":
        return ""
    return compact_json({"players": [e.person.user_id for e in t.entrants], "champion": t.champion()})
