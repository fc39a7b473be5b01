"""The storage's Lua scripts as files (bot/storage/lua/): each names its KEYS and ARGV on top, includes
resolve, every file is run or included, the figures and key names written in Lua are the Python ones, the
files are package data, and every script is loaded again after a SCRIPT FLUSH in the middle of play."""

from __future__ import annotations

import fnmatch
import hashlib
import re
import tomllib
from pathlib import Path

import pytest
import redis

from bot.model import ratings, stats
from bot.model.flow import ScriptedDice, resign, start_table
from bot.model.table import Invite, Lobby, Person, Seeker, Table
from bot.model.tournament import Entrant, Tournament
from bot.storage import Storage, keys, scripts
from bot.storage.limits import Bucket
from engine import Game, Play

ROOT = Path(__file__).resolve().parents[2]
STORAGE = ROOT / "bot" / "storage"
ALICE, BOB, CAROL = Person(1, "Alice"), Person(2, "Bob"), Person(3, "Carol")


def included() -> set[str]:
    """The files some script includes."""
    return {inner for name in scripts.lua_names() for inner in scripts.includes(name)}


def runnable() -> list[str]:
    """The scripts Redis runs (every file no script includes)."""
    return [name for name in scripts.lua_names() if name not in included()]


def header(name: str) -> str:
    """The comment lines a file starts with."""
    lines = scripts.lua_file(name).splitlines()
    return "\n".join(line for line in lines[: next(i for i, x in enumerate(lines) if not x.startswith("--"))])


def test_every_script_names_its_keys_and_argv_on_top_and_every_included_file_says_who_includes_it() -> None:
    assert len(scripts.lua_names()) >= 20
    for name in runnable():
        top = header(name)
        assert re.search(r"^-- KEYS", top, re.MULTILINE), f"lua/{name}.lua: no KEYS in its header"
        assert re.search(r"^-- ARGV", top, re.MULTILINE), f"lua/{name}.lua: no ARGV in its header"
        assert re.search(r"^-- Returns", top, re.MULTILINE), f"lua/{name}.lua: no Returns in its header"
    for name in included():
        assert header(name).startswith("-- Included by"), (
            f"lua/{name}.lua: its header says not who includes it"
        )


def test_every_file_is_registered_by_a_store_or_included_and_every_registered_name_is_a_file() -> None:
    code = "\n".join(path.read_text() for path in STORAGE.glob("*.py"))
    registered = set(re.findall(r'scripts\.register\(client, "([a-z0-9_]+)"\)', code))
    assert registered == set(runnable()), "a script no store runs, or a store runs a file that is not there"
    assert included() == {"record_result", "seek_helpers"}


def test_includes_are_resolved_once_and_a_file_that_includes_itself_is_refused() -> None:
    for name in runnable():
        assert not scripts.INCLUDE.search(scripts.source(name)), name
    save = scripts.source("save_game")
    assert len(re.findall(r"^local function nardy_record\(", save, re.MULTILINE)) == 1
    assert scripts.lua_file("record_result") in save, "the shared file is included as written, not pasted"
    files = {"a": "-- @include b\n-- @include c\nA\n", "b": "-- @include c\nB\n", "c": "C\n"}
    assert scripts.resolve("a", files.__getitem__) == "C\nB\n-- (c is included above)\nA\n"
    loop = {"a": "-- @include b\n", "b": "-- @include a\n"}
    with pytest.raises(ValueError, match=r"lua/b.lua includes itself: a -> b -> a"):
        scripts.resolve("a", loop.__getitem__)


