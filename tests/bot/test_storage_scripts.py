"""The storage's atomic scripts against a real redis-server: chat pointers, lobbies, the unshown boards and
their drawing lease, inbound token buckets and throttles."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from bot.model.flow import ScriptedDice, resign, start_table
from bot.model.table import Lobby, Person, Table
from bot.storage import ChatBusy, Gone, LobbyTaken, Storage
from bot.storage.keys import limit_key
from bot.storage.limits import Bucket
from engine import Game, Play

ALICE, BOB, CAROL = Person(1, "Alice"), Person(2, "Bob"), Person(3, "Carol")


async def no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in these games")


async def _computer_free(game_id: str, players: tuple[Person, Person], chat_id: int | None = None) -> Table:
    mode = "group" if chat_id is not None else "friend"
    return await start_table(
        game_id,
        mode,
        "short",
        players[0],
        players[1],
        "en",
        ScriptedDice([6, 1]),
        no_computer,
        chat_id,
    )


@pytest.fixture
async def storage(redis_url: str) -> AsyncIterator[Storage]:
    store = Storage.from_url(redis_url)
    yield store
    await store.close()


async def test_a_chat_with_a_live_game_refuses_a_second_live_game_but_not_one_after_the_first_ended(
    storage: Storage,
) -> None:
    first = await _computer_free("first", (ALICE, BOB), chat_id=-10)
    await storage.games.create(first)
    second = await _computer_free("second", (CAROL, BOB), chat_id=-10)
    with pytest.raises(ChatBusy) as busy:
        await storage.games.create(second)
    assert busy.value.game_id == "first"
    assert await storage.games.load("second") is None, "a refused start writes nothing"
    await storage.games.save(resign(first, ALICE.user_id, first.number))
    await storage.games.create(second)  # the first game is over: the chat is free
    current = await storage.games.game_of_chat(-10)
    assert current is not None and current.id == "second"


async def test_two_starts_in_one_chat_at_once_leave_exactly_one_game_that_the_chat_points_to(
    storage: Storage,
) -> None:
    tables = [await _computer_free(f"g{i}", (ALICE, BOB)) for i in range(6)]  # the same two private chats
    results = await asyncio.gather(*(storage.games.create(t) for t in tables), return_exceptions=True)
    winners = [t for t, r in zip(tables, results, strict=True) if r is None]
    assert len(winners) == 1, results
    assert all(isinstance(r, ChatBusy) for r in results if r is not None)
    for chat in (ALICE.user_id, BOB.user_id):
        current = await storage.games.game_of_chat(chat)
        assert current is not None and current.id == winners[0].id


async def test_a_finished_game_saved_again_never_takes_the_chat_back_from_a_live_one(
    storage: Storage,
) -> None:
    old = await _computer_free("old", (ALICE, BOB), chat_id=-11)
    await storage.games.create(old)
    over = resign(old, ALICE.user_id, old.number)
    await storage.games.save(over)
    new = await _computer_free("new", (CAROL, BOB), chat_id=-11)
    await storage.games.create(new)
    await storage.games.save(
        over.bump(players=over.players)
    )  # e.g. a player of the old game forgets their data
    current = await storage.games.game_of_chat(-11)
    assert current is not None and current.id == "new"


async def test_a_lobby_belongs_to_its_starter_until_it_is_joined_or_cancelled(storage: Storage) -> None:
    alices = Lobby("lobby1", -20, "short", ALICE, message_id=5)
    assert await storage.rooms.open_lobby(alices) is None
    with pytest.raises(LobbyTaken) as taken:
        await storage.rooms.open_lobby(Lobby("lobby2", -20, "long", BOB, message_id=6))
    assert taken.value.lobby is not None and taken.value.lobby.starter == ALICE
    again = Lobby("lobby3", -20, "long", ALICE, message_id=7)
    assert await storage.rooms.open_lobby(again) == alices, "her own lobby is replaced and returned"
    table = await _computer_free("lobby3", (ALICE, BOB), chat_id=-20)
    with pytest.raises(Gone):
        await storage.rooms.start_from_lobby(alices, replace(table, id="lobby1"))  # the replaced one is gone
    await storage.rooms.start_from_lobby(again, table)
    assert await storage.rooms.lobby(-20) is None
    with pytest.raises(LobbyTaken) as game_on:
        await storage.rooms.open_lobby(Lobby("lobby4", -20, "short", CAROL))
    assert game_on.value.game_id == "lobby3"


async def test_a_saved_change_is_unshown_until_its_boards_show_it_and_the_drawing_lease_is_let_go(
    storage: Storage,
) -> None:
    table = await _computer_free("g", (ALICE, BOB), chat_id=-30)
    await storage.games.create(table)
    assert await storage.schedules.unshown() == ["g"]
    held = await storage.games.hold_draw("g", "worker-a", 20)
    assert held == ({}, {})
    assert isinstance(await storage.games.hold_draw("g", "worker-b", 20), float), "one drawer at a time"
    newer = table.bump()
    await storage.games.save(newer)  # saved while worker-a draws the older version
    assert await storage.games.shown("g", table.version, ("g",), True, "worker-a") == newer.version
    assert await storage.schedules.unshown() == ["g"], "the newer version is not shown yet"
    assert isinstance(await storage.games.hold_draw("g", "worker-b", 20), float), "worker-a keeps the lease"
    assert await storage.games.shown("g", newer.version, ("g",), True, "worker-a") == newer.version
    assert await storage.schedules.unshown() == []
    assert await storage.games.hold_draw("g", "worker-b", 20) == ({}, {"g": newer.version}), "let go"


async def test_a_due_unshown_game_is_claimed_by_one_healer_for_a_lease(storage: Storage) -> None:
    table = await _computer_free("g", (ALICE, BOB), chat_id=-31)
    await storage.games.create(table)
    assert await storage.schedules.unshown(due_by=storage.schedules.now()) == [], (
        "the saving worker has SHOW_LEASE seconds"
    )
    assert await storage.schedules.claim_unshown("g", force=True)
    await storage.schedules.postpone_unshown("g", -1)  # overdue
    assert await storage.schedules.unshown(due_by=storage.schedules.now()) == ["g"]
    claims = await asyncio.gather(*(storage.schedules.claim_unshown("g", lease=30) for _ in range(5)))
    assert sorted(claims) == [False] * 4 + [True]


async def test_token_buckets_allow_a_burst_then_refuse_with_one_notice(storage: Storage) -> None:
    mine = Bucket(limit_key("u9", "press"), 3, 0.001)
    ours = Bucket(limit_key("c-9", "press"), 100, 0.001)
    outcomes = [await storage.limits.take_tokens((mine, ours), 1000.0) for _ in range(6)]
    assert outcomes[:3] == [(None, False)] * 3
    assert outcomes[3] == (mine, True), "the first refusal is the one answered"
    assert outcomes[4:] == [(mine, False)] * 2
    other = Bucket(limit_key("u10", "press"), 3, 0.001)
    assert await storage.limits.take_tokens((other, ours), 1000.0) == (None, False), (
        "another user is not limited by mine"
    )


async def test_token_buckets_refill_by_the_clock_they_are_given_and_not_by_the_machines(
    storage: Storage,
) -> None:
    bucket = Bucket(limit_key("u11", "command"), 2, 0.5)  # 2 at once, then one every 2 s
    now = 5000.0
    assert [await storage.limits.take_tokens((bucket,), now) for _ in range(3)] == [
        (None, False),
        (None, False),
        (bucket, True),
    ]
    await asyncio.sleep(0.05)  # the machine's time goes on; the limiter's stands still: no refill
    assert await storage.limits.take_tokens((bucket,), now) == (bucket, False)
    assert await storage.limits.take_tokens((bucket,), now + 1.9) == (bucket, False)
    assert await storage.limits.take_tokens((bucket,), now + 2.0) == (None, False), "one token in 2 s"
    assert await storage.limits.take_tokens((bucket,), now + 2.0) == (bucket, True)
    assert [await storage.limits.take_tokens((bucket,), now + 100.0) for _ in range(3)][-1] == (
        bucket,
        True,
    ), "a long wait refills the bucket up to its capacity only"


async def test_once_is_true_once_per_period(storage: Storage) -> None:
    assert await storage.limits.once("repoint:-1", 30)
    assert not await storage.limits.once("repoint:-1", 30)
    assert await storage.limits.once("repoint:-2", 30)


async def test_a_save_retried_after_its_answer_was_lost_is_taken_as_done(storage: Storage) -> None:
    table = await _computer_free("g", (ALICE, BOB), chat_id=-40)
    await storage.games.create(table)
    await storage.games.create(
        table
    )  # the same write again (redis-py retries once on a timeout): no conflict
    moved = table.bump()
    await storage.games.save(moved)
    await storage.games.save(moved)
    loaded = await storage.games.load("g")
    assert loaded is not None and loaded.version == moved.version


async def test_boards_shown_record_the_last_edit_and_a_gone_game_leaves_no_key_behind(
    storage: Storage, redis_url: str
) -> None:
    table = await _computer_free("g", (ALICE, BOB), chat_id=-41)
    await storage.games.create(table)
    await storage.games.set_message("g", "g", 77)
    assert await storage.games.hold_draw("g", "w", 20) == ({"g": 77}, {})
    newer = table.bump()
    await storage.games.save(newer)
    await storage.games.shown("g", newer.version, ("g",), True, "w")
    await storage.games.shown("g", table.version, ("g",), True, "w")  # an older edit landed last
    loaded = await storage.games.load("g")
    assert loaded is not None and loaded.shown == {"g": table.version}
    assert loaded.behind(loaded.targets[0]), "the board is behind again: a press there redraws it"

    await storage.games.delete_game(loaded)
    assert await storage.games.shown("g", newer.version, ("g",), True, "w") == -1
    assert not await storage.games.new_message("g", "g", None, 78, -100, "board:g")
    assert await storage.keys("nardy:game:*") == [], "nothing written for a game that is gone"
    assert await storage.keys("nardy:home:*") == [], "no home for a board of a game that is gone"


async def test_an_update_is_first_delivered_once_and_a_first_sighting_keeps_its_time(
    storage: Storage,
) -> None:
    assert await storage.limits.first_delivery(5)
    assert not await storage.limits.first_delivery(5)
    assert await storage.limits.first_seen("x", 60) == await storage.limits.first_seen("x", 60)


def test_each_game_takes_its_own_part_of_the_dice_secret_and_forget_deletes_the_next(redis_url: str) -> None:
    """Two games starting at once for one user take two different parts (one GETSET each); /seed shows
    the part the next game will take; /forget deletes it."""
    import asyncio

    from bot.storage import Storage
    from bot.storage.keys import dice_secret_key

    async def main() -> None:
        storage = Storage.from_url(redis_url)
        try:
            first = await storage.users.pending_dice_secret(7, "aa" * 32)
            assert first == "aa" * 32 and await storage.users.pending_dice_secret(7, "bb" * 32) == first
            taken = await asyncio.gather(
                storage.users.take_dice_secret(7, "cc" * 32), storage.users.take_dice_secret(7, "dd" * 32)
            )
            assert taken[0] != taken[1] and "aa" * 32 in taken, taken  # never one part for two games
            assert set(taken) <= {"aa" * 32, "cc" * 32, "dd" * 32}
            assert dice_secret_key(7) in await storage.users.forget_user_keys(7)
            assert await storage.users.take_dice_secret(7, "ee" * 32) is None
        finally:
            await storage.close()

    asyncio.run(main())
