"""Exactly once, against the real Redis: workers racing to apply a tournament's results and pair its players,
a worker killed between the tournament's save and its games' starts, a result in the inbox of a worker that
died before applying it, the last game ending as the arena's time runs out, 300 sign-ups at once."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from dataclasses import replace

from bot.model.flow import ScriptedDice, engine_computer, resign
from bot.model.table import Person
from bot.model.tournament import Tournament
from bot.service import tournaments
from bot.service.context import Services
from bot.service.settings import SettingsCache
from bot.storage import Storage

GROUP = -100777
NOW = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def services(redis_url: str, clock: Clock, timeout: float = 10.0) -> Services:
    """A worker's services; Redis may take `timeout` s (generous: the tests are about atomicity, on a busy
    machine, not about latency)."""
    storage = Storage.from_url(redis_url, timeout=timeout)
    return Services(
        storage, ScriptedDice(seed=5), engine_computer(seed=1), SettingsCache(storage), clock=clock
    )


async def arena_of(s: Services, n: int, minutes: int = 5) -> Tournament:
    t = await tournaments.create(s, GROUP, "Club", Person(1, "P1"), "arena", "short-blitz", minutes, 0)
    for uid in range(1, n + 1):
        await tournaments.join(s, t.id, Person(uid, f"P{uid}"))
    t = await tournaments.start(s, t.id, 1)
    started = await tournaments.start_games(s, t)
    assert len(started) == n // 2
    return t


async def end_by_resignation(s: Services, game_id: str, loser: int) -> None:
    table = await s.storage.games.load(game_id)
    assert table is not None
    await s.storage.games.save(s.stamped(resign(table, loser, table.number)))


def one_game_each(t: Tournament) -> None:
    """Nobody is in two running games, and no pairing was made twice."""
    busy = Counter(u for g in t.running_games for u in g.players)
    assert all(n == 1 for n in busy.values()), busy
    assert len({g.game for g in t.games}) == len(t.games)


async def test_workers_racing_apply_each_result_once_and_pair_once(redis_url: str) -> None:
    clock = Clock()
    workers = [services(redis_url, clock) for _ in range(4)]
    try:
        t = await arena_of(workers[0], 6)
        for g in t.games:
            await end_by_resignation(workers[0], g.game, g.players[1])  # white wins each
        clock.now += 1
        for _ in range(3):
            await asyncio.gather(*(tournaments.advance(w, t.id) for w in workers))
        after = await workers[0].storage.tournaments.load(t.id)
        assert after is not None
        done = [g for g in after.games if g.done]
        assert [g.seq for g in sorted(done, key=lambda g: g.seq)] == [1, 2, 3]  # each result once
        assert sorted(s.points for s in after.standings()) == [0, 0, 0, 2, 2, 2]
        assert len(after.running_games) == 3  # paired again, once
        one_game_each(after)
        for g in after.running_games:  # and each of those games started once
            table = await workers[1].storage.games.load(g.game)
            assert table is not None and table.tournament is not None and table.tournament.id == t.id
        assert await workers[0].storage.tournaments.inbox(t.id) == []
    finally:
        for w in workers:
            await w.storage.close()


async def test_a_worker_killed_after_the_save_leaves_the_games_to_the_next(redis_url: str) -> None:
    clock = Clock()
    first, second = services(redis_url, clock), services(redis_url, clock)
    try:
        t = await arena_of(first, 4)
        for g in t.games:
            await end_by_resignation(first, g.game, g.players[0])
        # the first worker applies the inbox and pairs, saves, and dies before starting the games
        before = await first.storage.tournaments.load(t.id)
        assert before is not None
        inbox = await first.storage.tournaments.inbox(t.id)
        assert len(inbox) == 2
        counter = itertools.count(1)
        stepped = before
        for game_id in inbox:
            table = await first.storage.games.load(game_id)
            assert table is not None
            found = tournaments.result_of(table)
            assert found is not None
            stepped = stepped.record(game_id, *found)
        stepped = stepped.step(clock.now, lambda: f"k{next(counter)}")
        await first.storage.tournaments.save(stepped, before.version, clock.now, applied=len(inbox))
        assert [await first.storage.games.load(g.game) for g in stepped.running_games] == [None, None]
        # a result pushed again (a retried save) and the next worker's look: games started, nothing doubled
        _, after, started = await tournaments.advance(second, t.id)
        assert after is not None and len(started) == 2
        assert [g.seq for g in after.games if g.done] == [1, 2]
        _, again, started_again = await tournaments.advance(first, t.id)
        assert started_again == [] and again is not None and len(again.games) == 4
    finally:
        await first.storage.close()
        await second.storage.close()


async def test_the_last_game_ending_with_the_arenas_time_counts_and_ends_it(redis_url: str) -> None:
    clock = Clock()
    s = services(redis_url, clock)
    try:
        t = await arena_of(s, 4)
        clock.now = NOW + 300  # the time is up as the games end
        for g in t.games:
            await end_by_resignation(s, g.game, g.players[1])
        before, after, started = await tournaments.advance(s, t.id)
        assert after is not None and after.stage == "over" and started == []
        assert before is not None and before.stage == "running"
        assert sorted(x.points for x in after.standings()) == [0, 0, 2, 2]
        assert await s.storage.tournaments.of_chat(GROUP) is None
        last = await s.storage.tournaments.last_of_chat(GROUP)
        assert last is not None and last.id == t.id
        assert await s.storage.tournaments.due(NOW + 10_000) == []
    finally:
        await s.storage.close()


async def test_three_hundred_sign_ups_at_once_each_get_an_answer(redis_url: str) -> None:
    clock = Clock()
    workers = [services(redis_url, clock) for _ in range(6)]  # 50 connections each, as a worker has
    try:
        t = await tournaments.create(
            workers[0], GROUP, "Club", Person(1, "P1"), "arena", "short-blitz", 60, 5
        )
        people = [Person(1000 + i, f"P{i}") for i in range(300)]
        outcomes = await asyncio.gather(
            *(tournaments.join(workers[i % 6], t.id, p) for i, p in enumerate(people)), return_exceptions=True
        )
        joined = [o for o in outcomes if isinstance(o, Tournament)]
        refused = [o for o in outcomes if not isinstance(o, Tournament)]
        assert all(type(o).__name__ == "Refused" for o in refused), Counter(repr(o)[:80] for o in refused)
        stored = await workers[0].storage.tournaments.load(t.id)
        assert stored is not None
        assert len(stored.entrants) == len(joined)  # every answer true: signed up, or told to try again
        assert len({e.person.user_id for e in stored.entrants}) == len(stored.entrants)
        assert len(joined) == 300 and not refused  # one step each: no retry, nobody turned away
    finally:
        for w in workers:
            await w.storage.close()


async def test_a_game_ending_while_a_look_is_saved_leaves_the_tournament_due_at_once(redis_url: str) -> None:
    clock = Clock()
    s = services(redis_url, clock)
    try:
        t = await arena_of(s, 4)
        before = await s.storage.tournaments.load(t.id)
        assert before is not None
        # a look read the empty inbox; then a game ends (its id pushed, the tournament due now); then the
        # look saves, due in LOOK_AGAIN seconds: the inbox is not empty, so it stays due at once
        await end_by_resignation(s, t.games[0].game, t.games[0].players[1])
        await s.storage.tournaments.save(replace(before, version=before.version + 1), before.version, NOW + 5)
        assert await s.storage.tournaments.due(NOW) == [t.id]
        _, after, _ = await tournaments.advance(s, t.id)
        assert after is not None and after.games[0].done
        assert await s.storage.tournaments.due(NOW) == []
    finally:
        await s.storage.close()