def test_every_script_compiles_in_redis(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        for name in scripts.lua_names():
            assert client.script_load(scripts.source(name)) == sha(name), name
    finally:
        client.close()


def lua_constants(name: str) -> dict[str, object]:
    """The figures a file names in upper case: `local A, B = 1, 'x'` and `local V = {'a', 'b'}`."""
    found: dict[str, object] = {}
    for names, values in re.findall(
        r"^\s*local ([A-Z_]+(?:, [A-Z_]+)*) = ([^-\n]+?)\s*(?:--.*)?$", scripts.lua_file(name), re.MULTILINE
    ):
        parsed: list[object] = (
            [tuple(re.findall(r"'([^']*)'", values))]
            if values.startswith("{")
            else [v.strip("'") if v.startswith("'") else float(v) for v in values.split(", ")]
        )
        found.update(zip(names.split(", "), parsed, strict=True))
    return found


def test_the_figures_written_in_lua_are_the_python_constants() -> None:
    expected: dict[str, dict[str, object]] = {
        "record_result": {
            "USER_TTL": keys.USER_TTL,
            "CHAT_TTL": keys.CHAT_TTL,
            "MARKER_TTL": keys.MARKER_TTL,
            "MIN_RATED": stats.MIN_RATED_MATCHES,
            "HISTORY": stats.HISTORY_GAMES,
            "POINTS": stats.RATING_POINTS,
            "START": ratings.START_RATING,
            "SCALE": ratings.SCALE,
            "STAKE": ratings.STAKE,
            "PROVISIONAL": ratings.PROVISIONAL_FACTOR,
            "STEP": ratings.EXPERIENCE_STEP,
            "HIDDEN_FIELD": stats.HIDDEN_FIELD,
            "HIDDEN": stats.HIDDEN,
        },
        "top": {"PAGES": stats.TOP_PAGES},
        "save_tournament": {"USER_TTL": keys.USER_TTL},
        "forget_stats": {"VARIANTS": stats.VARIANTS},
        "hide_from_top": {
            "VARIANTS": stats.VARIANTS,
            "HIDDEN_FIELD": stats.HIDDEN_FIELD,
            "HIDDEN": stats.HIDDEN,
            "USER_TTL": keys.USER_TTL,
            "MIN_RATED": stats.MIN_RATED_MATCHES,
        },
    }
    for name in scripts.lua_names():
        assert lua_constants(name) == expected.get(name, {}), f"lua/{name}.lua"


def test_the_key_names_built_in_lua_are_those_of_keys_py() -> None:
    python = [
        keys.game_key("g"),
        keys.chat_key(5),
        keys.user_seek_key(5),
        keys.stats_key(5),
        keys.user_settings_key(5),
        keys.chat_board_key(-5, "short"),
        keys.global_board_key("short"),
        keys.marker_key("g/1"),
        keys.live_channel("g"),
        keys.tourney_inbox_key("t"),
        keys.TOURNEYS_KEY,
    ]
    built = {
        literal
        for name in scripts.lua_names()
        for literal in re.findall(r"'(nardy:[^']*)'", scripts.lua_file(name))
    }
    assert built == {
        "nardy:game:",
        "nardy:chat:",
        "nardy:user:",
        "nardy:top:",
        "nardy:top:chat:",
        "nardy:recorded:",
        "nardy:live:",
        "nardy:tourney:",
        "nardy:tourneys",
    }
    for prefix in built:
        assert any(key.startswith(prefix) for key in python), prefix


def test_the_lua_files_are_package_data_and_the_image_copies_them() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["*"]
    for name in scripts.lua_names():
        assert any(fnmatch.fnmatch(f"{name}.lua", p) for p in patterns), name
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY bot ./bot" in dockerfile
    ignored = [line for line in (ROOT / ".dockerignore").read_text().splitlines() if not line.startswith("#")]
    assert not any(fnmatch.fnmatch("bot/storage/lua/save_game.lua", p) for p in ignored if p)


def sha(name: str) -> str:
    return hashlib.sha1(scripts.source(name).encode()).hexdigest()


async def no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in these games")


async def table(game_id: str, white: Person, black: Person, chat_id: int | None = None) -> Table:
    mode = "friend" if chat_id is None else "group"
    return await start_table(
        game_id, mode, "short", white, black, "en", ScriptedDice([6, 1]), no_computer, chat_id
    )


async def test_every_script_is_loaded_again_after_a_script_flush_in_the_middle_of_play(
    redis_url: str,
) -> None:
    storage, client = Storage.from_url(redis_url), redis.Redis.from_url(redis_url, decode_responses=True)
    storage.games.remind_after = 60.0
    try:
        game = await table("g1", ALICE, BOB, chat_id=-5)
        await storage.games.create(game)
        client.script_flush()  # what a restarted Redis has: every script must be loaded again
        assert not any(client.script_exists(*(sha(name) for name in runnable())))

        over = resign(game, BOB.user_id, game.number)
        await storage.games.save(over)  # save_game (and record_result within it): the game's result is kept
        assert await storage.games.new_message(game.id, "g", None, 77, -5, f"board:{game.id}")
        assert (await storage.results.stats_of(ALICE.user_id)).of("short").wins == 1
        assert isinstance(await storage.games.hold_draw(game.id, "w1", 60), tuple)
        assert await storage.games.shown(game.id, over.version, ("g",), True, "w1") == over.version
        await storage.games.release_draw(game.id, "w1")
        assert await storage.games.mark_unreachable(game.id, "g", 1.0)
        assert not await storage.schedules.claim_unshown(game.id)
        assert await storage.schedules.claim_reminder(game.id, None, 1) == 0
        assert not await storage.schedules.claim_clock(game.id, 1.0, 0)
        assert await storage.schedules.outages(9.0, 60.0, 4.0) == ((4.0, 9.0),)
        assert await storage.reviews.keep_analysis(game.id, 1, {"plays": []})  # keep_analysis

        await storage.rooms.open_lobby(Lobby("l1", -6, "short", CAROL))
        await storage.rooms.put_invite(Invite("tok", "short", CAROL))
        assert await storage.rooms.cancel_invite(CAROL.user_id) is not None
        await storage.rooms.open_challenge(CAROL, "short", None)
        assert (await storage.rooms.seek(Seeker(CAROL, "short", 1.0, "s3"), 60)).kind == "queued"
        assert await storage.rooms.stop_seek(CAROL.user_id) is not None
        assert (await storage.rooms.seek(Seeker(CAROL, "short", 1.0, "s3"), 60)).kind == "queued"
        paired = await storage.rooms.seek(Seeker(ALICE, "short", 2.0, "s1"), 60)
        assert paired.kind == "pair" and paired.other is not None
        await storage.rooms.start_from_seek(paired.other, await table("q1", CAROL, ALICE))
        assert await storage.rooms.expire_seekers(10.0) == []

        assert await storage.limits.take_tokens((Bucket(keys.limit_key("u1", "press"), 2, 1.0),)) == (
            None,
            False,
        )
        finished = stats.FinishedGame(
            key="x/1",
            variant="short",
            mode="friend",
            chat_id=None,
            players=(stats.PlayerRef(8, "H"), stats.PlayerRef(9, "I")),
            winner=0,
            points=1,
            kind="oin",
            how="played",
            match_length=1,
            match_over=True,
            match_winner=0,
            match_score=(1, 0),
            ended_at=1.0,
        )
        assert (await storage.results.record(finished, 1.0)).first
        await storage.results.set_hidden(8, True)
        assert await storage.results.top_global("short") == ()
        assert await storage.results.forget_user(8) > 0
        tour = Tournament("t1", -7, "arena", "short-blitz", CAROL, "en", 1.0, 2.0, minutes=5)
        await storage.tournaments.create(tour, 2.0)
        assert await storage.tournaments.sign_up(tour, Entrant(CAROL, 1500.0), CAROL.user_id, 1.0) == "ok"
        assert await storage.tournaments.forget_user(CAROL.user_id) == 1  # forget_in_tourney

        assert all(client.script_exists(*(sha(name) for name in runnable()))), "a script was not run again"
    finally:
        client.close()
        await storage.close()
