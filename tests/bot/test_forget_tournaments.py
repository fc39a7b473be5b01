"""/forget in the tournaments, against the real Redis (bot/storage/tournaments.py, lua/forget_in_tourney.lua):
the user's name replaced wherever a record names them, a sign-up withdrawn, the rest untouched, and a change
made from the record as it was before is refused (compare-and-set on the version)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import redis

from bot.model.flow import ScriptedDice, engine_computer
from bot.model.table import Person
from bot.model.tournament import FORGOTTEN_NAME
from bot.service import tournaments
from bot.service.context import Services
from bot.service.settings import SettingsCache
from bot.storage import Storage, VersionConflict
from bot.storage.keys import tourney_key, tourney_players_key
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import reply_to
from testkit.fake_telegram.runner import BotRunner

NOW = 1_800_000_000.0
GROUP = -1002468


@pytest.fixture
async def s(redis_url: str) -> AsyncIterator[Services]:
    storage = Storage.from_url(redis_url, timeout=10.0)
    yield Services(
        storage, ScriptedDice(seed=5), engine_computer(seed=1), SettingsCache(storage), clock=lambda: NOW
    )
    await storage.close()


async def running_arena(s: Services, chat: int, creator: int) -> str:
    t = await tournaments.create(
        s, chat, "Club", Person(creator, f"P{creator}"), "arena", "short-blitz", 5, 0
    )
    for uid in (1, 2, 3, 4):
        await tournaments.join(s, t.id, Person(uid, f"P{uid}"))
    await tournaments.start(s, t.id, creator)
    return t.id


async def raw(s: Services, key: str) -> str:
    return json.dumps(await s.storage.raw(key), ensure_ascii=False)


async def test_forget_replaces_the_name_of_a_player_and_creator_and_leaves_the_others(s: Services) -> None:
    tid = await running_arena(s, -2001, creator=2)
    other = await running_arena(s, -2002, creator=1)
    before = await s.storage.tournaments.load(tid)
    untouched = await raw(s, tourney_key(other))
    assert before is not None
    await s.storage.tournaments.forget_user(5)  # in none of them
    assert await raw(s, tourney_key(other)) == untouched
    assert await s.storage.tournaments.forget_user(2) == 2
    after = await s.storage.tournaments.load(tid)
    assert after is not None
    assert after.version == before.version + 1
    assert after.creator.name == FORGOTTEN_NAME
    assert [e.person.name for e in after.entrants] == ["P1", FORGOTTEN_NAME, "P3", "P4"]
    assert after.games == before.games  # the pairings keep the id: the standings still add up
    assert [x.points for x in after.standings()] == [x.points for x in before.standings()]
    assert "P2" not in await raw(s, tourney_key(tid))
    assert "P2" not in await raw(s, tourney_key(other))


async def test_forget_withdraws_a_sign_up_and_renames_the_creator_of_one_signing_up(
    s: Services, redis_url: str
) -> None:
    t = await tournaments.create(s, -2003, None, Person(7, "Creator"), "knockout", "short-blitz", 0, 0)
    await tournaments.join(s, t.id, Person(7, "Creator"))
    await tournaments.join(s, t.id, Person(8, "Other"))
    assert await s.storage.tournaments.forget_user(7) == 1
    after = await s.storage.tournaments.load(t.id)
    assert after is not None
    assert after.creator.name == FORGOTTEN_NAME
    assert [e.person.user_id for e in after.entrants] == [8]
    assert "Creator" not in await raw(s, tourney_key(t.id))
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    assert "Creator" not in json.dumps(client.hgetall(tourney_players_key(t.id)))
    client.close()


async def test_a_change_made_before_the_forget_cannot_write_the_name_back(s: Services) -> None:
    tid = await running_arena(s, -2004, creator=1)
    stale = await s.storage.tournaments.load(tid)
    assert stale is not None
    await s.storage.tournaments.forget_user(3)
    with pytest.raises(VersionConflict):
        await s.storage.tournaments.save(stale.with_card(99), stale.version, None)
    again = await s.storage.tournaments.load(tid)
    assert again is not None and again.name_of(3) == FORGOTTEN_NAME


def test_the_forget_command_withdraws_a_sign_up_and_leaves_the_name_nowhere(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    tg.add_chat(GROUP, "supergroup", "Nardy club")
    ann, bob = SimUser(tg, 1, "Ann"), SimUser(tg, 2, "Bobbington")
    menu = reply_to(ann, "/tournament", GROUP)
    for choice in ("Knockout", "Short nardy", "Matches to 3", "live", "In 15 min"):
        assert not ann.press(menu, choice).show_alert
    assert not bob.press(tg.message(GROUP, menu.message_id), "Join").show_alert
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        tid = next(k for k in client.scan_iter(match="nardy:tourney:*") if k.count(":") == 2).split(":")[2]
        assert client.hexists(tourney_players_key(tid), "2")
        assert not bob.press(reply_to(bob, "/forget"), "Yes, delete my data").show_alert
        assert not client.hexists(tourney_players_key(tid), "2")
        stored = [str(client.get(k)) for k in client.scan_iter(match="nardy:tourney:*", _type="string")] + [
            str(client.hgetall(k)) for k in client.scan_iter(match="nardy:tourney:*", _type="hash")
        ]
        assert "Ann" in "".join(stored)  # the check reads the names where they are
        assert "Bobbington" not in "".join(stored)
    finally:
        client.close()
    assert not bot.errors.records, bot.errors.messages()
