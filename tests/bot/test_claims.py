"""Abandoned games (the opponent of an idle player claims the win) and the expiry of every key a game makes."""

from __future__ import annotations

import json

import pytest
import redis

from bot.config import DEFAULT_CLAIM_AFTER, ConfigError, claim_after_from_env
from bot.model.flow import Refused, ScriptedDice
from bot.model.table import Table
from bot.model.waiting import check_claim, idle_side
from bot.storage.keys import ACTIVE_TTL, FINISHED_TTL, INVITE_TTL, LOBBY_TTL
from engine import Game, Side
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    board,
    data_of,
    reply_to,
    start_computer_game,
    start_friend_game,
    start_group_game,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import StoredMessage

GROUP = -1006
DAY = 24 * 3600


def game_id_of(msg: StoredMessage) -> str:
    ids = {str(b["callback_data"]).split(":")[1] for b in msg.buttons if "callback_data" in b}
    assert len(ids) == 1, f"expected the buttons of one game, got {msg.buttons}"
    return ids.pop()


def stored(redis_url: str, game_id: str) -> dict[str, object]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        raw = client.get(f"nardy:game:{game_id}")
        assert raw is not None, f"game {game_id} is not in Redis"
        record: dict[str, object] = json.loads(raw)
        return record
    finally:
        client.close()


