"""The group lobby, the friend invitation, /resign with confirmation, /cancel, /help, /rules, commands."""

from __future__ import annotations

import asyncio

from bot.i18n import LANGUAGES
from bot.model.flow import ScriptedDice
from bot.model.table import Invite, Person
from bot.storage import Storage
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    board,
    invite_link,
    new_game_menu,
    reply_to,
    start_group_game,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer

GROUP = -1003


def _alert(answer: object) -> str:
    assert isinstance(answer, CallbackAnswer) and answer.show_alert, answer
    return str(answer.text)


def test_group_lobby_join_cancel_and_a_third_person(tg: FakeTelegram, bot: BotRunner) -> None:
    tg.add_chat(GROUP, "supergroup", "Club")
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    menu = new_game_menu(alice, GROUP)
    assert _alert(bob.press(menu, "Short")).startswith("This menu belongs to someone else")
    alice.press(menu, "Short")
    lobby = tg.message(GROUP, menu.message_id)
    assert lobby.body == "Alice wants to play Short nardy (backgammon). Who will play? Press Join."
    assert _alert(alice.press(lobby, "Join")) == "Wait for someone else to join your game."
    assert _alert(bob.press(lobby, "Cancel")) == "Only Alice can cancel this game."
    join = bob.button(lobby, "Join")
    assert not bob.press(lobby, "Join").show_alert
    assert tg.message(GROUP, lobby.message_id).body.endswith("Alice vs Bob. The game is on!")
    assert tg.message(GROUP, lobby.message_id).buttons == []
    assert _alert(carol.press_data(lobby, join)) == "This game already has two players."
    assert len([m for m in tg.bot_messages(GROUP) if m.photo is not None]) == 1
    sent = carol.say("/newgame", GROUP)
    again = carol.wait_message(lambda m: m.message_id > sent.message_id and m.text is not None, GROUP)
    assert again.body == "A game is already going on here. Finish it or /resign first."
    boards = [m for m in tg.bot_messages(GROUP) if m.photo is not None]
    assert len(boards) == 1, "the board is pointed to, not posted again"
    assert again.reply_to == boards[0].message_id


def test_the_starter_cancels_the_lobby(tg: FakeTelegram, bot: BotRunner) -> None:
    tg.add_chat(GROUP, "group", "Club")
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    menu = new_game_menu(alice, GROUP)
    alice.press(menu, "Long")
    join = bob.button(tg.message(GROUP, menu.message_id), "Join")
    assert not alice.press(menu, "Cancel").show_alert
    assert tg.message(GROUP, menu.message_id).body == "The game was cancelled."
    assert _alert(bob.press_data(menu, join)) == "This game is no longer open."
    # /cancel withdraws a lobby too
    menu = new_game_menu(alice, GROUP)
    alice.press(menu, "Long")
    assert reply_to(bob, "/cancel", GROUP).body == "Only Alice can cancel this game."
    alice.say("/cancel", GROUP)
    tg.wait_for(lambda: tg.message(GROUP, menu.message_id).body == "The game was cancelled.", what="cancel")


def test_an_invitation_is_used_once_and_not_by_its_author(tg: FakeTelegram, bot: BotRunner) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob", "ru"), SimUser(tg, 3, "Carol")
    invite, token = invite_link(tg, alice, "short")
    assert f"https://t.me/nardy_test_bot?start={token}" in invite.body
    share = next(b for b in invite.buttons if "url" in b)
    assert share["url"].startswith(
        "https://t.me/share/url?url=https%3A%2F%2Ft.me%2Fnardy_test_bot%3Fstart%3D"
    )
    assert (
        reply_to(alice, f"/start {token}").body == "This is your own invitation. Send the link to a friend."
    )
    bob.say(f"/start {token}")
    bob.wait_message(lambda m: (m.text or "").startswith("Вы играете: Короткие нарды, соперник — Alice"))
    assert wait_board(tg, alice.id) and wait_board(tg, bob.id)
    assert tg.message(alice.id, invite.message_id).body == "Bob accepted your invitation. The game is on!"
    assert reply_to(carol, f"/start {token}").body == "This invitation has expired or was already used."
    assert reply_to(carol, "/start nosuchtoken").body == "This invitation has expired or was already used."


def test_an_invitation_can_be_withdrawn(tg: FakeTelegram, bot: BotRunner) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    invite, token = invite_link(tg, alice, "long")
    assert not alice.press(invite, "Cancel").show_alert
    assert tg.message(alice.id, invite.message_id).body == "The invitation was withdrawn."
    assert reply_to(bob, f"/start {token}").body == "This invitation has expired or was already used."
    assert reply_to(alice, "/cancel").body == "You have no open invitation."


