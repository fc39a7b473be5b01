"""A press is honoured only on the message its button belongs to (bot/telegram/button_homes.py): forged menu data on
boards, lobbies, other users' menus and inline cards is refused with one alert, and nothing is edited or
saved. A custom Telegram client can send any callback data for any message it can see."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis

from bot.model.flow import ScriptedDice, engine_computer
from bot.telegram import button_homes, callbacks
from bot.telegram.callbacks import decode
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    board,
    data_of,
    invite_link,
    new_game_menu,
    reply_to,
    start_computer_game,
    start_group_game,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

GROUP = -1003
MEDIA = -1009001
SOMEWHERE = 778
NOT_HERE = "This button does not belong to this message."


def _alert(answer: object) -> str:
    assert isinstance(answer, CallbackAnswer), answer
    assert answer.show_alert, f"expected an alert, got {answer}"
    return str(answer.text)


def _game(redis_url: str, game_id: str) -> dict[str, object]:
    client = redis.Redis.from_url(redis_url)
    try:
        raw = client.get(f"nardy:game:{game_id}")
        assert isinstance(raw, bytes), f"game {game_id} is gone"
        found: dict[str, object] = json.loads(raw)
        return found
    finally:
        client.close()


def _keys(redis_url: str, pattern: str) -> list[bytes]:
    client = redis.Redis.from_url(redis_url)
    try:
        return sorted(bytes(key) for key in client.scan_iter(match=pattern))
    finally:
        client.close()


def _same(tg: FakeTelegram, before: StoredMessage) -> None:
    """The message was not edited since `before` was taken."""
    now = tg.message(before.chat_id, before.message_id)
    assert now.edits == before.edits, f"message {before.message_id} was edited: {now.body!r}"
    assert now.buttons == before.buttons


def _menu_data(user: int, game: str, token: str, lobby: str) -> list[str]:
    """Forged data of every kind of menu button, as user `user` would press it."""
    return [
        f"vc:{user}:c",
        f"vc:{user}:-",
        f"v:{user}:short",
        f"v:{user}:long.5",
        f"o:{user}:short:c",
        f"o:{user}:short:f",
        f"l:{user}:short:beginner",
        f"qm:{user}:short",
        f"qs:{user}:{token}",
        f"s:{user}:lang:ru",
        f"s:{user}:theme:dark",
        f"fy:{user}",
        f"fn:{user}",
        f"rn:{game}:1:{user}",
        f"ry:{game}:1:{user}",
        f"rm:{game}:1:{user}",
        f"c:{game}:1:{user}",
        f"j:{lobby}",
        f"x:{lobby}",
        f"xi:{token}",
        f"ia:{token}",
        f"ix:{token}",
    ]


def test_every_button_the_bot_knows_has_a_home() -> None:
    samples = {
        "m": "m:g1:1:13:6",
        "mm": "mm:g1:1:13:6:1",
        "u": "u:g1:1",
        "d": "d:g1:1",
        "r": "r:g1:1",
        "ry": "ry:g1:1:5",
        "rn": "rn:g1:1:5",
        "v": "v:5:short",
        "vc": "vc:5:c",
        "o": "o:5:short:c",
        "l": "l:5:short:expert",
        "j": "j:lob",
        "x": "x:lob",
        "xi": "xi:tok",
        "ia": "ia:tok",
        "ix": "ix:tok",
        "im": "im:g1:1",
        "ib": "ib:g1:1",
        "c": "c:g1:1:5",
        "fy": "fy:5",
        "fn": "fn:5",
        "s": "s:5:lang:en",
        "gx": "gx:g1:1",
        "gr": "gr:g1:1",
        "ga": "ga:g1:1",
        "p": "p:g1:1:13.6-8.1",
        "h": "h:g1:1",
        "qm": "qm:5:short",
        "cr": "cr:g1:1",
        "cd": "cd:g1:1",
        "ct": "ct:g1:1",
        "cp": "cp:g1:1",
        "rm": "rm:g1:1:5",
        "qs": "qs:5:tok",
        "tn": "tn:5:as1b",
        "tj": "tj:tid",
        "tl": "tl:tid",
        "ts": "ts:tid",
        "tx": "tx:tid",
    }
    assert set(samples) == set(callbacks.ROUTE.pattern[2:-2].split("|")), "a sample for every action"
    for action, data in samples.items():
        cb = decode(data)
        for inline in (False, True):
            home = button_homes.expected(cb, inline)
            assert home.split(":")[0] in (
                "board",
                "menu",
                "lobby",
                "invite",
                "challenge",
                "resign",
                "claim",
                "forget",
                "settings",
                "tourney",
            ), (action, home)
    assert button_homes.expected(decode("rn:g1:1:5"), inline=True) == "board:g1"
    assert button_homes.expected(decode("rn:g1:1:5"), inline=False) == "resign:g1:5"


def test_forged_menu_data_of_every_kind_on_a_group_board_edits_nothing(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    game_id = alice.button(msg, "13→7").split(":")[1]
    before = tg.message(GROUP, msg.message_id)
    version = _game(redis_url, game_id)["version"]
    for spectator in (carol, alice, bob):  # a spectator, the player on turn, the other player
        for forged in _menu_data(spectator.id, game_id, "tok" + "x" * 9, game_id):
            assert _alert(spectator.press_data(msg, forged)) == NOT_HERE, forged
    _same(tg, before)
    assert _game(redis_url, game_id)["version"] == version
    assert tg.bot_messages(GROUP)[-1].message_id == msg.message_id, "nothing new was said in the group"
    assert alice.press(msg, "13→7").show_alert is False, "the game goes on"
    assert not bot.errors.records, bot.errors.messages()


def test_forged_menu_data_on_another_users_lobby_and_menu_edits_nothing(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    tg.add_chat(GROUP, "group", "Nardy club")
    alice, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol")
    lobby = new_game_menu(alice, GROUP)
    alice.press(lobby, "Short")
    lobby = tg.message(GROUP, lobby.message_id)
    assert "Join" in lobby.button_texts
    lobby_id = carol.button(lobby, "Join").split(":")[1]
    for forged in (
        f"l:{carol.id}:short:beginner",
        f"vc:{carol.id}:c",
        f"o:{carol.id}:short:c",
        f"v:{carol.id}:long",
        f"l:{alice.id}:short:beginner",  # the starter's own menu data on her lobby
        f"s:{carol.id}:lang:ru",
    ):
        assert _alert(carol.press_data(lobby, forged)) == NOT_HERE, forged
    assert _alert(alice.press_data(lobby, f"l:{alice.id}:short:beginner")) == NOT_HERE
    _same(tg, lobby)
    assert _keys(redis_url, "nardy:game:*") == [], "no game was started"
    assert _keys(redis_url, f"nardy:lobby:{GROUP}") != [], "the lobby is still open"

    # Carol's own menu: Alice's lobby data and Alice's menu data are refused there
    tg.add_chat(GROUP - 1, "group", "Other club")
    carols = new_game_menu(carol, GROUP - 1)
    for forged in (f"j:{lobby_id}", f"x:{lobby_id}", f"vc:{alice.id}:c", f"v:{alice.id}:short"):
        assert _alert(alice.press_data(carols, forged)) == NOT_HERE, forged
    _same(tg, carols)
    assert not carol.press(carols, "Short").show_alert, "Carol's own menu still works"
    assert not bot.errors.records, bot.errors.messages()


def test_menu_data_on_ones_own_private_board_edits_nothing(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    anna = SimUser(tg, 51, "Anna")
    dice.push(6, 1)
    msg = start_computer_game(tg, anna, "short", "Beginner")
    before = tg.message(anna.id, msg.message_id)
    game_id = data_of(before, "m:")[0].split(":")[1]
    for forged in _menu_data(anna.id, game_id, "tok" + "y" * 9, game_id):
        assert _alert(anna.press_data(msg, forged)) == NOT_HERE, forged
    _same(tg, before)
    # and board data on a menu: /resign's question carries no moves
    question = reply_to(anna, "/resign")
    for forged in data_of(before, "m:")[:1] + [f"d:{game_id}:1", f"h:{game_id}:1", f"r:{game_id}:1"]:
        assert _alert(anna.press_data(question, forged)) == NOT_HERE, forged
    assert not anna.press(question, "No").show_alert, "the question itself still works"
    assert not bot.errors.records, bot.errors.messages()


def test_another_games_buttons_are_refused_on_a_board(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    anna, alice, bob = SimUser(tg, 51, "Anna"), SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    private = start_computer_game(tg, anna, "short", "Beginner")
    dice.push(6, 1)
    group = start_group_game(tg, GROUP, alice, bob, "short")
    theirs = tg.message(GROUP, group.message_id)
    mine = data_of(tg.message(anna.id, private.message_id), "m:")[0]
    assert _alert(alice.press_data(theirs, mine)) == NOT_HERE
    _same(tg, theirs)
    assert not bot.errors.records, bot.errors.messages()


def test_an_invitations_cancel_is_honoured_only_on_the_invitation(tg: FakeTelegram, bot: BotRunner) -> None:
    alice = SimUser(tg, 1, "Alice")
    invite, token = invite_link(tg, alice)
    other = new_game_menu(alice)
    assert _alert(alice.press_data(other, callbacks.cancel_invite(token))) == NOT_HERE
    _same(tg, other)
    assert not alice.press(invite, "Cancel").show_alert
    assert "withdrawn" in tg.message(alice.id, invite.message_id).body
    assert not bot.errors.records, bot.errors.messages()


@pytest.fixture
def inline_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    tg.add_chat(MEDIA, "channel", "nardy pictures")
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), media_chat=MEDIA)
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _card(tg: FakeTelegram, user: SimUser, feedback: bool = True) -> StoredMessage:
    qid = tg.inline_query(user.json, "")
    answer = tg.wait_inline_answer(qid)
    result = next(r for r in answer["results"] if str(r["id"]).startswith("short:"))
    posted = tg.choose_inline(user.json, qid, str(result["id"]), SOMEWHERE, feedback=feedback)
    tg.settle()
    return tg.message(posted.chat_id, posted.message_id)


def test_an_inline_challenge_is_accepted_only_on_its_own_card(
    tg: FakeTelegram, inline_bot: BotRunner, redis_url: str
) -> None:
    nia, mia = SimUser(tg, 61, "Nia"), SimUser(tg, 62, "Mia")
    nias, mias = _card(tg, nia), _card(tg, mia)
    nia_token = mia.button(nias, "Accept").split(":")[1]
    mia_token = nia.button(mias, "Accept").split(":")[1]
    assert _alert(mia.press_data(mias, f"ia:{nia_token}")) == NOT_HERE
    assert _alert(mia.press_data(mias, f"ix:{nia_token}")) == NOT_HERE
    assert _alert(nia.press_data(nias, f"ix:{mia_token}")) == NOT_HERE
    _same(tg, mias)
    _same(tg, nias)
    assert _keys(redis_url, "nardy:game:*") == [], "no game was started"
    assert not mia.press(nias, "Accept").show_alert, "Nia's challenge is still open, on Nia's card"
    assert "Nia" in (tg.message(nias.chat_id, nias.message_id).caption or "")
    assert not inline_bot.errors.records, inline_bot.errors.messages()


def test_a_card_the_bot_never_heard_of_is_refused_with_a_reason(
    tg: FakeTelegram, inline_bot: BotRunner, redis_url: str
) -> None:
    nia, mia = SimUser(tg, 61, "Nia"), SimUser(tg, 62, "Mia")
    card = _card(tg, nia, feedback=False)  # inline feedback off in @BotFather
    assert "not known to the bot" in _alert(mia.press(card, "Accept"))
    _same(tg, card)
    assert _keys(redis_url, "nardy:game:*") == []
    assert not inline_bot.errors.records, inline_bot.errors.messages()


def test_a_board_drawn_before_homes_existed_is_recognised_from_its_game(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    client = redis.Redis.from_url(redis_url)
    try:
        client.delete(f"nardy:home:{GROUP}:{msg.message_id}")  # as a board of an older version of the bot
    finally:
        client.close()
    assert not alice.press(msg, "13→7").show_alert
    assert _keys(redis_url, f"nardy:home:{GROUP}:{msg.message_id}") != [], "written down at its first press"
    assert board(tg, GROUP).message_id == msg.message_id
    assert not bot.errors.records, bot.errors.messages()
