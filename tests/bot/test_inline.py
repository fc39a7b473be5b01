"""Inline mode through the fake Bot API: challenge cards posted in any chat, accepted by the named user only
(or by the first other person), a whole game played in the one inline message, the resign-or-claim menu,
rematch, and Telegram's rule that an inline message's media is never an upload."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator

import pytest

from bot.model.flow import ScriptedDice, engine_computer
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import MOVER, play_turn, reply_to
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

MEDIA = -1009000  # the bot's private channel for pictures
SOMEWHERE = 777  # a chat the bot is not in: Alice's chat with Carol


@pytest.fixture
def inline_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    tg.add_chat(MEDIA, "channel", "nardy pictures")
    runner = BotRunner(
        tg.api_url, redis_url, dice, engine_computer(seed=3), media_chat=MEDIA, claim_after=1.0
    )
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _card(tg: FakeTelegram, user: SimUser, variant: str, query: str = "") -> StoredMessage:
    """`@bot <query>` in SOMEWHERE, and the card of `variant` posted there."""
    qid = tg.inline_query(user.json, query)
    answer = tg.wait_inline_answer(qid)
    assert answer.get("is_personal") is True
    result = next(r for r in answer["results"] if str(r["id"]).startswith(variant + ":"))
    posted = tg.choose_inline(user.json, qid, str(result["id"]), SOMEWHERE)
    return tg.message(posted.chat_id, posted.message_id)  # a snapshot


def _alert(answer: object) -> str:
    assert isinstance(answer, CallbackAnswer) and answer.show_alert, answer
    return str(answer.text)


def _now(tg: FakeTelegram, card: StoredMessage) -> StoredMessage:
    return tg.message(card.chat_id, card.message_id)


def test_without_a_media_chat_inline_mode_says_games_are_not_available_here(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    alice = SimUser(tg, 1, "Alice")
    answer = tg.wait_inline_answer(tg.inline_query(alice.json, ""))
    assert [r["type"] for r in answer["results"]] == ["article"]
    assert "not available" in answer["results"][0]["title"]
    assert answer["button"]["start_parameter"] == "inline"
    assert not bot.errors.records, bot.errors.messages()


def test_a_challenge_card_is_accepted_by_another_person_and_the_game_is_played_in_it_to_the_end(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice, carol, dan = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol"), SimUser(tg, 4, "Dan")
    card = _card(tg, alice, "short")
    assert card.inline_id is not None and card.photo is not None
    assert "Alice challenges you to Short nardy" in (card.caption or "")
    assert _alert(alice.press(card, "Accept")).startswith("Wait for someone to accept")
    assert not carol.press(card, "Accept").show_alert
    game = _now(tg, card)
    assert "Alice vs" in (game.caption or "") or "Alice" in (game.caption or "")
    assert game.photo != card.photo, "the card became the board"
    assert "⚑ Resign or claim" in game.button_texts
    assert _alert(dan.press_data(game, "ia:" + "x" * 12)) == "This button does not belong to this message."

    players = {"Alice": alice, "Carol": carol}
    rng = random.Random(5)
    for _ in range(1000):
        now = _now(tg, card)
        if any("Rematch" in text for text in now.button_texts):
            break
        found = MOVER.search(now.caption or "")
        assert found, now.caption
        mover = players[found["name"]]
        other = carol if mover is alice else alice
        moves = [b for b in now.buttons if str(b.get("callback_data", "")).startswith("m:")]
        if moves:
            assert _alert(other.press_data(now, str(moves[0]["callback_data"]))) == "It is not your turn."
            assert (
                _alert(dan.press_data(now, str(moves[0]["callback_data"])))
                == "You are not playing in this game."
            )
        play_turn(mover, now, rng)
    final = _now(tg, card)
    assert re.search(r"(Alice|Carol) wins", final.caption or ""), final.caption
    assert tg.bot_messages(SOMEWHERE) == [], "the bot never wrote in the chat itself"
    inline_edits = [p for m, p in tg.calls("editMessageMedia") if p.get("inline_message_id")]
    assert inline_edits and all(not str(p["media"]["media"]).startswith("attach://") for p in inline_edits)
    uploads = [p for m, p in tg.calls("sendPhoto") if int(p["chat_id"]) == MEDIA]
    assert len(uploads) >= len(inline_edits), "every new picture went to the media chat first"
    assert not inline_bot.errors.records, inline_bot.errors.messages()


def test_a_named_challenge_is_for_that_user_only(tg: FakeTelegram, inline_bot: BotRunner) -> None:
    alice = SimUser(tg, 1, "Alice")
    carol, dan = SimUser(tg, 3, "Carol", username="Carol_X"), SimUser(tg, 4, "Dan", username="dan")
    card = _card(tg, alice, "long", "@carol_x")
    assert "Alice challenges @carol_x to Long nardy" in (card.caption or "")
    assert _alert(dan.press(card, "Accept")) == "This challenge is for @carol_x."
    assert "⚔️" in (_now(tg, card).caption or ""), "still a card"
    assert not carol.press(card, "Accept").show_alert
    assert "Long nardy" in (_now(tg, card).caption or "") and "⚔️" not in (_now(tg, card).caption or "")


def test_plain_words_in_the_query_name_nobody_and_the_cards_are_open_to_anyone(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol", username="Carol_X")
    for query in ("let us play now", "play carol_x", "nardy please"):
        answer = tg.wait_inline_answer(tg.inline_query(alice.json, query))
        captions = [str(r["caption"]) for r in answer["results"]]
        assert len(captions) == 2 and all("challenges you to" in c and "@" not in c for c in captions), (
            captions
        )
    card = _card(tg, alice, "short", "let us play now")
    assert "Alice challenges you to Short nardy" in (card.caption or ""), card.caption
    assert not carol.press(card, "Accept").show_alert, "an open card: anyone may accept it"
    assert "⚔️" not in (_now(tg, card).caption or ""), "the card became the board"
    assert not inline_bot.errors.records, inline_bot.errors.messages()


def test_the_answer_with_cards_carries_a_button_to_the_private_chat_that_greets(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice = SimUser(tg, 1, "Alice", "ru")
    answer = tg.wait_inline_answer(tg.inline_query(alice.json, ""))
    assert [r["type"] for r in answer["results"]] == ["photo", "photo"]
    assert answer["button"] == {"text": "Играть в чате с ботом", "start_parameter": "inline"}, answer.get(
        "button"
    )
    greeting = reply_to(alice, "/start inline").body
    assert greeting.startswith("Привет!"), greeting  # the greeting, not an invitation's refusal
    assert not inline_bot.errors.records, inline_bot.errors.messages()


def test_the_challenger_withdraws_a_card_and_then_nobody_can_accept_it(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol")
    card = _card(tg, alice, "short")
    accept = carol.button(card, "Accept")
    assert _alert(carol.press(card, "Cancel")) == "Only Alice can cancel this challenge."
    assert not alice.press(card, "Cancel").show_alert
    assert _now(tg, card).caption == "Alice withdrew the challenge." and not _now(tg, card).buttons
    assert _alert(carol.press_data(card, accept)) == "This challenge is no longer open."


def test_two_people_accepting_one_card_at_once_start_one_game(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice, carol, dan = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol"), SimUser(tg, 4, "Dan")
    card = _card(tg, alice, "short")
    data = carol.button(card, "Accept")
    qids = [str(u.press_data(card, data, wait=False)) for u in (carol, dan)]
    answers = [tg.wait_answer(q) for q in qids]
    assert sorted(a.show_alert for a in answers) == [False, True], answers
    assert next(a.text for a in answers if a.show_alert) == "This challenge is no longer open."
    inline_bot.settle()
    assert "⚑ Resign or claim" in _now(tg, card).button_texts


def test_an_inline_message_refuses_an_uploaded_picture_as_telegram_does(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    import http.client
    import json
    import uuid

    alice = SimUser(tg, 1, "Alice")
    card = _card(tg, alice, "short")
    boundary = uuid.uuid4().hex
    jpeg = b"\xff\xd8" + b"0" * 64
    fields = {
        "inline_message_id": str(card.inline_id),
        "media": json.dumps({"type": "photo", "media": "attach://pic"}),
    }
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    )
    body += f'--{boundary}\r\nContent-Disposition: form-data; name="pic"; filename="b.jpg"\r\n\r\n'.encode()
    body += jpeg + f"\r\n--{boundary}--\r\n".encode()
    port = int(tg.api_url.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(
            "POST",
            f"/bot{tg.token}/editMessageMedia",
            body,
            {"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        response = conn.getresponse()
        answer = json.loads(response.read())
    finally:
        conn.close()
    assert response.status == 400 and "uploaded file" in answer["description"]


def test_the_inline_menu_resigns_for_its_opener_only_and_rematch_goes_on_in_the_same_message(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol")
    card = _card(tg, alice, "short")
    carol.press(card, "Accept")
    assert not alice.press(card, "⚑").show_alert
    menu = _now(tg, card)
    assert "🏳 Resign" in menu.button_texts and "↩ Back to the board" in menu.button_texts
    assert _alert(carol.press(menu, "🏳 Resign")).startswith("This menu belongs to someone else")
    assert not carol.press(menu, "Back").show_alert
    assert "⚑ Resign or claim" in _now(tg, card).button_texts
    alice.press(_now(tg, card), "⚑")
    assert not alice.press(_now(tg, card), "🏳 Resign").show_alert
    over = _now(tg, card)
    assert "Carol wins" in (over.caption or ""), over.caption
    assert not carol.press(over, "Rematch").show_alert
    again = _now(tg, card)
    assert "game 2" in (again.caption or "") and "⚑ Resign or claim" in again.button_texts


def test_an_idle_inline_game_is_claimed_from_the_menu(tg: FakeTelegram, inline_bot: BotRunner) -> None:
    alice, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol")
    card = _card(tg, alice, "short")
    carol.press(card, "Accept")
    board = _now(tg, card)
    mover = "Alice" if "Alice moves" in (board.caption or "") else "Carol"
    waiting = carol if mover == "Alice" else alice
    waiting.press(board, "⚑")
    early = _alert(waiting.press(_now(tg, card), "Claim"))
    assert early.startswith("Your opponent still has time to move")
    time.sleep(1.2)  # claim_after is 1 s in this bot; the menu is still open
    assert not waiting.press(_now(tg, card), "Claim").show_alert
    assert f"{waiting.first_name} wins" in (_now(tg, card).caption or "")


def test_an_inline_match_with_the_cube_from_the_query_words_and_its_menu_resigns_the_whole_match(
    tg: FakeTelegram, inline_bot: BotRunner
) -> None:
    alice, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 3, "Carol")
    card = _card(tg, alice, "short.5c", "5 cube")
    assert "Short nardy (backgammon), match to 5, with the doubling cube" in (card.caption or ""), (
        card.caption
    )
    carol.press(card, "Accept")
    board = _now(tg, card)
    assert "Match to 5: Alice 0 : 0 Carol" in (board.caption or ""), board.caption
    alice.press(board, "⚑")
    menu = _now(tg, card)
    assert {"🏳 This game", "🏳 The whole match"} <= set(menu.button_texts), menu.button_texts
    assert not alice.press(menu, "🏳 The whole match").show_alert
    over = tg.wait_for(
        lambda: "wins the match" in (_now(tg, card).caption or "") and _now(tg, card), 10, "the end"
    )
    assert "🏆 Carol wins the match 5 : 0!" in (over.caption or ""), over.caption
    assert "🔁 New match" in over.button_texts
