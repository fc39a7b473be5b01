"""Turn reminders through the fake Bot API: the idle person on turn against another person gets one nudge
per idle turn in their private chat, at most the limit per game, exactly once with several workers and
across restarts; never in a game against the computer, never the waiting player, never retried."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import redis
import redis.asyncio as aioredis

from bot.config import (
    DEFAULT_REMIND_AFTER,
    DEFAULT_REMINDERS_PER_GAME,
    Config,
    ConfigError,
    reminders_from_env,
)
from bot.model.flow import ScriptedDice, engine_computer, rematch, resign, start_table
from bot.model.table import Person, Table
from bot.storage import Storage
from bot.storage.keys import REMIND_KEY, reminded_key
from bot.telegram.app import REMINDERS
from bot.telegram.reminders import group_link, look_every
from engine import Game, Play, Side
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    has_turn,
    play_turn,
    reply_to,
    start_computer_game,
    start_friend_game,
    start_group_game,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import Fault, StoredMessage

NUDGE = "⏰"
REMIND = 0.5  # seconds of idleness before a reminder, in most tests
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"


# ---------------------------------------------------------------------- helpers


def game_id_of(msg: StoredMessage) -> str:
    ids = {str(b["callback_data"]).split(":")[1] for b in msg.buttons if "callback_data" in b}
    assert len(ids) == 1, f"expected the buttons of one game, got {msg.buttons}"
    return ids.pop()


def nudges(tg: FakeTelegram, chat_id: int) -> list[StoredMessage]:
    """The reminders a chat received."""
    return [m for m in tg.bot_messages(chat_id) if (m.text or "").startswith(NUDGE)]


def nudge_calls(tg: FakeTelegram, chat_id: int) -> int:
    """sendMessage calls of a reminder to a chat, refused ones included."""
    return sum(
        1
        for _, params in tg.calls("sendMessage")
        if int(params.get("chat_id", 0)) == chat_id and str(params.get("text", "")).startswith(NUDGE)
    )


def due(redis_url: str, game_id: str) -> float | None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        score = client.zscore(REMIND_KEY, game_id)
        return None if score is None else float(score)
    finally:
        client.close()


def raw_game(redis_url: str, game_id: str) -> str:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        raw = client.get(f"nardy:game:{game_id}")
        assert raw is not None, f"game {game_id} is not in Redis"
        return str(raw)
    finally:
        client.close()


def looked_at(tg: FakeTelegram, redis_url: str, game_id: str, runners: tuple[BotRunner, ...]) -> None:
    """Wait until a worker took the game's due reminder (sent, or dropped at the limit) and what it queued
    went out."""
    tg.wait_for(lambda: due(redis_url, game_id) is None, 15.0, f"the reminder of game {game_id} taken")
    for runner in runners:
        assert runner.app is not None
        reminders = runner.app.bot_data[REMINDERS]
        runner.call(lambda _deps, r=reminders: r.idle())
        runner.settle()


def mover_of(tg: FakeTelegram, users: list[SimUser]) -> tuple[SimUser, StoredMessage]:
    """The player whose private board offers moves now (boards are drawn in the background)."""

    def one() -> tuple[SimUser, StoredMessage] | None:
        boards = [(u, wait_board(tg, u.id)) for u in users]
        turn = [(u, b) for u, b in boards if has_turn(b)]
        return turn[0] if len(turn) == 1 else None

    found: tuple[SimUser, StoredMessage] = tg.wait_for(one, 15.0, "one player with move buttons")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def make_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[Callable[..., BotRunner]]:
    """Start a polling bot with the given BotRunner options (stopped at the end)."""
    made: list[BotRunner] = []

    def make(**options: object) -> BotRunner:
        runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), **options)  # type: ignore[arg-type]
        runner.start()
        tg.settlers.append(runner.settle)
        made.append(runner)
        return runner

    yield make
    for runner in made:
        if runner.settle in tg.settlers:
            tg.settlers.remove(runner.settle)
        runner.stop()


# ---------------------------------------------------------------------- through the fake Bot API


def test_the_idle_player_on_turn_gets_one_nudge_replying_to_their_board_and_the_game_is_unchanged(
    tg: FakeTelegram, redis_url: str, make_bot: Callable[..., BotRunner]
) -> None:
    bot = make_bot(remind_after=REMIND)
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    start_friend_game(tg, alice, bob)
    mover, board = mover_of(tg, [alice, bob])
    waiting = bob if mover is alice else alice
    game_id = game_id_of(board)
    before = raw_game(redis_url, game_id)

    looked_at(tg, redis_url, game_id, (bot,))
    sent = nudges(tg, mover.id)
    assert len(sent) == 1, [m.text for m in sent]
    assert sent[0].text == (
        f"⏰ Your turn! Short nardy (backgammon) against {waiting.first_name}: the board is waiting for your move."
    )
    assert sent[0].reply_to == board.message_id, (
        "the nudge replies to the player's board: one tap leads there"
    )
    assert nudges(tg, waiting.id) == [], "the waiting player is never nudged"
    # a reminder changes no game: same record (version, moved_at: the idle-claim clock runs on), same buttons
    assert raw_game(redis_url, game_id) == before
    assert tg.message(board.chat_id, board.message_id).buttons == board.buttons

    time.sleep(8 * REMIND)  # many more looks: one nudge per idle turn, not one per look
    bot.settle()
    assert len(nudges(tg, mover.id)) == 1
    assert nudges(tg, waiting.id) == []
    assert not bot.errors.records, bot.errors.messages()


def test_a_move_puts_the_reminder_off_and_each_idle_turn_nudges_its_mover_up_to_the_limit_per_game(
    tg: FakeTelegram, redis_url: str, make_bot: Callable[..., BotRunner]
) -> None:
    """1 reminder per game: each player is nudged on their first idle turn, then never in that game; a rematch
    is a new game of the series, with reminders of its own. (Two seconds of idleness: a turn's presses, each
    waiting for its board, never take that long, so no nudge comes in the middle of a turn.)"""
    remind = 2.0
    bot = make_bot(remind_after=remind, reminders_per_game=1)
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    users = [alice, bob]
    start_friend_game(tg, alice, bob)
    rng = random.Random(3)
    idle_turns = {alice.id: 0, bob.id: 0}
    game_id = ""
    for _ in range(40):
        mover, board = mover_of(tg, users)
        game_id = game_id_of(board)
        # a press (a single move) puts the reminder off: due again a whole idle time after it
        moves = [str(b["callback_data"]) for b in board.buttons if str(b["callback_data"]).startswith("m:")]
        if idle_turns[mover.id] == 0 and moves:
            first_due = due(redis_url, game_id)
            pressed_at = time.time()
            answer = mover.press_data(board, moves[0])
            assert not getattr(answer, "show_alert", True), answer
            later = due(redis_url, game_id)
            if first_due is not None and later is not None:  # (None: sent already, or the turn ended)
                assert later >= pressed_at + remind > first_due
            mover, board = mover_of(tg, users)
        looked_at(tg, redis_url, game_id, (bot,))  # the mover stayed idle until a worker looked
        idle_turns[mover.id] += 1
        assert len(nudges(tg, mover.id)) == 1, (mover.first_name, idle_turns)
        if min(idle_turns.values()) >= 2:
            break
        play_turn(mover, tg.message(board.chat_id, board.message_id), rng)
    assert min(idle_turns.values()) >= 2, idle_turns
    assert [len(nudges(tg, u.id)) for u in users] == [1, 1]
    assert nudge_calls(tg, alice.id) == nudge_calls(tg, bob.id) == 1

    # the next game of the series: reminders again
    alice_now = wait_board(tg, alice.id)
    resign_menu = reply_to(alice, "/resign")
    alice.press(resign_menu, "Yes")
    over = tg.wait_for(
        lambda: next(
            (b for b in [wait_board(tg, alice.id)] if any("Rematch" in t for t in b.button_texts)), None
        ),
        15.0,
        "the rematch button",
    )
    assert over.message_id == alice_now.message_id
    alice.press(over, "Rematch", wait_edit=False)
    mover, board = tg.wait_for(
        lambda: next(
            (
                (u, wait_board(tg, u.id))
                for u in users
                if wait_board(tg, u.id).message_id > over.message_id and has_turn(wait_board(tg, u.id))
            ),
            None,
        ),
        15.0,
        "the rematch's board with moves",
    )
    assert game_id_of(board) == game_id, "a rematch is the same table, the next game of its series"
    looked_at(tg, redis_url, game_id, (bot,))
    assert len(nudges(tg, mover.id)) == 2
    assert nudges(tg, mover.id)[-1].reply_to == board.message_id
    assert not bot.errors.records, bot.errors.messages()


def test_no_nudge_in_a_game_against_the_computer(
    tg: FakeTelegram, redis_url: str, make_bot: Callable[..., BotRunner]
) -> None:
    bot = make_bot(remind_after=REMIND)
    alice = SimUser(tg, 1, "Alice")
    board = start_computer_game(tg, alice)
    assert has_turn(wait_board(tg, alice.id))
    assert due(redis_url, game_id_of(board)) is None, "a game against the computer is never due a reminder"
    time.sleep(6 * REMIND)
    bot.settle()
    assert nudge_calls(tg, alice.id) == 0
    assert not bot.errors.records, bot.errors.messages()


def test_group_players_are_nudged_in_private_with_the_group_and_one_who_never_started_the_bot_is_tried_once(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice, make_bot: Callable[..., BotRunner]
) -> None:
    bot = make_bot(remind_after=REMIND)
    games = [  # (group, white: on turn, black); a supergroup's messages have links, a basic group's none
        (-1001234567, SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")),
        (-1007654321, SimUser(tg, 3, "Катя", language_code="ru"), SimUser(tg, 4, "Dave")),
        (-4567, SimUser(tg, 5, "Erin"), SimUser(tg, 6, "Frank")),
    ]
    boards = []
    for group, white, black in games:
        dice.push(6, 1)  # the opening roll: white moves first
        board = start_group_game(tg, group, white, black)
        stored = Table.from_json(json.loads(raw_game(redis_url, game_id_of(board))))
        assert stored.waiting_for is Side.WHITE, board.caption
        boards.append(board)
    alice = games[0][1]
    tg.inject(Fault("sendMessage", 403, CANT_INITIATE, times=50, chat_id=alice.id))
    for board in boards:
        looked_at(tg, redis_url, game_id_of(board), (bot,))

    assert nudge_calls(tg, alice.id) == 1 and tg.faults_left() == 49, "tried once, refused"
    assert nudges(tg, alice.id) == []
    katya = nudges(tg, 3)
    assert len(katya) == 1 and katya[0].reply_to is None
    assert katya[0].text == (
        "⏰ Ваш ход! Короткие нарды, соперник — Dave, в группе «Nardy club»: доска ждёт вашего хода."
    )
    assert [(b["text"], b.get("url")) for b in katya[0].buttons] == [
        ("Открыть доску", f"https://t.me/c/7654321/{boards[1].message_id}")
    ]
    erin = nudges(tg, 5)
    assert len(erin) == 1 and erin[0].buttons == [], "no link to a basic group's message"
    assert erin[0].text == (
        "⏰ Your turn! Short nardy (backgammon) against Frank in the group “Nardy club”: "
        "the board is waiting for your move."
    )
    for group, _, black in games:
        assert nudge_calls(tg, black.id) == 0, "the waiting player is never nudged"
        assert nudges(tg, group) == [], "reminders go to private chats, never to the group"

    time.sleep(6 * REMIND)  # the refused reminder is never tried again
    bot.settle()
    assert nudge_calls(tg, alice.id) == 1 and tg.faults_left() == 49
    assert [len(nudges(tg, uid)) for uid in (3, 5)] == [1, 1]
    assert not bot.errors.records, bot.errors.messages()


def test_a_player_who_blocked_the_bot_gets_none_and_nothing_is_retried(
    tg: FakeTelegram, redis_url: str, make_bot: Callable[..., BotRunner]
) -> None:
    remind = 3.0  # the player blocks the bot well before the reminder is due
    bot = make_bot(remind_after=remind)
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    start_friend_game(tg, alice, bob)
    mover, board = mover_of(tg, [alice, bob])
    tg.set_blocked(mover.id)
    assert due(redis_url, game_id_of(board)) is not None, "blocked before the reminder was due"
    looked_at(tg, redis_url, game_id_of(board), (bot,))
    time.sleep(6 * look_every(remind))
    bot.settle()
    assert nudge_calls(tg, mover.id) == 1, "tried once (403), not retried"
    assert nudges(tg, mover.id) == []
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert client.zcard(REMIND_KEY) == 0, "nothing is left waiting to be sent"
        counts = client.hgetall(reminded_key(game_id_of(board)))
        assert counts == {"n": "1", "wb"[mover is not alice]: "1"}, "the refused reminder counts as sent"
    finally:
        client.close()
    assert not bot.errors.records, bot.errors.messages()


def test_a_reminder_due_while_the_bot_was_stopped_is_sent_once_after_the_start(
    tg: FakeTelegram, redis_url: str, make_bot: Callable[..., BotRunner]
) -> None:
    remind = 4.0
    bot = make_bot(remind_after=remind)
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    start_friend_game(tg, alice, bob)
    mover, board = mover_of(tg, [alice, bob])
    game_id = game_id_of(board)
    bot.stop()
    when = due(redis_url, game_id)
    assert when is not None, "stopped before the reminder was due"
    assert nudge_calls(tg, mover.id) == 0
    time.sleep(max(0.0, when - time.time()) + 0.5)  # due now, and no bot running
    assert nudge_calls(tg, mover.id) == 0

    bot.start()
    looked_at(tg, redis_url, game_id, (bot,))
    time.sleep(3 * look_every(remind))
    bot.settle()
    sent = nudges(tg, mover.id)
    assert len(sent) == 1 and sent[0].reply_to == board.message_id
    assert nudge_calls(tg, mover.id) == 1
    assert not bot.errors.records, bot.errors.messages()


@pytest.fixture
def workers(tg: FakeTelegram, redis_url: str) -> Iterator[tuple[BotRunner, BotRunner]]:
    """Two webhook workers with short reminders (the pattern of tests/bot/test_workers.py)."""
    dice = ScriptedDice(seed=11)
    pair = tuple(
        BotRunner(
            tg.api_url,
            redis_url,
            dice,
            engine_computer(seed=5),
            webhook_port=free_port(),
            name=name,
            remind_after=REMIND,
        )
        for name in ("worker-a", "worker-b")
    )
    for worker in pair:
        worker.start()
    yield pair  # type: ignore[misc]
    for worker in pair:
        worker.stop()


def test_with_two_workers_each_due_reminder_is_sent_exactly_once(
    tg: FakeTelegram, redis_url: str, workers: tuple[BotRunner, BotRunner]
) -> None:
    games = 6
    players = [(SimUser(tg, 10 + 2 * i, f"W{i}"), SimUser(tg, 11 + 2 * i, f"B{i}")) for i in range(games)]
    movers: list[tuple[SimUser, SimUser, str]] = []
    for white, black in players:
        start_friend_game(tg, white, black)
    for white, black in players:
        mover, board = mover_of(tg, [white, black])
        movers.append((mover, black if mover is white else white, game_id_of(board)))
    for _, _, game_id in movers:
        looked_at(tg, redis_url, game_id, workers)
    time.sleep(6 * REMIND)  # both workers look many more times
    for worker in workers:
        worker.settle()
    for mover, waiting, _ in movers:
        assert nudge_calls(tg, mover.id) == 1, mover.first_name
        assert nudge_calls(tg, waiting.id) == 0, waiting.first_name
    for worker in workers:
        assert not worker.errors.records, worker.errors.messages()


# ---------------------------------------------------------------------- the storage's claim, configuration


async def no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in these games")


async def _friend_table(game_id: str) -> Table:
    return await start_table(
        game_id,
        "friend",
        "short",
        Person(1, "Alice"),
        Person(2, "Bob"),
        "en",
        ScriptedDice([6, 1]),
        no_computer,
    )


@pytest.fixture
async def storage(redis_url: str) -> AsyncIterator[Storage]:
    store = Storage.from_url(redis_url)
    store.games.remind_after = 0.2
    yield store
    await store.close()


async def wait_due(storage: Storage, game_id: str) -> None:
    for _ in range(200):
        if game_id in await storage.schedules.due_reminders():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the reminder of {game_id} never came due")


async def test_racing_claims_of_one_due_reminder_take_it_once_and_the_limit_holds_per_game(
    storage: Storage,
) -> None:
    table = await _friend_table("g")
    await storage.games.create(table)
    for number in (1, 2):
        await wait_due(storage, "g")
        claims = await asyncio.gather(*(storage.schedules.claim_reminder("g", table, 2) for _ in range(20)))
        assert sorted(claims) == [0] * 19 + [number], claims
        assert await storage.schedules.due_reminders() == []
        table = table.bump()
        await storage.games.save(table)  # a change: due again
    await wait_due(storage, "g")
    assert await storage.schedules.claim_reminder("g", table, 2) == -1, "the game had its 2 reminders"
    assert await storage.schedules.due_reminders() == [], "the entry left without a reminder"
    assert await storage.ttl(reminded_key("g")) > 0

    over = resign(table, 1, table.number)
    await storage.games.save(over)
    await asyncio.sleep(0.3)
    assert await storage.schedules.due_reminders() == [], "a game that is over is due no reminder"
    nxt = await rematch(over, 1, over.version, ScriptedDice([6, 1]), no_computer)
    await storage.games.save(nxt)
    await wait_due(storage, "g")
    assert await storage.schedules.claim_reminder("g", nxt, 2) == 1, (
        "the next game of the series has reminders of its own"
    )


async def test_a_stale_table_does_not_claim_and_a_gone_game_leaves_the_set(
    storage: Storage, redis_url: str
) -> None:
    table = await _friend_table("g")
    await storage.games.create(table)
    await wait_due(storage, "g")
    assert await storage.schedules.claim_reminder("g", table.bump(), 3) == 0, "not the stored version"
    assert await storage.schedules.claim_reminder("g", None, 3) == 0, "the game is there"
    assert await storage.schedules.due_reminders() == ["g"]
    await storage.games.delete_game(table)
    assert await storage.schedules.due_reminders() == []
    assert [k for k in await storage.keys() if "remind" in k] == []

    await storage.games.create(await _friend_table("h"))
    await wait_due(storage, "h")
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        await client.delete("nardy:game:h")  # as if it expired
        assert await storage.schedules.claim_reminder("h", None, 3) == -1
        assert await client.zcard(REMIND_KEY) == 0
    finally:
        await client.aclose()

    storage.games.remind_after = 0  # reminders off: no entry at all
    await storage.games.create(await _friend_table("k"))
    assert [k for k in await storage.keys() if "remind" in k] == []


def test_reminder_settings_are_read_and_checked() -> None:
    assert reminders_from_env({}) == (DEFAULT_REMIND_AFTER, DEFAULT_REMINDERS_PER_GAME) == (600.0, 3)
    assert reminders_from_env({"NARDY_REMIND_AFTER": "0", "NARDY_REMINDERS_PER_GAME": "5"}) == (0.0, 5)
    config = Config.from_env(
        {"BOT_TOKEN": "1:x", "NARDY_REMIND_AFTER": "90.5", "NARDY_REMINDERS_PER_GAME": "1"}
    )
    assert (config.remind_after, config.reminders_per_game) == (90.5, 1)
    for bad in ("soon", "-1", "inf", "nan"):
        with pytest.raises(ConfigError, match="NARDY_REMIND_AFTER"):
            reminders_from_env({"NARDY_REMIND_AFTER": bad})
    for bad in ("-1", "2.5", "many", "101", "٣"):
        with pytest.raises(ConfigError, match="NARDY_REMINDERS_PER_GAME"):
            reminders_from_env({"NARDY_REMINDERS_PER_GAME": bad})


def test_group_links_exist_for_supergroups_only() -> None:
    assert group_link(-1001234567, 42) == "https://t.me/c/1234567/42"
    assert group_link(-4567, 42) is None, "a basic group's messages have no links"
    assert group_link(-1001234567, None) is None
    assert look_every(600) == 5.0 and look_every(0.5) == 0.1 and look_every(0.01) == 0.05
