"""/settings: kept per user in Redis, used by the next game and the next press, changed, deleted by /forget;
the language reaches alerts, menus and the boards of games in progress; Done off ends a turn with its last
die; the dark theme draws the player's boards dark."""

from __future__ import annotations

import asyncio
import io

import redis
from PIL import Image, ImageStat

from bot.model.flow import Refused, ScriptedDice, press_move, press_move_to_end, turn_ends
from bot.model.table import Person, Table
from bot.service.settings import CHOICES, Settings, SettingsCache
from bot.storage import Storage
from bot.storage.keys import SETTINGS_TTL, user_settings_key
from bot.telegram import callbacks
from bot.telegram.callbacks import BadCallback
from engine import Dice, Game, Phase, Play, Position, Side, find_rules
from render import layout
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    board,
    choose_settings,
    new_game_menu,
    reply_to,
    start_friend_game,
    start_group_game,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

GROUP = -1077


def _hash(redis_url: str, user_id: int) -> tuple[dict[str, str], int]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        key = user_settings_key(user_id)
        fields = client.hgetall(key)
        assert isinstance(fields, dict)
        return {str(k): str(v) for k, v in fields.items()}, int(client.ttl(key))
    finally:
        client.close()


def _alert(answer: CallbackAnswer | str) -> str:
    assert isinstance(answer, CallbackAnswer) and answer.show_alert, answer
    return answer.text or ""


def _luminance(photo: bytes | None) -> float:
    assert photo is not None
    return float(ImageStat.Stat(Image.open(io.BytesIO(photo)).convert("L")).mean[0])


def _field_pixel(photo: bytes | None) -> tuple[int, int, int]:
    """A pixel of the empty middle strip of the field (between the top and bottom points, left half)."""
    assert photo is not None
    image = Image.open(io.BytesIO(photo)).convert("RGB")
    x, y = layout.X_LEFT + 10, (layout.Y_GAP + layout.Y_GAP_END) // 2
    pixel = image.getpixel((x, y))
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


def _buttons(msg: StoredMessage) -> list[str]:
    return msg.button_texts


# ---------------------------------------------------------------------- callback data


def test_settings_callbacks_decode_strictly_and_fit_in_64_bytes() -> None:
    assert callbacks.SETTING_CHOICES == CHOICES, "the callbacks and the settings know the same choices"
    biggest = 10**20 - 1
    for setting, choices in CHOICES.items():
        for choice in choices:
            data = callbacks.setting(biggest, setting, choice)
            assert len(data.encode()) <= callbacks.MAX_BYTES
            cb = callbacks.decode(data)
            assert (cb.action, cb.user, cb.setting, cb.choice) == ("s", biggest, setting, choice)
    for forged in (
        "s:1:lang:dark",  # a choice of another setting
        "s:1:theme:ru",
        "s:1:colour:dark",  # no such setting
        "s:01:lang:ru",  # a leading zero
        "s:1:lang:ru:x",
        "s:1:lang:RU",
        "s:x:lang:ru",
        "s:1:lang:ru\n",
    ):
        try:
            callbacks.decode(forged)
        except BadCallback:
            continue
        raise AssertionError(f"{forged!r} was decoded")


def test_settings_from_a_stored_hash_ignore_unknown_values() -> None:
    assert Settings.from_fields({}) == Settings()
    assert Settings.from_fields({"lang": "ru", "confirm": "off", "theme": "dark", "other": "x"}) == Settings(
        "ru", "off", "dark"
    )
    assert Settings.from_fields({"lang": "de", "confirm": "maybe", "theme": "neon"}) == Settings()
    auto = Settings()
    assert auto.language("ru-RU") == "ru" and auto.language(None) == "en"
    assert Settings(lang="en").language("ru") == "en"
    assert auto.confirms("friend") and auto.confirms("computer") and not auto.confirms("group")
    assert Settings(confirm="on").confirms("group") and not Settings(confirm="off").confirms("computer")


# ---------------------------------------------------------------------- the menu, kept and changed