def test_resign_asks_first_and_scores_by_the_position(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    dice.push(2, 5)  # long: Bob wins the opening and rolls next
    first = start_group_game(tg, GROUP, alice, bob, "long")
    assert reply_to(carol, "/resign", GROUP).body == "You are not playing in this game."
    question = reply_to(alice, "/resign", GROUP)
    assert question.body == "Alice, do you really want to resign this game?"
    assert _alert(bob.press(question, "Yes")).startswith("This menu belongs to someone else")
    alice.press(question, "No")
    assert tg.message(GROUP, question.message_id).body == "Play on!"
    assert "Rematch" not in " ".join(board(tg, GROUP).button_texts)
    question = reply_to(alice, "/resign", GROUP)
    assert not alice.press(question, "Yes").show_alert
    caption = tg.message(GROUP, first.message_id).caption or ""
    assert "Alice resigned." in caption and "Bob wins: mars, 2 points." in caption, (
        caption
    )  # RULES §2.8 (long)
    assert reply_to(alice, "/resign", GROUP).body == "There is no game going on here."


def test_help_rules_start_and_the_command_menu(tg: FakeTelegram, bot: BotRunner) -> None:
    ivan, anna = SimUser(tg, 5, "Иван", "ru-RU"), SimUser(tg, 6, "Anna", "de")
    assert "/newgame" in reply_to(ivan, "/help").body and "Отменить" in reply_to(ivan, "/help").body
    assert reply_to(anna, "/rules").body.startswith("Short nardy (backgammon): 15 checkers each")
    assert reply_to(ivan, "/rules").body.startswith("Короткие нарды: у каждого 15 шашек")
    assert reply_to(anna, "/start").body.startswith("Hello! I am a nardy bot")
    commands = tg.commands()
    private = [
        "newgame",
        "resign",
        "cancel",
        "claim",
        "stats",
        "top",
        "history",
        "settings",
        "verify",
        "export",
        "seed",
        "rules",
        "help",
        "forget",
        "start",
    ]
    assert [c["command"] for c in commands["default/"]] == private
    assert [c["command"] for c in commands["all_private_chats/"]] == private
    assert [c["command"] for c in commands["all_group_chats/"]] == [
        "newgame",
        "tournament",
        "resign",
        "cancel",
        "claim",
        "stats",
        "top",
        "history",
        "verify",
        "export",
        "rules",
        "help",
    ]
    assert commands["all_group_chats/ru"][0]["description"] == "Новая игра"
    descriptions = tg.descriptions()
    assert descriptions[("short", "")].startswith("Short and long nardy")
    assert descriptions[("description", "ru")].startswith("Короткие нарды")
    english = {c["description"] for c in commands["all_private_chats/"]}
    for lang in LANGUAGES[1:]:  # each language's menus and descriptions, in that language
        for scope in ("default", "all_private_chats", "all_group_chats"):
            menu = commands[f"{scope}/{lang}"]
            assert [c["command"] for c in menu] == [c["command"] for c in commands[f"{scope}/"]], lang
            assert all(3 <= len(c["description"]) <= 256 for c in menu), lang  # Telegram's limits
            assert not english & {c["description"] for c in menu}, lang
        assert len(descriptions[("description", lang)]) <= 512, lang
        assert len(descriptions[("short", lang)]) <= 120, lang


def test_an_unknown_command_gets_a_pointer_to_help_in_private_and_silence_in_a_group(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    anna = SimUser(tg, 31, "Анна", "ru")
    assert reply_to(anna, "/hello").text == "Такой команды я не знаю. /help расскажет, что я умею."
    group = -3100
    tg.add_chat(group, "group")
    anna.say("/hello", group)
    assert reply_to(anna, "/help", group).text is not None  # the next bot message answers /help, not /hello
    assert not [m for m in tg.bot_messages(group) if "не знаю" in (m.text or "")]


def test_an_invitation_whose_token_begins_like_a_tournament_link_is_still_an_invitation(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    """Tokens are random URL-safe text: one in 4,096 begins with "t_", a tournament card's deep link prefix.
    The link is told apart by its whole shape, so such an invitation is accepted as one."""
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    token = "t_" + "A" * 14  # an invitation token's 16 characters (menus.py: new_id(12))

    async def put() -> None:
        storage = Storage.from_url(redis_url)
        try:
            await storage.rooms.put_invite(Invite(token, "short", Person(alice.id, "Alice")))
        finally:
            await storage.close()

    asyncio.run(put())
    assert reply_to(bob, f"/start {token}").body == "You are playing Short nardy (backgammon) with Alice."
    assert wait_board(tg, alice.id) and wait_board(tg, bob.id)
