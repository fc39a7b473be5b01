"""Results recorded in a real redis-server (bot/storage/results.py): once per game, ratings for people's matches only,
the computer's own block, streaks, leaderboards, hiding, /forget, and every key's expiry."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
import redis.asyncio as aioredis

from bot.model import stats
from bot.model.ratings import Rated, rate
from bot.model.stats import FinishedGame, PlayerRef, RatingChange, RecordOutcome
from bot.storage import StorageFault, StorageUnavailable, scripts
from bot.storage.keys import MARKER_TTL, USER_TTL, chat_board_key, global_board_key, stats_key
from bot.storage.results import ResultStore

ALICE, BOB, CAROL, DAVE = (
    PlayerRef(1, "Alice"),
    PlayerRef(2, "Bob"),
    PlayerRef(3, "Carol"),
    PlayerRef(4, "Dave"),
)
COMPUTER = PlayerRef(0, "Computer", "expert")
GROUP = -1001234567890
NOW = 1_700_000_000.0


def game(
    key: str,
    white: PlayerRef = ALICE,
    black: PlayerRef = BOB,
    winner: int = 0,
    *,
    variant: str = "short",
    mode: str = "friend",
    chat_id: int | None = None,
    points: int = 1,
    kind: str = "oin",
    how: str = "played",
    length: int = 1,
    over: bool = True,
    score: tuple[int, int] | None = None,
) -> FinishedGame:
    """A finished game; by default a single game of short nardy won by white, one point."""
    if score is None:
        score = (points, 0) if winner == 0 else (0, points)
    return FinishedGame(
        key=key,
        variant=variant,
        mode=mode,
        chat_id=chat_id,
        players=(white, black),
        winner=winner,
        points=points,
        kind=kind,
        how=how,
        match_length=length,
        match_over=over,
        match_winner=(winner if over else None),
        match_score=score,
        ended_at=NOW,
    )


async def every_value(r: aioredis.Redis) -> str:
    """Every nardy:* key and its value (strings, hashes, lists, sets, sorted sets), as one text."""
    out = []
    for key in await r.keys("nardy:*"):
        kind = await r.type(key)
        if kind == "string":
            value: object = await r.get(key)
        elif kind == "hash":
            value = await r.hgetall(key)
        elif kind == "list":
            value = await r.lrange(key, 0, -1)
        elif kind == "zset":
            value = await r.zrange(key, 0, -1)
        else:
            value = await r.smembers(key)
        out.append(f"{key!r}: {value}")
    return "\n".join(out)


@pytest.fixture
async def r(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
def results(r: aioredis.Redis) -> ResultStore:
    return ResultStore(r)


async def test_a_game_recorded_twice_counts_once_and_the_repeat_returns_the_first_outcome(
    results: ResultStore,
) -> None:
    first = await results.record(game("g1/1"), NOW)
    again = await results.record(game("g1/1"), NOW + 5)
    assert first.first and not again.first
    assert first.ratings == again.ratings == (RatingChange(1500, 1510), RatingChange(1500, 1490))
    alice = (await results.stats_of(ALICE.user_id)).of("short")
    assert (alice.games, alice.wins, alice.rating, alice.rated) == (1, 1, 1510.0, 1)
    assert len(await results.history_of(ALICE.user_id)) == 1
    assert len(await results.rating_history(ALICE.user_id, "short")) == 1


async def test_twenty_racing_records_of_one_game_apply_it_once(results: ResultStore) -> None:
    outcomes = await asyncio.gather(
        *(results.record(game("race/1", mode="group", chat_id=GROUP), NOW) for _ in range(20))
    )
    assert sum(o.first for o in outcomes) == 1
    assert len({o.ratings for o in outcomes}) == 1
    for player, wins in ((ALICE, 1), (BOB, 0)):
        found = (await results.stats_of(player.user_id)).of("short")
        assert (found.games, found.wins, found.rated, found.experience) == (1, wins, 1, 1)
    assert [e.name for e in await results.top_of_chat(GROUP, "short")] == ["Alice", "Bob"]


async def test_a_match_changes_ratings_once_at_its_end_with_its_length(results: ResultStore) -> None:
    one = await results.record(game("m/1", points=2, kind="mars", length=3, over=False, score=(2, 0)), NOW)
    assert one == RecordOutcome(True, (None, None))
    assert (await results.stats_of(ALICE.user_id)).of("short").rating == 1500
    two = await results.record(game("m/2", winner=1, length=3, over=False, score=(2, 1)), NOW)
    assert not two.rated
    three = await results.record(game("m/3", winner=1, points=2, length=3, score=(2, 3)), NOW + 60)
    # Bob won the match to 3: both new, equal: 4 * sqrt(3) * 1/2 * 5 = 17.3205080757
    expected = rate(Rated(), Rated(), 3)
    white, black = three.ratings
    assert white is not None and black is not None
    assert black.change == pytest.approx(expected.winner_change, abs=1e-9) == pytest.approx(17.3205080757)
    assert white.change == pytest.approx(expected.loser_change, abs=1e-9)
    bob = (await results.stats_of(BOB.user_id)).of("short")
    assert (bob.games, bob.wins, bob.losses, bob.rated, bob.experience) == (3, 2, 1, 1, 3)
    assert (bob.mars_lost, bob.points_won, bob.points_lost) == (1, 3, 2)
    assert bob.points_per_game == pytest.approx(1 / 3)
    assert [p.rating for p in await results.rating_history(BOB.user_id, "short")] == [
        pytest.approx(1517.3205080757)
    ]
    assert [p.at for p in await results.rating_history(BOB.user_id, "short")] == [NOW + 60]
    assert (await results.stats_of(BOB.user_id)).of("long").rating == 1500, "one rating per variant"


async def test_the_lua_ratings_follow_the_python_formula_over_many_matches(results: ResultStore) -> None:
    rng = random.Random(5)
    players = (ALICE, BOB, CAROL)
    expected = {p.user_id: Rated() for p in players}
    for n in range(40):
        white, black = rng.sample(players, 2)
        winner, length = rng.randrange(2), rng.choice((1, 3, 5, 7))
        await results.record(game(f"x/{n}", white, black, winner, length=length, score=(0, 0)), NOW + n)
        w, b = (white, black) if winner == 0 else (black, white)
        update = rate(expected[w.user_id], expected[b.user_id], length)
        expected[w.user_id], expected[b.user_id] = update.winner, update.loser
    for p in players:
        found = (await results.stats_of(p.user_id)).of("short")
        assert found.rating == pytest.approx(expected[p.user_id].rating, abs=1e-9)
        assert found.experience == expected[p.user_id].experience


async def test_games_against_the_computer_go_to_its_level_and_never_change_the_rating(
    r: aioredis.Redis,
    results: ResultStore,
) -> None:
    await results.record(game("c/1", ALICE, COMPUTER, 0, mode="computer", points=2, kind="mars"), NOW)
    await results.record(game("c/2", COMPUTER, ALICE, 0, mode="computer"), NOW)
    beginner = replace(COMPUTER, level="beginner")
    outcome = await results.record(game("c/3", beginner, ALICE, 1, mode="computer", variant="long"), NOW)
    assert outcome == RecordOutcome(True, (None, None))
    alice = await results.stats_of(ALICE.user_id)
    short = alice.of("short")
    assert (short.games, short.wins, short.rating, short.rated, short.streak) == (0, 0, 1500, 0, 0)
    assert short.computer == (stats.LevelStats("expert", 2, 1, 2, 1),)
    assert alice.of("long").computer == (stats.LevelStats("beginner", 1, 1, 1, 0),)
    assert alice.of("short").played and alice.name == "Alice"
    assert await results.rating_history(ALICE.user_id, "short") == ()
    history = await results.history_of(ALICE.user_id)
    assert [(h.key, h.against_computer, h.level, h.won, h.opponent_id) for h in history] == [
        ("c/3", True, "beginner", True, 0),
        ("c/2", True, "expert", False, 0),
        ("c/1", True, "expert", True, 0),
    ]
    assert not await r.keys("nardy:user:0:*"), "the computer has no statistics"
    assert not await r.keys("nardy:top:*")


async def test_streaks_count_consecutive_wins_and_a_loss_resets_the_current_one(results: ResultStore) -> None:
    for n, alice_wins in enumerate((True, True, False, True, True, True, False, True)):
        await results.record(game(f"s/{n}", winner=0 if alice_wins else 1), NOW)
    alice = (await results.stats_of(ALICE.user_id)).of("short")
    bob = (await results.stats_of(BOB.user_id)).of("short")
    assert (alice.streak, alice.best_streak, alice.wins, alice.losses) == (1, 3, 6, 2)
    assert (bob.streak, bob.best_streak) == (0, 1)


async def test_marses_and_koks_are_counted_for_both_sides(results: ResultStore) -> None:
    await results.record(game("k/1", kind="mars", points=2), NOW)
    await results.record(game("k/2", kind="koks", points=3), NOW)
    await results.record(game("k/3", kind="home_mars", points=4, winner=1, how="resigned"), NOW)
    await results.record(game("k/4", points=8, kind="oin", how="dropped"), NOW)
    alice = (await results.stats_of(ALICE.user_id)).of("short")
    bob = (await results.stats_of(BOB.user_id)).of("short")
    assert (alice.mars_won, alice.koks_won, alice.koks_lost, alice.points_won, alice.points_lost) == (
        1,
        1,
        1,
        13,
        4,
    )
    assert (bob.mars_lost, bob.koks_lost, bob.koks_won, bob.points_per_game) == (1, 1, 1, (4 - 13) / 4)
    assert [h.how for h in await results.history_of(BOB.user_id)] == [
        "dropped",
        "resigned",
        "played",
        "played",
    ]


async def test_history_is_each_players_own_side_newest_first_and_capped(results: ResultStore) -> None:
    await results.record(game("h/1", points=2, length=3, over=False, score=(2, 0)), NOW)
    bob = await results.history_of(BOB.user_id)
    assert bob == (
        stats.HistoryEntry("h/1", "short", 1, "Alice", None, False, 2, "oin", "played", 3, (0, 2), NOW, None),
    )
    for n in range(2, 30):
        await results.record(game(f"h/{n}", variant="long"), NOW + n)
    assert [h.key for h in await results.history_of(BOB.user_id, 3)] == ["h/29", "h/28", "h/27"]
    assert len(await results.history_of(BOB.user_id, 100)) == stats.HISTORY_GAMES
    latest = (await results.history_of(ALICE.user_id, 1))[0]
    assert latest.change is not None and latest.change > 0 and latest.score == (1, 0)


async def test_a_chats_leaderboard_orders_its_players_by_rating_and_follows_their_other_games(
    results: ResultStore,
) -> None:
    await results.record(game("t/1", ALICE, BOB, 0, mode="group", chat_id=GROUP), NOW)
    await results.record(game("t/2", CAROL, BOB, 0, mode="group", chat_id=GROUP), NOW)
    await results.record(game("t/3", CAROL, ALICE, 0, mode="group", chat_id=GROUP), NOW)
    top = await results.top_of_chat(GROUP, "short")
    assert [e.name for e in top] == ["Carol", "Alice", "Bob"]
    assert [e.rating for e in top] == sorted((e.rating for e in top), reverse=True)
    assert (top[0].games, top[0].wins, top[0].rated) == (2, 2, 2)
    # a friend game elsewhere moves Bob's rating on this chat's board too; Dave never played here
    for n in range(5):
        await results.record(game(f"f/{n}", BOB, DAVE, 0), NOW)
    top = await results.top_of_chat(GROUP, "short")
    assert [e.name for e in top] == ["Bob", "Carol", "Alice"]
    assert top[0].rating == (await results.stats_of(BOB.user_id)).of("short").rating
    assert [e.name for e in await results.top_of_chat(GROUP, "short", n=2)] == ["Bob", "Carol"]
    assert await results.top_of_chat(GROUP, "long") == ()
    assert await results.top_of_chat(-5, "short") == ()


async def test_the_global_board_needs_enough_rated_matches_and_leaves_out_the_hidden(
    results: ResultStore,
) -> None:
    for n in range(stats.MIN_RATED_MATCHES - 1):
        await results.record(game(f"g/{n}", ALICE, BOB, n % 2), NOW)
    assert await results.top_global("short") == ()
    await results.set_hidden(BOB.user_id, True)
    await results.record(game("g/last", ALICE, BOB, 0), NOW)
    assert [e.name for e in await results.top_global("short")] == ["Alice"]
    assert (await results.stats_of(BOB.user_id)).hidden
    await results.set_hidden(BOB.user_id, False)
    assert [e.name for e in await results.top_global("short")] == ["Alice", "Bob"]
    await results.set_hidden(ALICE.user_id, True)
    assert [e.name for e in await results.top_global("short")] == ["Bob"]
    assert await results.top_global("long") == ()


async def test_a_player_whose_statistics_expired_is_dropped_from_the_boards(
    r: aioredis.Redis, results: ResultStore
) -> None:
    await results.record(game("e/1", mode="group", chat_id=GROUP), NOW)
    await r.delete(stats_key(BOB.user_id))  # as if it expired
    assert [e.name for e in await results.top_of_chat(GROUP, "short")] == ["Alice"]
    assert await r.zrange(chat_board_key(GROUP, "short"), 0, -1) == [str(ALICE.user_id)]


async def test_forget_deletes_everything_of_the_player_and_takes_them_off_every_board(
    r: aioredis.Redis,
    results: ResultStore,
) -> None:
    for n in range(stats.MIN_RATED_MATCHES):
        await results.record(game(f"a/{n}", ALICE, BOB, 0, mode="group", chat_id=GROUP), NOW)
        await results.record(game(f"b/{n}", ALICE, CAROL, 1, mode="group", chat_id=-7, variant="long"), NOW)
    await results.record(game("c/1", ALICE, COMPUTER, 0, mode="computer"), NOW)
    assert "Alice" in [e.name for e in await results.top_global("short")]
    assert await results.forget_user(ALICE.user_id) > 0
    assert not await r.keys(f"nardy:user:{ALICE.user_id}:*")
    for board in await r.keys("nardy:top:*"):
        assert str(ALICE.user_id) not in await r.zrange(board, 0, -1), board
    assert [e.name for e in await results.top_of_chat(GROUP, "short")] == ["Bob"]
    assert (await results.stats_of(ALICE.user_id)).name == ""
    assert await results.history_of(ALICE.user_id) == ()
    bobs = await results.history_of(BOB.user_id)
    assert bobs and {(h.opponent_id, h.opponent) for h in bobs} == {(ALICE.user_id, "")}, "her name is gone"
    assert "Alice" not in await every_value(r), "nor in any other key"
    assert await results.forget_user(ALICE.user_id) == 0
    everything = [await r.get(k) or "" for k in await r.keys("nardy:recorded:*")]
    assert everything and not any("Alice" in v for v in everything), "the markers carry no names"


async def test_every_key_expires(r: aioredis.Redis, results: ResultStore) -> None:
    for n in range(stats.MIN_RATED_MATCHES):
        await results.record(game(f"a/{n}", mode="group", chat_id=GROUP), NOW)
    await results.set_hidden(CAROL.user_id, True)
    keys = [str(k) for k in await r.keys("nardy:*")]
    assert {global_board_key("short"), chat_board_key(GROUP, "short")} < set(keys)
    for key in keys:
        ttl = await r.ttl(key)
        if key.startswith("nardy:recorded:"):
            assert 0 < ttl <= MARKER_TTL, key
        else:
            assert USER_TTL - 60 < ttl <= USER_TTL, key


async def test_stats_lua_can_be_embedded_in_another_script(r: aioredis.Redis, results: ResultStore) -> None:
    source = (
        scripts.source("record_result")
        + "redis.call('SET', 'nardy:test:saved', '1')\nreturn nardy_record(ARGV[1], ARGV[2])\n"
    )
    raw = await r.register_script(source)(keys=[], args=[game("emb/1").to_json(), NOW])
    assert RecordOutcome.from_json(raw).first
    assert await r.get("nardy:test:saved") == "1"
    assert not (await results.record(game("emb/1"), NOW)).first
    assert "\nlocal function nardy_record(finished_json, now)\n" in scripts.source("record_result")
    assert "return nardy_record" not in scripts.source("record_result")


async def test_a_game_against_oneself_or_a_former_player_is_unrated(
    r: aioredis.Redis, results: ResultStore
) -> None:
    assert not (await results.record(game("self/1", ALICE, ALICE), NOW)).rated
    assert not await r.keys("nardy:user:*")
    gone = PlayerRef(0, "a former player")
    assert not (await results.record(game("gone/1", gone, BOB, 1, how="resigned"), NOW)).rated
    bob = (await results.stats_of(BOB.user_id)).of("short")
    assert (bob.games, bob.wins, bob.rated, bob.computer) == (1, 1, 0, ())


def test_a_finished_game_round_trips_through_json_and_refuses_nonsense() -> None:
    finished = game(
        "j/1", ALICE, replace(COMPUTER, name="Компьютер"), mode="computer", length=5, over=False, score=(1, 0)
    )
    assert FinishedGame.from_json(finished.to_json()) == finished
    assert json.loads(finished.to_json())["players"][1] == {"id": 0, "name": "Компьютер", "level": "expert"}
    big = PlayerRef(2**52 + 1, "Big")
    assert FinishedGame.from_json(game("j/2", big, BOB).to_json()).players[0] == big
    with pytest.raises(ValueError, match=r"variant 'medium' is not one of .*; winner 2 is not 0"):
        replace(finished, variant="medium", winner=2)
    with pytest.raises(ValueError, match="a single game \\(match length 1\\) always ends its match"):
        game("j/3", length=1, over=False)
    with pytest.raises(ValueError, match="a computer level is not one of"):
        game("j/4", ALICE, PlayerRef(0, "Computer", "godlike"))


async def test_big_user_ids_keep_every_digit_in_the_keys(results: ResultStore) -> None:
    big = PlayerRef(2**52 + 1, "Big")
    await results.record(game("big/1", big, BOB, mode="group", chat_id=GROUP), NOW)
    assert (await results.stats_of(big.user_id)).of("short").wins == 1
    assert [e.user_id for e in await results.top_of_chat(GROUP, "short")] == [big.user_id, BOB.user_id]


async def test_the_results_store_translates_redis_errors_as_every_store_does(r: aioredis.Redis) -> None:
    """One translation for all stores (bot/storage/client.py's redis_errors): a refused command is a
    StorageFault to log as the bug it is, an unreachable Redis a StorageUnavailable, each naming what failed."""
    await r.set(stats_key(9001), "not a hash")
    with pytest.raises(StorageFault, match=r"stats of user 9001: redis error: .*WRONGTYPE"):
        await ResultStore(r).stats_of(9001)
    with socket.socket() as sock:  # a port where nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    nowhere = aioredis.Redis.from_url(f"redis://127.0.0.1:{port}", decode_responses=True)
    try:
        with pytest.raises(StorageUnavailable, match="history of user 9001: redis unreachable"):
            await ResultStore(nowhere).history_of(9001)
    finally:
        await nowhere.aclose()