def test_settings_are_kept_per_user_and_the_next_game_and_press_use_them(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    anna = SimUser(tg, 41, "Anna", "en")
    menu = reply_to(anna, "/settings")
    assert "Language: auto (Telegram's: English)" in menu.body
    assert "Confirm each turn with ✅ Done: auto (on in private games, off in group games)" in menu.body
    assert "Board colours: light" in menu.body
    assert "there is no Undo after that" in menu.body, "the menu says what Done off costs"
    assert {"✓ 🌐 Auto", "✓ Done: auto", "✓ ☀️ Light"} <= set(_buttons(menu))
    assert _hash(redis_url, anna.id)[0] == {}, "nothing is stored before a choice"

    anna.press(menu, "Русский")  # the menu itself changes language at once
    now = tg.message(anna.id, menu.message_id)
    assert "Язык: Русский" in now.body and "✓ Русский" in _buttons(now), now.body
    anna.press(menu, "🌙")
    anna.press(menu, "Готово: нет")
    now = tg.message(anna.id, menu.message_id)
    assert {"✓ Русский", "✓ Готово: нет", "✓ 🌙 Тёмные"} <= set(_buttons(now))
    stored, ttl = _hash(redis_url, anna.id)
    assert stored == {"lang": "ru", "confirm": "off", "theme": "dark"}
    assert SETTINGS_TTL - 60 < ttl <= SETTINGS_TTL, "kept a year after the last use"

    bot.stop()  # another process: nothing of it in memory, all of it in Redis
    bot.start()
    again = reply_to(anna, "/settings")
    assert "Язык: Русский" in again.body and "Цвета доски: тёмные" in again.body
    assert _alert(anna.press_data(again, "m:nothere:1:13:6")) == "Эта кнопка не от этого сообщения."
    assert _alert(anna.press_data(again, "zz:1")) == "Эта кнопка недействительна."

    # the next game: the menus, the board's caption and colours, and the next press (Done off)
    games = new_game_menu(anna)
    assert games.text == "Во что играем?"
    anna.press(games, "Короткие")
    anna.press(games, "🤖")
    dice.push(6, 1, 3, 2)  # Anna (white) 6-1 first; the computer rolls 3-2
    anna.press(games, "Эксперт")
    first = board(tg, anna.id)
    assert "Короткие нарды, партия 1" in (first.caption or ""), first.caption
    assert "Ваш ход, кубики 6-1." in (first.caption or "")
    assert _luminance(first.photo) < 60, "Anna's board is dark"
    anna.press(first, "13→7")
    assert "↩ Отменить" in _buttons(board(tg, anna.id))
    anna.press(first, "8→7")  # the last die: the turn ends, the computer plays, Anna's next turn is rolled
    after = board(tg, anna.id)
    caption = after.caption or ""
    assert "Anna: выпало 6-1, ход 13/7 8/7." in caption, caption
    assert "✅ Готово" not in _buttons(after) and "↩ Отменить" not in _buttons(after)
    assert not bot.errors.records, bot.errors.messages()


def test_settings_in_a_group_point_to_the_private_chat_and_others_cannot_press_mine(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    anna, boris = SimUser(tg, 42, "Anna"), SimUser(tg, 43, "Boris", "ru")
    tg.add_chat(GROUP, "group", "Nardy club")
    said = reply_to(anna, "/settings", GROUP)
    assert (
        said.text == "Settings are kept per person: send /settings to me in a private chat, @nardy_test_bot."
    )
    assert not said.buttons
    menu = reply_to(anna, "/settings")
    data = anna.button(menu, "Dark")
    assert (
        _alert(boris.press_data(menu, data))
        == "Это чужие настройки. Отправьте /settings, чтобы открыть свои."
    )
    assert "Board colours: light" in tg.message(anna.id, menu.message_id).body
    edits = tg.message(anna.id, menu.message_id).edits
    answer = anna.press_data(menu, anna.button(menu, "Auto"))  # the choice already made: nothing to redraw
    assert isinstance(answer, CallbackAnswer) and not answer.show_alert
    assert tg.message(anna.id, menu.message_id).edits == edits


# ---------------------------------------------------------------------- games in progress


def test_a_language_change_reaches_alerts_and_the_board_of_a_game_in_progress(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    anna, ivan = SimUser(tg, 44, "Anna", "en"), SimUser(tg, 45, "Иван", "ru")
    dice.push(1, 6)  # Ivan (black) moves first with 6-1
    anna_board, ivan_board = start_friend_game(tg, anna, ivan, "short")
    assert "Short nardy (backgammon), game 1" in (anna_board.caption or "")
    ivan_edits = tg.message(ivan.id, ivan_board.message_id).edits
    light_photo = tg.message(anna.id, anna_board.message_id).photo

    choose_settings(anna, "Русский")
    now = tg.message(anna.id, anna_board.message_id)
    assert "Короткие нарды, партия 1" in (now.caption or ""), "her board in her new language"
    assert "Ходит Иван, кубики 6-1." in (now.caption or "")
    assert now.photo != light_photo, "the picture's words changed too"
    assert tg.message(ivan.id, ivan_board.message_id).edits == ivan_edits, "Ivan's board is left alone"
    ivan_move = ivan.button(ivan_board, "→")
    assert _alert(anna.press_data(anna_board, ivan_move)) == "Сейчас не ваш ход."

    choose_settings(anna, "English")  # and back, from a menu in Russian
    assert "Short nardy (backgammon), game 1" in (tg.message(anna.id, anna_board.message_id).caption or "")
    assert _alert(anna.press_data(anna_board, ivan_move)) == "It is not your turn."
    assert not bot.errors.records, bot.errors.messages()


def test_done_off_ends_the_turn_with_the_last_die_and_the_opponent_sees_their_turn(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    anna, ivan = SimUser(tg, 46, "Anna"), SimUser(tg, 47, "Ivan")
    choose_settings(anna, "Done: off")
    dice.push(6, 1)  # Anna (white) 6-1
    anna_board, ivan_board = start_friend_game(tg, anna, ivan, "short")
    anna.press(anna_board, "13→7")
    assert "↩ Undo" in _buttons(board(tg, anna.id)), "Undo until the last die"
    dice.push(3, 2)
    anna.press(anna_board, "8→7")
    anna_now, ivan_now = board(tg, anna.id), board(tg, ivan.id)
    assert "Anna rolled 6-1 and played 13/7 8/7." in (ivan_now.caption or ""), ivan_now.caption
    assert "Your move, dice 3-2." in (ivan_now.caption or "")
    assert any(b.startswith(("13→", "24→", "8→", "6→")) for b in _buttons(ivan_now)), _buttons(ivan_now)
    assert _buttons(anna_now) == [], "Anna's turn is over: no Undo, no Done"
    # Ivan's own setting (auto: on in a private game) applies to his turn: it waits for Done
    ivan.press(ivan_board, lambda text: text.startswith("13→"))
    ivan.press(ivan_board, lambda text: "→" in text)
    assert "✅ Done" in _buttons(board(tg, ivan.id)) and "↩ Undo" in _buttons(board(tg, ivan.id))
    assert not bot.errors.records, bot.errors.messages()


def test_the_dark_theme_draws_the_players_own_boards_dark_and_the_group_board_stays_light(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    anna, ivan = SimUser(tg, 48, "Anna"), SimUser(tg, 49, "Ivan")
    dice.push(6, 1)
    anna_board, ivan_board = start_friend_game(tg, anna, ivan, "short")
    light = tg.message(anna.id, anna_board.message_id).photo
    choose_settings(anna, "Dark")
    dark = tg.message(anna.id, anna_board.message_id).photo
    assert dark != light
    assert _luminance(dark) < _luminance(light) - 15, (_luminance(dark), _luminance(light))
    assert max(_field_pixel(dark)) < 60 and _field_pixel(light)[1] > 80, (
        _field_pixel(dark),
        _field_pixel(light),
    )
    assert _luminance(tg.message(ivan.id, ivan_board.message_id).photo) > _luminance(dark) + 15
    anna.press(anna_board, "13→7")  # later boards of hers are dark too
    assert _luminance(board(tg, anna.id).photo) < 60
    # a group board is everyone's: light, whoever plays
    anna.press(reply_to(anna, "/resign"), "Yes")
    dice.push(6, 1)
    group_board = start_group_game(tg, GROUP, anna, ivan, "short")
    assert _luminance(group_board.photo) > _luminance(dark) + 15
    assert not bot.errors.records, bot.errors.messages()


def test_forget_deletes_the_settings(tg: FakeTelegram, bot: BotRunner, redis_url: str) -> None:
    anna = SimUser(tg, 50, "Anna")
    choose_settings(anna, "Dark", "Done: on")
    assert _hash(redis_url, anna.id)[0] == {"theme": "dark", "confirm": "on"}
    anna.press(reply_to(anna, "/forget"), "Yes, delete my data")
    report = tg.bot_messages(anna.id)[-1].text or ""
    assert report.endswith("Settings deleted (back to the defaults): 1"), report
    assert _hash(redis_url, anna.id) == ({}, -2), "the key is gone"
    menu = reply_to(anna, "/settings")
    assert {"✓ 🌐 Auto", "✓ Done: auto", "✓ ☀️ Light"} <= set(_buttons(menu)), _buttons(menu)
    assert _hash(redis_url, anna.id) == ({}, -2), "reading the defaults stores nothing"


# ---------------------------------------------------------------------- the cache across workers


def test_another_worker_sees_a_change_within_the_cache_time(redis_url: str) -> None:
    now = [1000.0]

    async def scenario() -> None:
        storage = Storage.from_url(redis_url)
        try:
            mine = SettingsCache(storage, seconds=60.0, clock=lambda: now[0])
            other = SettingsCache(storage, seconds=60.0, clock=lambda: now[0])
            assert await other.get(7) == Settings()
            assert other.reads == 1
            assert (await mine.choose(7, "theme", "dark")).theme == "dark"
            assert (await mine.get(7)).theme == "dark", "the worker that changed it sees it at once"
            now[0] += 59.0
            assert (await other.get(7)).theme == "light", "another worker trusts its copy a while"
            assert other.reads == 1
            now[0] += 1.0
            assert (await other.get(7)).theme == "dark", "...at most CACHE_SECONDS"
            assert other.reads == 2
            try:
                await mine.choose(7, "theme", "ru")
            except ValueError:
                pass
            else:
                raise AssertionError("an impossible choice was saved")
            small = SettingsCache(storage, size=3, clock=lambda: now[0])
            for uid in range(10):
                await small.get(uid)
            assert len(small._known) == 3 and small.peek(9) is not None and small.peek(0) is None
        finally:
            await storage.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------- the flow of Done off


def test_a_move_that_completes_the_turn_by_itself_ends_it_in_one_press_with_done_off() -> None:
    position = Position.from_counts({13: 1, 10: 1, 6: 13}, {24: 2, 13: 13})
    game = Game(
        rules=find_rules("short"), phase=Phase.MOVE, turn=Side.WHITE, position=position, dice=Dice(6, 5)
    )
    table = Table("g9", "group", game, (Person(1, "Alice"), Person(2, "Bob")), "en", chat_id=-5, version=4)
    with_done = press_move(table, 1, 4, 10, 6)
    assert with_done.moves == ((10, 6), (13, 5)) and turn_ends(with_done), "Done on: it waits for Done"
    ended = asyncio.run(press_move_to_end(table, 1, 4, 10, 6, ScriptedDice([4, 3]), _no_computer))
    assert ended.version == 5, "one version step: one compare-and-set"
    assert ended.moves == () and ended.game.turn is Side.BLACK and str(ended.game.dice) == "4-3"
    assert ended.events[0] == {"k": "play", "s": 0, "p": "10/4 13/8", "d": "6-5", "how": "chosen"}
    halfway = asyncio.run(press_move_to_end(table, 1, 4, 13, 6, ScriptedDice(), _no_computer))
    assert halfway.moves == ((13, 6),) and halfway.game.turn is Side.WHITE, "two ways on: the turn goes on"


async def _no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in this game")


def test_a_press_that_moves_one_checker_twice_is_checked_like_two_presses() -> None:
    game = Game.new("short").opening_roll(6, 1)  # white 6-1 from the start
    table = Table("g8", "group", game, (Person(1, "Alice"), Person(2, "Bob")), "en", chat_id=-5, version=2)
    both = press_move(table, 1, 2, 13, 6, then=1)
    assert both.moves == ((13, 6), (7, 1)) and both.version == 3
    for src, die, then in ((13, 1, 6), (24, 6, 1), (8, 6, 1)):  # 12 and 17 are black's; 2→1 too
        try:
            press_move(table, 1, 2, src, die, then=then)
        except Refused:
            continue
        raise AssertionError(f"{src}/{die} then {then} was taken")
    ended = asyncio.run(press_move_to_end(table, 1, 2, 13, 6, ScriptedDice([5, 5]), _no_computer, then=1))
    assert ended.version == 3 and ended.game.turn is Side.BLACK and ended.events[-1]["p"] == "13/7 7/6"
    data = callbacks.move_on("g8", 2, 13, 6, 1)
    cb = callbacks.decode(data)
    assert (cb.action, cb.src, cb.die, cb.then) == ("mm", 13, 6, 1)
    for forged in ("mm:g8:2:13:6", "mm:g8:2:13:6:7", "mm:g8:2:26:6:1", "mm:g8:2:13:6:01"):
        try:
            callbacks.decode(forged)
        except BadCallback:
            continue
        raise AssertionError(f"{forged!r} was decoded")