def backdate(redis_url: str, game_id: str, seconds: float) -> None:
    """Pretend the last change of the game was `seconds` earlier (the stored timestamp; TTL kept)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        key = f"nardy:game:{game_id}"
        record = json.loads(client.get(key) or "null")
        assert isinstance(record.get("moved_at"), float), f"no moved_at in {record}"
        record["moved_at"] -= seconds
        client.set(key, json.dumps(record), keepttl=True)
    finally:
        client.close()


# ---------------------------------------------------------------------- the rule, without Telegram


def _table(moved_at: float | None, mode: str = "friend") -> Table:
    from bot.model.table import Person

    game = Game.new("short").opening_roll(6, 1)  # white moves first
    black = Person(0, "computer", level="beginner") if mode == "computer" else Person(2, "Bob")
    return Table("t1", mode, game, (Person(1, "Alice"), black), "en", moved_at=moved_at)


def test_only_the_player_on_turn_becomes_idle_and_only_after_the_claim_time() -> None:
    table = _table(moved_at=1000.0)
    assert idle_side(table, 1000.0 + 59, 60) is None
    assert idle_side(table, 1000.0 + 60, 60) is Side.WHITE
    assert check_claim(table, 2, 1000.0 + 60, 60) is Side.WHITE
    with pytest.raises(Refused) as early:
        check_claim(table, 2, 1000.0 + 10, DAY)
    assert early.value.params == {"hours": 24}
    with pytest.raises(Refused) as soon:
        check_claim(table, 2, 1000.0 + DAY - 61, DAY)
    assert soon.value.params == {"minutes": 2}
    with pytest.raises(Refused, match="It is your turn"):
        check_claim(table, 1, 1000.0 + DAY, DAY)
    assert idle_side(_table(moved_at=None), 10**12, 60) is None, "an unknown time is never idle"
    assert idle_side(_table(1000.0, "computer"), 10**12, 60) is None, "nothing to claim from the computer"


def test_claim_after_comes_from_the_environment() -> None:
    assert claim_after_from_env({}) == DEFAULT_CLAIM_AFTER == DAY
    assert claim_after_from_env({"NARDY_CLAIM_AFTER": " 90 "}) == 90.0
    for bad in ("soon", "-5", "inf"):
        with pytest.raises(ConfigError, match="NARDY_CLAIM_AFTER"):
            claim_after_from_env({"NARDY_CLAIM_AFTER": bad})


# ---------------------------------------------------------------------- claims through the bot


def test_the_opponent_of_an_idle_player_claims_the_win_scored_as_a_resignation(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob", "ru")
    dice.push(6, 1)  # Alice (white) moves first
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    game_id = game_id_of(msg)
    alice.press(msg, "13→7")
    before = stored(redis_url, game_id)
    assert before["moved_at"] is not None

    early = reply_to(bob, "/claim", GROUP)
    assert early.body.startswith("У соперника ещё есть время на ход.")
    backdate(redis_url, game_id, DAY + 60)
    assert reply_to(alice, "/claim", GROUP).body == "It is your turn: there is nothing to claim."
    assert reply_to(SimUser(tg, 3, "Carol"), "/claim", GROUP).body == "You are not playing in this game."

    answer = bob.press_data(tg.message(GROUP, msg.message_id), data_of(board(tg, GROUP), "m:")[0])
    assert answer.show_alert and answer.text == (  # type: ignore[union-attr]
        "Alice давно не ходит. Вы можете забрать победу: нажмите кнопку ниже."
    )
    offer = bob.wait_message(lambda m: any("Забрать" in t for t in m.button_texts), GROUP)
    assert stored(redis_url, game_id)["version"] == before["version"], "the press changed nothing"
    assert alice.press_data(offer, bob.button(offer, "Забрать")).text == (  # type: ignore[union-attr]
        "This menu belongs to someone else. Send /newgame to start your own game."
    )
    claimed = bob.press(offer, "Забрать")
    assert not claimed.show_alert, claimed.text
    assert tg.message(GROUP, offer.message_id).text == "Bob забирает победу."

    after = stored(redis_url, game_id)
    expected = Game.from_json(before["game"]).resign(Side.WHITE).result
    assert expected is not None
    result = Game.from_json(after["game"]).result
    assert result == expected and result.winner is Side.BLACK
    assert after["score"] == [0, expected.points]
    caption = board(tg, GROUP).caption or ""
    assert "Alice did not move for too long; the game was claimed by Bob." in caption
    assert "Bob wins" in caption and data_of(board(tg, GROUP), "r:")
    assert not bot.errors.records, bot.errors.messages()


def test_a_move_after_the_offer_makes_the_claim_button_stale(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(1, 6, 6, 1)  # Bob (black) moves first, with 6-1
    _, bob_board = start_friend_game(tg, alice, bob, "short")
    game_id = game_id_of(bob_board)
    backdate(redis_url, game_id, DAY + 1)
    offer = reply_to(alice, "/claim")
    assert offer.body == "Bob has not moved for a long time. You may claim the win: press the button below."
    assert not bob.press(bob_board, "13→7").show_alert  # Bob is back
    stale = alice.press(offer, "Claim win")
    assert stale.show_alert and stale.text == "This board is out of date. Use the latest message."
    assert reply_to(alice, "/claim").body.startswith("Your opponent still has time to move.")
    assert not Game.from_json(stored(redis_url, game_id)["game"]).result
    assert not bot.errors.records, bot.errors.messages()


def test_an_idle_friend_game_is_claimed_and_both_boards_show_the_result(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(1, 6, 6, 1)
    _, bob_board = start_friend_game(tg, alice, bob, "long")
    backdate(redis_url, game_id_of(bob_board), 2 * DAY)
    answer = alice.press(reply_to(alice, "/claim"), "Claim win")
    assert not answer.show_alert, answer.text
    for user in (alice, bob):
        assert data_of(board(tg, user.id), "r:"), f"{user.first_name}'s board does not show the end"
        assert "Alice wins" in (board(tg, user.id).caption or "")
    assert not bot.errors.records, bot.errors.messages()


def test_there_is_nothing_to_claim_against_the_computer(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    ivan = SimUser(tg, 5, "Ivan")
    dice.push(6, 1)
    msg = start_computer_game(tg, ivan, "short", "Beginner")
    backdate(redis_url, game_id_of(msg), 30 * DAY)
    assert reply_to(ivan, "/claim").body == (
        "There is nothing to claim in a game against the computer. Send /resign to end it."
    )
    assert reply_to(ivan, "/resign").body == "Ivan, do you really want to resign this game?"
    assert not bot.errors.records, bot.errors.messages()


# ---------------------------------------------------------------------- expiry


def test_every_key_a_game_makes_expires_and_finished_games_sooner(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol")
    dice.push(6, 1)
    group_board = start_group_game(tg, GROUP, alice, bob, "short")
    dice.push(1, 6)
    friend_boards = start_friend_game(tg, carol, bob, "long")
    reply_to(alice, "/newgame")  # a menu only: nothing stored
    tg.add_chat(-1007, "group", "Second club")
    menu = reply_to(carol, "/newgame", -1007)
    carol.press(menu, "Short")  # an open lobby
    dana = SimUser(tg, 4, "Dana")
    menu = reply_to(dana, "/newgame")
    dana.press(menu, "Short")
    dana.press(menu, "👥")  # an open invitation

    # the group game ends (Alice resigns): its keys get the shorter TTL, the friend game keeps its own
    alice.press(reply_to(alice, "/resign", GROUP), "Yes")
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = sorted(client.scan_iter(match="nardy:*"))
        ttls = {key: client.ttl(key) for key in keys}
    finally:
        client.close()
    group_id, friend_id = game_id_of(group_board), game_id_of(friend_boards[1])
    assert {k for k in keys if k.startswith("nardy:game:")} == {
        f"nardy:game:{group_id}",
        f"nardy:game:{group_id}:messages",
        f"nardy:game:{friend_id}",
        f"nardy:game:{friend_id}:messages",
    }
    assert all(ttl > 0 for ttl in ttls.values()), f"keys that never expire: {ttls}"
    finished = [f"nardy:game:{group_id}", f"nardy:game:{group_id}:messages", f"nardy:chat:{GROUP}:game"]
    assert all(FINISHED_TTL - 60 < ttls[k] <= FINISHED_TTL for k in finished), ttls
    active = [f"nardy:game:{friend_id}", f"nardy:game:{friend_id}:messages", "nardy:chat:3:game"]
    assert all(FINISHED_TTL < ttls[k] <= ACTIVE_TTL for k in active), ttls
    assert 0 < ttls["nardy:lobby:-1007"] <= LOBBY_TTL
    assert [k for k in keys if k.startswith("nardy:invite:")], keys
    assert all(0 < ttls[k] <= INVITE_TTL for k in keys if "invite" in k)
    assert all(0 < ttls[k] <= ACTIVE_TTL for k in keys if k.endswith(":games"))
    assert not bot.errors.records, bot.errors.messages()
