"""The bot's parts on their own: callback data, the catalog, config, storage compare-and-set, the adapter."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path

import pytest
import redis
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from bot.config import Config, ConfigError, TokenFilter, api_base_url
from bot.embedded_redis import EmbeddedRedis
from bot.i18n import LOCALE_DIR, language_of, texts
from bot.model.flow import (
    Refused,
    ScriptedDice,
    advance,
    engine_computer,
    fair_proof,
    kept_proof,
    press_move,
    press_undo,
    resign,
    start_table,
)
from bot.model.table import Person, Table
from bot.storage import Storage, VersionConflict
from bot.telegram import callbacks
from bot.telegram.handlers.fairness import OLD_GAME, verify_text
from bot.telegram.http_request import multipart_body
from bot.telegram.keyboards import board_markup, move_label
from bot.views.board_view import board_view
from bot.views.captions import caption
from engine import Dice, Game, Move, Phase, Position, Side, find_rules
from engine.fair_dice import FairSeeds
from render import render_board

ALICE, BOB = Person(1, "Alice"), Person(2, "Bob", "ru")


async def _table(variant: str = "short", dice: tuple[int, ...] = (6, 1)) -> Table:
    return await start_table(
        "g1", "group", variant, ALICE, BOB, "en", ScriptedDice(dice), engine_computer(1), chat_id=-5
    )


# ---------------------------------------------------------------------- callback data


def test_callback_data_round_trips_and_fits_in_64_bytes() -> None:
    data = callbacks.move("AbC-_12345xyz", 123456789, 25, 6)
    assert len(data.encode()) <= 64
    cb = callbacks.decode(data)
    assert (cb.action, cb.game, cb.version, cb.src, cb.die) == ("m", "AbC-_12345xyz", 123456789, 25, 6)
    assert callbacks.decode(callbacks.resign("g", 3, 42, True)).user == 42
    assert callbacks.decode(callbacks.level(7, "long", "expert")).level == "expert"


@pytest.mark.parametrize(
    "data",
    [
        "",
        "m",
        "m:g:1:13",
        "m:g:x:13:6",
        "m:g:1:13:7",
        "m:g:1:0:6",
        "zz:1",
        "v:1:medium",
        "m:" + "a" * 80,
        "j:bad id",
        "m:g:1:13:6:extra",
        "m:g:04:13:5",  # the fuzzer's find: version 4 written "04" is not a button the bot sent
        "m:g:4:013:5",
        "c:g:1:007",
        "v:1:long.3c",  # long nardy has no cube
        "v:1:short.2",  # no match to 2
        "v:1:short.5cj",  # Jacoby is for single games
        "l:1:long.1j:expert",  # Jacoby without the cube
        "vc:1:j",
        "cd:g:01",
        "cx:g:1",
        "rm:g:1:x",
        "qm:1:short.9",
    ],
)
def test_garbage_callback_data_is_rejected(data: str) -> None:
    with pytest.raises(callbacks.BadCallback):
        callbacks.decode(data)


# ---------------------------------------------------------------------- catalog


def test_every_message_in_the_code_has_a_russian_translation() -> None:
    keywords = {"gettext": None, "ngettext": (1, 2), "N_": None, "Refused": None}
    bot_dir = Path(__file__).resolve().parents[2] / "bot"
    used = {
        msg if isinstance(msg, str) else msg[0]
        for _, _, msg, _, _ in extract_from_dir(str(bot_dir), keywords=keywords)
    }
    with (LOCALE_DIR / "ru" / "LC_MESSAGES" / "nardy.po").open("rb") as f:
        catalog = read_po(f, locale="ru")
    translated = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id and m.string}
    assert used - translated == set()
    assert len(used) > 80


def test_russian_plural_forms_come_from_the_catalog() -> None:
    ru = texts("ru")
    assert [ru.ngettext("{n} point", "{n} points", n) for n in (1, 2, 5, 21, 12)] == [
        "1 очко",
        "2 очка",
        "5 очков",
        "21 очко",
        "12 очков",
    ]
    assert texts("en").ngettext("{n} point", "{n} points", 1) == "1 point"
    codes = ("ru", "ru-RU", "RU", "uk", "az", "hy", "ka", "tr", "fa", "fa-IR", "pt-br", "de", None, "en-US")
    assert [language_of(c) for c in codes] == [
        *("ru", "ru", "ru", "uk", "az", "hy", "ka", "tr", "fa", "fa"),
        *("en", "en", "en", "en"),
    ]


@pytest.mark.parametrize("code", ["kk", "ky", "uz", "tg", "be", "kk-KZ", "uz_Latn", "BE"])
def test_telegram_codes_whose_players_read_russian_get_russian(code: str) -> None:
    assert language_of(code) == "ru"
    assert texts(code).gettext("pips") == texts("ru").gettext("pips")


def test_a_language_whose_players_read_russian_is_not_given_russian_when_chosen_otherwise() -> None:
    from bot.service.settings import Settings

    assert Settings().language("kk") == "ru"
    assert Settings(lang="en").language("kk") == "en"


# ---------------------------------------------------------------------- config


def test_config_needs_a_token_and_reads_the_rest() -> None:
    with pytest.raises(ConfigError, match="BOT_TOKEN"):
        Config.from_env({})
    config = Config.from_env(
        {
            "BOT_TOKEN": "1:secret",
            "REDIS_URL": "redis://r:6379/0",
            "TELEGRAM_API_URL": "http://127.0.0.1:8081",
            "LOG_LEVEL": "debug",
        }
    )
    assert (config.redis_url, config.base_url, config.log_level) == (
        "redis://r:6379/0",
        "http://127.0.0.1:8081/bot",
        "DEBUG",
    )
    assert "secret" not in repr(config)
    assert api_base_url(None) == "https://api.telegram.org/bot"
    with pytest.raises(ConfigError, match="LOG_LEVEL"):
        Config.from_env({"BOT_TOKEN": "1:x", "LOG_LEVEL": "chatty"})


def test_the_token_never_reaches_the_log() -> None:
    record = logging.LogRecord(
        "httpx", logging.INFO, __file__, 1, "POST %s", ("https://api/bot1:secret/getMe",), None
    )
    TokenFilter("1:secret").filter(record)
    assert record.getMessage() == "POST https://api/bot<BOT_TOKEN>/getMe"


# ---------------------------------------------------------------------- uploads


def test_the_upload_body_is_multipart_form_data_a_standard_parser_reads_back() -> None:
    picture = bytes(range(256)) * 300 + b"\r\n--tricky--\r\n"
    fields = {"chat_id": "-100123", "caption": 'Ход белых: 6-5 \u00b7 "24/18"', "reply_markup": '{"a": [1]}'}
    files = {"attached1": ('bo"ard\r\n.jpg', picture, "image/jpeg")}
    body = multipart_body("b0undary", fields, files)

    head = b"Content-Type: multipart/form-data; boundary=b0undary\r\n\r\n"
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    parts = list(message.iter_parts())
    names = [part.get_param("name", header="content-disposition") for part in parts]
    assert names == ["chat_id", "caption", "reply_markup", "attached1"]
    for part, (name, value) in zip(parts, fields.items(), strict=False):
        assert part.get_payload(decode=True) == value.encode(), name
    photo = parts[-1]
    assert photo.get_content_type() == "image/jpeg"
    assert photo.get_filename() == "bo%22ard%0D%0A.jpg"
    assert photo.get_payload(decode=True) == picture


# ---------------------------------------------------------------------- storage


async def test_two_racing_changes_never_both_apply(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    try:
        table = await _table()
        await storage.games.create(table)
        step = table.step()
        a = press_move(table, 1, table.version, step.next_moves[0].src, step.next_moves[0].die)
        b = press_move(table, 1, table.version, step.next_moves[-1].src, step.next_moves[-1].die)
        results = await asyncio.gather(storage.games.save(a), storage.games.save(b), return_exceptions=True)
        assert sorted(type(r).__name__ for r in results) == ["NoneType", "VersionConflict"]
        stored = await storage.games.load(table.id)
        assert stored is not None and stored.version == table.version + 1
        assert stored.moves in (a.moves, b.moves)
        with pytest.raises(VersionConflict):
            await storage.games.create(table)
    finally:
        await storage.close()


async def test_a_game_saved_by_another_worker_is_loaded_as_stored_and_a_deleted_one_is_not_kept(
    redis_url: str,
) -> None:
    one, two = Storage.from_url(redis_url), Storage.from_url(redis_url)
    try:
        table = await _table()
        await one.games.create(table)
        assert await two.games.load(table.id) == table
        step = table.step()
        moved = press_move(table, 1, table.version, step.next_moves[0].src, step.next_moves[0].die)
        await one.games.save(moved)
        again = await two.games.load(table.id)  # worker two parsed version 0 before: it must not serve that
        assert again is not None and again.version == moved.version and again.moves == moved.moves
        await two.games.set_message(table.id, "g", 77)
        shown = await one.games.load(table.id)
        assert shown is not None and shown.messages == {"g": 77}
        assert shown == moved and shown.to_json() == moved.to_json()
        await one.games.delete_game(moved)
        assert await one.games.load(table.id) is None and await two.games.load(table.id) is None
        assert table.id not in one.games._parsed  # the deleted game's players are not kept in memory
    finally:
        await one.close()
        await two.close()


async def test_a_refused_save_writes_nothing_and_saves_survive_a_flushed_script_cache(redis_url: str) -> None:
    storage, client = Storage.from_url(redis_url), redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        table = await _table()
        await storage.games.create(table)
        step = table.step()
        moved = press_move(table, 1, table.version, step.next_moves[0].src, step.next_moves[0].die)
        client.script_flush()  # what a restarted Redis has: the save script must be loaded again
        await storage.games.save(moved)
        before = client.get("nardy:game:g1")
        with pytest.raises(
            VersionConflict, match=f"stored version {moved.version}, .* made from {table.version}"
        ):
            await storage.games.save(
                press_move(table, 1, table.version, step.next_moves[-1].src, step.next_moves[-1].die)
            )
        with pytest.raises(VersionConflict, match="stored version None"):
            await storage.games.save(replace(moved, id="never-created", version=5))
        assert client.get("nardy:game:g1") == before
        assert client.exists("nardy:game:never-created", "nardy:game:never-created:messages") == 0
        assert client.smembers("nardy:user:1:games") == {"g1"}
    finally:
        client.close()
        await storage.close()


async def test_keys_have_clear_names_and_finished_games_expire_sooner(redis_url: str) -> None:
    storage = Storage.from_url(redis_url)
    try:
        table = await _table()
        await storage.games.create(table)
        await storage.games.set_message(table.id, "g", 77)
        assert await storage.keys() == [
            "nardy:chat:-5:game",
            "nardy:game:g1",
            "nardy:game:g1:messages",
            "nardy:games:live",
            "nardy:unshown",
            "nardy:user:1:games",
            "nardy:user:2:games",
        ]
        active_ttl = await storage.ttl("nardy:game:g1")
        over = resign(table, 2, table.number)
        await storage.games.save(over)
        assert 0 < await storage.ttl("nardy:game:g1") < active_ttl
        loaded = await storage.games.load("g1")
        assert loaded is not None and loaded.over and loaded.messages == {"g": 77}
        assert (await storage.games.game_of_chat(-5)) == loaded
    finally:
        await storage.close()


def test_embedded_redis_keeps_data_across_a_restart(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    server.start()
    try:
        client = redis.Redis.from_url(server.url)
        client.set("nardy:test", "kept")
        client.close()
        server.stop()
        server.start()
        client = redis.Redis.from_url(server.url)
        assert client.get("nardy:test") == b"kept"
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        client.close()
    finally:
        server.stop()
    assert (tmp_path / "data").exists()


# ---------------------------------------------------------------------- flow, adapter, keyboard


async def test_the_table_round_trips_through_json() -> None:
    table = await _table("long", (3, 5, 6, 2))
    assert Table.from_json(table.to_json()) == table


async def test_board_view_shows_the_turn_in_progress_from_each_side() -> None:
    table = await _table("short", (6, 1))
    moved = press_move(table, 1, table.version, 13, 6)
    for viewer in (Side.WHITE, Side.BLACK):
        view = board_view(moved, viewer, ("Alice", "Bob"), "status", "pips")
        assert view.viewer is viewer and view.dice == (6, 1) and view.dice_used == (6,)
        assert view.points[6] == 1 and view.points[12] == 4  # absolute 7 and 13
        assert view.last_mover is Side.WHITE and [(m.src, m.dst) for m in view.last_move] == [(13, 7)]
        assert render_board(view)[:2] in (b"\xff\xd8", b"\x89P")


async def test_move_labels_come_from_the_movers_side() -> None:
    t, ru = texts("en"), texts("ru")
    assert move_label(t, Move(25, 20, 5, False)) == "bar→20"
    assert move_label(ru, Move(25, 20, 5, True)) == "бар→20*"
    assert move_label(t, Move(6, 0, 6)) == "6→⌂"
    assert move_label(t, Move(3, 0, 6), with_die=True) == "3→⌂ (6)"
    table = await _table("short", (6, 1))
    markup = board_markup(t, table, None)
    assert markup is not None
    labels = [b.text for row in markup.inline_keyboard for b in row]
    expected = sorted(table.step().next_moves, key=lambda m: (-m.src, -m.die))
    assert labels == [f"{m.src}→{m.dst}" for m in expected] + ["13→7→6"]  # one checker twice; no hint: rated
    assert {"24→18", "24→23", "13→7", "8→2", "8→7", "6→5"} <= set(labels)
    assert board_markup(t, table, Side.BLACK) is None


async def test_the_wrong_player_is_refused_and_forced_turns_play_themselves() -> None:
    # white wins the opening and rolls 6-5, black rolls 4-4: first turns in long nardy are forced here;
    # then white has a choice with 5-3
    table = await _table("long", (6, 1, 6, 5, 4, 4, 5, 3))
    assert table.game.phase is Phase.MOVE and table.game.turn is Side.WHITE
    assert table.events[1] == {"k": "play", "s": 0, "p": "24/18 18/13", "d": "6-5", "how": "forced"}
    assert table.events[2]["how"] == "forced" and table.events[2]["s"] == 1
    with pytest.raises(Refused) as refusal:
        press_move(table, 2, table.version, 24, 5)
    assert refusal.value.msgid == "It is not your turn."
    text = caption(texts("en"), table, None)
    assert "Alice rolled 6-5; the only move was played: 24/18 18/13." in text


async def test_a_pass_is_played_by_itself_and_said_so() -> None:
    game = Game.new("short")
    table = Table("g2", "group", game, (ALICE, BOB), "en", chat_id=-5, version=0)
    dice = ScriptedDice((6, 5))
    out = await advance(table, dice, engine_computer(1))
    assert out.version == 1 and out.game.turn is Side.WHITE and out.game.dice is not None
    assert str(out.game.dice) == "6-5"


def test_a_move_that_leaves_one_way_to_finish_completes_the_turn() -> None:
    position = Position.from_counts({13: 1, 10: 1, 6: 13}, {24: 2, 13: 13})
    game = Game(
        rules=find_rules("short"), phase=Phase.MOVE, turn=Side.WHITE, position=position, dice=Dice(6, 5)
    )
    assert sorted(str(p) for p in game.legal_plays()) == ["10/4 13/8", "13/7 10/5", "13/7 7/2"]
    table = Table("g3", "group", game, (ALICE, BOB), "en", chat_id=-5)
    after = press_move(table, 1, table.version, 10, 6)
    assert after.moves == ((10, 6), (13, 5)) and after.step().can_finish
    markup = board_markup(texts("en"), after, None)
    assert markup is not None and [b.text for row in markup.inline_keyboard for b in row] == [
        "↩ Undo",
        "✅ Done",
    ]
    undone = press_undo(after, 1, after.version)
    assert undone.moves == ((10, 6),), "Undo takes back one move and does not complete again"
    assert press_move(table, 1, table.version, 13, 6).moves == ((13, 6),), "two ways on: no completion"


def test_display_names_lose_control_characters_and_are_shortened_for_captions() -> None:
    from bot.telegram.names import NAME_LIMIT, display_name

    assert display_name("Ann\u202e\x07  Lee", "1") == "Ann Lee"
    assert display_name("\u200b\u202e", "42") == "42"
    long = display_name("Длинное имя " * 10, "1")
    assert len(long) == NAME_LIMIT and long.endswith("…")
    family = "👨\u200d👩\u200d👧"
    assert display_name(family, "1") == family


def test_the_proof_of_a_game_is_the_current_games_or_the_one_kept_and_verify_names_what_is_missing() -> None:
    """flow.kept_proof, read by /verify and by the Mini App's review: game N's dice proof is the current
    game's (none without seeds), else the one kept when game N ended (without "fair" for a game from before
    the dice were provable); /verify refuses a game not kept and one with nothing to check, each saying so."""
    seeds = FairSeeds("ab" * 32, ("w", "b"), "g9/3", rolls=2)
    table = Table("g9", "friend", Game.new("short"), (ALICE, BOB), "en", number=3, fair=seeds)
    old = {"number": 1, "record": {}}  # game 1 of the series, played before the dice were provable
    earlier = {"number": 2, "variant": "short", "fair": seeds.to_json(), "rolls": [], "over": True}
    table = replace(table, proof=earlier, proofs=(old,))
    assert kept_proof(table, 3) == fair_proof(table) and kept_proof(table, 3) is not None
    assert kept_proof(table, 2) is earlier and kept_proof(table, 1) is old and kept_proof(table, 4) is None
    assert kept_proof(replace(table, fair=None), 3) is None
    t = texts("en")
    with pytest.raises(Refused) as missing:
        verify_text(t, replace(table, number=5, game=Game.new("short")), 3)
    assert missing.value.msgid.startswith("Game {game} is no longer kept")
    for number, at in ((1, table), (3, replace(table, fair=None))):
        with pytest.raises(Refused) as nothing:
            verify_text(t, at, number)
        assert nothing.value.msgid == OLD_GAME
    assert verify_text(t, table, 2).startswith("🎲 Dice of game g9/3")
