"""/forget (/deletedata): a user's data is deleted on request, after a confirmation, in the real Redis."""

from __future__ import annotations

import json
from unittest.mock import ANY

import pytest
import redis

from bot.model.flow import ScriptedDice
from bot.telegram import button_homes
from engine import Game, Side
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import board, data_of, reply_to, start_friend_game, start_group_game
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import StoredMessage

GROUP, OTHER_GROUP = -1008, -1009


def game_id_of(msg: StoredMessage) -> str:
    return str(msg.buttons[0]["callback_data"]).split(":")[1]


def everything(redis_url: str) -> dict[str, str]:
    """Every nardy:* key with its value as text (strings, hashes, lists, sets and sorted sets)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        out: dict[str, str] = {}
        for key in client.scan_iter(match="nardy:*"):
            kind = client.type(key)
            value: object = (
                client.get(key)
                if kind == "string"
                else client.hgetall(key)
                if kind == "hash"
                else client.zrange(key, 0, -1, withscores=True)
                if kind == "zset"
                else client.lrange(key, 0, -1)
                if kind == "list"
                else sorted(client.smembers(key))
            )
            out[key] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return out
    finally:
        client.close()


def test_forget_resigns_live_games_anonymises_them_and_deletes_the_rest(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alicia"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    # a finished friend game (Alicia resigned it), then an invitation of hers
    dice.push(6, 1)
    alice_board, _ = start_friend_game(tg, alice, carol, "short")
    finished_id = game_id_of(alice_board)
    alice.press(reply_to(alice, "/resign"), "Yes")
    menu = reply_to(alice, "/newgame")
    alice.press(menu, "Short")
    alice.press(menu, "👥")
    # a live group game in which Alicia is on turn, and her open lobby in another group
    dice.push(6, 1)
    group_board = start_group_game(tg, GROUP, alice, bob, "long")
    live_id = game_id_of(group_board)
    tg.add_chat(OTHER_GROUP, "group", "Other club")
    lobby_menu = reply_to(alice, "/newgame", OTHER_GROUP)
    alice.press(lobby_menu, "Short")
    before = everything(redis_url)
    assert any("Alicia" in v for v in before.values())
    assert {
        "nardy:user:1:invite",
        "nardy:user:1:games",
        "nardy:chat:1:game",
        f"nardy:lobby:{OTHER_GROUP}",
    } <= set(before)
    live_before = json.loads(before[f"nardy:game:{live_id}"])

    question = reply_to(alice, "/deletedata")
    assert question.body.startswith("Alicia, this deletes your data from the bot")
    refused = bob.press_data(question, alice.button(question, "Yes"))
    assert refused.text == "This menu belongs to someone else. Send /newgame to start your own game."  # type: ignore[union-attr]
    asked = {f"nardy:home:{question.chat_id}:{question.message_id}": "forget:1", "nardy:user:1:homes": ANY}
    assert everything(redis_url) == before | asked, "nothing happens before the confirmation"
    answer = alice.press(question, "Yes, delete my data")
    assert not answer.show_alert, answer.text
    assert tg.message(alice.id, question.message_id).text == (
        "Your data was deleted.\nGames in progress resigned (your name removed): 1\n"
        "Finished games deleted: 1\nInvitations withdrawn: 1\nOpen group games cancelled: 1\n"
        "Settings deleted (back to the defaults): 0\n"
        "Ratings, statistics and game history deleted; you left every leaderboard."
    )

    after = everything(redis_url)
    assert not any("Alicia" in v for v in after.values()), "her name is gone from every key"
    assert not any(k.startswith(("nardy:user:1:", "nardy:chat:1:")) for k in after), sorted(after)
    hers = [k for k, v in before.items() if k.startswith("nardy:home:") and button_homes.owner(v) == 1]
    assert hers and any(k.startswith("nardy:home:1:") for k in before), "her menus were written down"
    assert not any(k in after for k in hers), "the homes naming her are deleted"
    assert not any(k.startswith("nardy:home:1:") for k in after), "and those of her private chat"
    assert not any(finished_id in k for k in after if not k.startswith("nardy:recorded:")), (
        "the finished game is deleted with its keys (its result's marker stays: numbers only, 30 days)"
    )
    assert not any(k.startswith(("nardy:invite:", "nardy:lobby:")) for k in after), sorted(after)
    # the live game stays for Bob: resigned by her side, scored as a resignation, without her id
    live = json.loads(after[f"nardy:game:{live_id}"])
    assert [p["id"] for p in live["players"]] == [0, 2]
    expected = Game.from_json(live_before["game"]).resign(Side.WHITE).result
    assert Game.from_json(live["game"]).result == expected
    caption = board(tg, GROUP).caption or ""
    assert "a former player resigned." in caption and "Bob wins" in caption
    assert tg.message(OTHER_GROUP, lobby_menu.message_id).text == "The game was cancelled."
    rematch = bob.press_data(board(tg, GROUP), data_of(board(tg, GROUP), "r:")[0])
    assert rematch.text == "The other player has left: no rematch. Send /newgame to start a new game."  # type: ignore[union-attr]
    assert reply_to(bob, "/newgame", GROUP).body == "Which game?"
    assert not bot.errors.records, bot.errors.messages()


def test_forget_in_a_private_game_leaves_the_friend_a_finished_board(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alicia", "ru"), SimUser(tg, 2, "Bob")
    dice.push(1, 6, 6, 1)  # Bob moves first
    _, bob_board = start_friend_game(tg, alice, bob, "short")
    game_id = game_id_of(bob_board)
    answer = alice.press(reply_to(alice, "/forget"), "Да, удалить")
    assert not answer.show_alert, answer.text
    after = everything(redis_url)
    assert set(after) == {
        f"nardy:game:{game_id}",
        f"nardy:game:{game_id}:messages",
        f"nardy:home:2:{bob_board.message_id}",  # Bob's board (board:<game>)
        "nardy:chat:2:game",
        "nardy:user:2:games",
        "nardy:user:2:dice",  # Bob's part of the dice secret for his next game
        "nardy:user:2:stats",  # Bob's statistics, rating and history: he won by her resignation
        "nardy:user:2:rating:short",
        "nardy:user:2:history",
        f"nardy:recorded:{game_id}/1",  # the marker of that result (no names)
    }
    assert "Alicia" not in after[f"nardy:game:{game_id}"]
    messages = json.loads(after[f"nardy:game:{game_id}:messages"])
    assert {k: v for k, v in messages.items() if not k.startswith("v:")} == {"b": str(bob_board.message_id)}
    assert not board(tg, alice.id).buttons, "her board lost its keyboard"
    assert "a former player resigned." in (board(tg, bob.id).caption or "")
    assert data_of(board(tg, bob.id), "r:")
    assert not bot.errors.records, bot.errors.messages()


def test_no_keeps_everything_and_a_stranger_has_nothing_to_delete(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob, zoe = SimUser(tg, 1, "Alicia"), SimUser(tg, 2, "Bob"), SimUser(tg, 9, "Zoe")
    dice.push(6, 1)
    start_group_game(tg, GROUP, alice, bob, "short")
    before = everything(redis_url)
    question = reply_to(alice, "/forget", GROUP)
    assert not alice.press(question, "No, keep it").show_alert
    assert tg.message(GROUP, question.message_id).text == "Nothing was deleted."
    assert everything(redis_url) == before
    zoe.press(reply_to(zoe, "/forget"), "Yes")
    assert tg.bot_messages(zoe.id)[-1].text == (
        "Your data was deleted.\nGames in progress resigned (your name removed): 0\n"
        "Finished games deleted: 0\nInvitations withdrawn: 0\nOpen group games cancelled: 0\n"
        "Settings deleted (back to the defaults): 0"
    )
    assert everything(redis_url) == before
    assert not bot.errors.records, bot.errors.messages()


def test_forget_during_a_rated_match_rates_it_and_its_end_shows_the_rating_line(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alicia"), SimUser(tg, 2, "Bob")
    tg.add_chat(GROUP, "group", "Nardy club")
    menu = reply_to(alice, "/newgame", GROUP)
    assert not getattr(alice.press_data(menu, f"v:{alice.id}:short.3"), "show_alert", False)
    assert not bob.press(tg.message(GROUP, menu.message_id), "Join").show_alert
    first = board(tg, GROUP)
    assert "match to 3, game 1" in (first.caption or ""), first.caption
    answer = alice.press(reply_to(alice, "/forget"), "Yes, delete my data")
    assert not answer.show_alert, answer.text
    caption = tg.wait_for(
        lambda: "Rating: " in (board(tg, GROUP).caption or "") and board(tg, GROUP).caption, 10, "the ratings"
    )
    assert "a former player resigned the match." in caption and "Bob wins the match 3 : 0" in caption, caption
    # a match to 3 between two newcomers: 4·√3·0.5·5 = 17.3 points; her own rating is deleted, not shown
    assert "Rating: Bob 1517.3 (+17.3)\n" in caption, caption
    bob_stats = json.loads(everything(redis_url)["nardy:user:2:stats"])
    assert float(bob_stats["short:rating"]) == pytest.approx(1517.32, abs=0.01), bob_stats
    assert not bot.errors.records, bot.errors.messages()
