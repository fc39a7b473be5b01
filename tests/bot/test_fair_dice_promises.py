"""The promises of the fair dice and the records kept under attack, through the fake Bot API over HTTP:
typed ids that name other Redis keys or are no ids at all, a Redis refusal that is no outage, a repeated
/export, the computer's part of the secret committed before the player's /seed, and every game of a match
and of a rematch series revealed and verifiable afterwards, checked with the public derivation only."""

from __future__ import annotations

import hashlib
import random
import re
import shlex
from collections.abc import Iterator

import pytest
import redis

from bot.model.flow import FairDice, engine_computer
from bot.storage.keys import dice_secret_key, game_key
from engine.fair_dice import combine, commitment, fair_roll, recorded_rolls
from engine.records.json_record import parse_json
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    MOVER,
    board,
    has_turn,
    new_game_menu,
    play_turn,
    reply_to,
    resign,
    start_computer_game,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import StoredMessage

COMMITMENT = re.compile(r"🔒 Dice commitment: ([0-9a-f]{64}) \(/verify ([A-Za-z0-9_-]+/\d+)\)")
PROMISED = re.compile(r"Its SHA-256: ([0-9a-f]{64})")
REVEALED = re.compile(r"🔓 Dice seed(?: of game [^:]+)?: ([0-9a-f]{64}) \(/verify ([A-Za-z0-9_-]+/\d+)\)")
GROUP = -7303


@pytest.fixture
def fair_bot(tg: FakeTelegram, redis_url: str) -> Iterator[BotRunner]:
    """The bot with its production dice: every roll derived from each game's seeds."""
    runner = BotRunner(tg.api_url, redis_url, FairDice(), engine_computer(seed=3))
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _command_line(verified: str) -> dict[str, str]:
    """The arguments of the check /verify prints (`python3 verify_dice.py --seed=… --game=… …`)."""
    assert "python3 verify_dice.py" in verified, verified
    words = shlex.split(verified[verified.index("python3 verify_dice.py") :])[2:]
    return dict(word[2:].split("=", 1) for word in words)


def _finished_computer_game(tg: FakeTelegram, bot: BotRunner, user: SimUser) -> str:
    """A short game against the computer, resigned at once: its name "GAME/1"."""
    first = start_computer_game(tg, user, "short", "Beginner")
    found = COMMITMENT.search(first.caption or "")
    assert found, first.caption
    resign(user)
    bot.settle()
    return found[2]


def _files(tg: FakeTelegram, chat_id: int) -> list[StoredMessage]:
    return [m for m in tg.bot_messages(chat_id) if m.document is not None]


def test_typed_ids_naming_other_keys_paths_overlong_or_non_ascii_are_unknown_games_without_an_error(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    anna = SimUser(tg, 301, "Anna")
    game = _finished_computer_game(tg, bot, anna)
    game_id = game.split("/")[0]
    names = [
        f"{game_id}:messages",  # the game's messages hash
        f"{game_id}:messages/1",
        f"../{game_id}",
        f"{game_id}/../{game_id}",
        f"{game_id}/abc",
        "x" * 300,
        f"{game_id}é",
        "игра/1",
        f"{game_id}/1{'0' * 40}",
    ]
    for name in names:
        for command in (f"/verify {name}", f"/export {name} json"):
            said = reply_to(anna, command).body
            assert said.startswith("I know no game"), (command, said)
    assert reply_to(anna, f"/verify {game}").body.startswith("🎲 Dice of game"), "a real id still works"
    assert not _files(tg, anna.id), "no file for a wrong id"
    assert not bot.errors.records, bot.errors.messages()


def test_a_redis_refusal_that_is_no_outage_is_logged_as_an_error_not_called_unavailable(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    anna = SimUser(tg, 302, "Anna")
    client = redis.Redis.from_url(redis_url)
    try:
        client.hset(game_key("brokenGame1"), "x", "1")  # a key of the wrong type where a game would be
    finally:
        client.close()
    said = reply_to(anna, "/verify brokenGame1").body
    assert "not available" not in said and said == "Something went wrong. Please try again.", said
    assert any("WRONGTYPE" in m for m in bot.errors.messages()), bot.errors.messages()


def test_a_repeated_export_within_the_minute_says_the_file_was_sent_moments_ago_and_sends_one(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    anna = SimUser(tg, 303, "Anna")
    game = _finished_computer_game(tg, bot, anna)
    anna.say(f"/export {game} json")
    tg.wait_for(lambda: _files(tg, anna.id), 10.0, "the record")
    again = reply_to(anna, f"/export {game} json").body
    assert again.startswith("I sent this file here moments ago"), again
    assert "on its way" not in again
    bot.settle()
    assert len(_files(tg, anna.id)) == 1
    assert not bot.errors.records, bot.errors.messages()


def test_the_dice_against_the_computer_follow_from_parts_whose_hashes_seed_showed_before_the_players_seed(
    tg: FakeTelegram, fair_bot: BotRunner, redis_url: str
) -> None:
    anna = SimUser(tg, 304, "Anna")
    promised = PROMISED.findall(reply_to(anna, "/seed").body)
    assert len(promised) == 2, "/seed shows the hashes of both parts: Anna's, and the computer's"
    chosen = reply_to(anna, "/seed lucky-7").body  # the seed chosen after the bot is bound to both parts
    assert PROMISED.findall(chosen) == promised, chosen
    first = start_computer_game(tg, anna, "short", "Beginner")
    shown = COMMITMENT.search(first.caption or "")
    assert shown, first.caption
    rng = random.Random(4)
    for _ in range(6):
        fair_bot.settle()
        msg = board(tg, anna.id)
        if not has_turn(msg):
            break
        play_turn(anna, msg, rng)
    resign(anna)
    fair_bot.settle()

    # what the player checks, from what the bot showed: the hashes before, the parts and seeds after
    args = _command_line(reply_to(anna, f"/verify {shown[2]}").body)
    parts = (args["white-part"], args["black-part"])
    assert [hashlib.sha256(bytes.fromhex(p)).hexdigest() for p in parts] == promised
    secret = combine(parts)
    assert commitment(secret) == shown[1] and args["game"] == shown[2] and args["white"] == "lucky-7"
    anna.say(f"/export {shown[2]} json")
    sent = tg.wait_for(lambda: _files(tg, anna.id), 10.0, "the record")
    record = parse_json((sent[0].document or b"").decode())
    rolls = recorded_rolls(record.game)
    assert len(rolls) >= 4, rolls
    derived = [fair_roll(secret, shown[2], n, (args["white"], args["black"])) for n in range(len(rolls))]
    assert derived == rolls
    again = PROMISED.findall(reply_to(anna, "/seed").body)
    assert len(again) == 2 and not set(again) & set(promised), "new parts are drawn for the next game"
    anna.press(reply_to(anna, "/forget"), "Yes, delete my data")
    client = redis.Redis.from_url(redis_url)
    try:
        assert not client.exists(dice_secret_key(anna.id), dice_secret_key(anna.id, computer=True))
    finally:
        client.close()
    assert not fair_bot.errors.records, fair_bot.errors.messages()


def _proof_checks_out(tg: FakeTelegram, user: SimUser, name: str, shown: str, seed: str) -> None:
    """What a player can check of game `name` from what the bot showed: the commitment `shown` before
    it, the seed revealed after it; the parts and seeds of /verify; the rolls of its /export record."""
    verified = reply_to(user, f"/verify {name}").body
    assert "✅" in verified, verified
    args = _command_line(verified)
    assert args["game"] == name and combine((args["white-part"], args["black-part"])) == seed
    assert commitment(seed) == shown
    before = len(_files(tg, user.id))
    user.say(f"/export {name} json")
    sent = tg.wait_for(lambda: len(_files(tg, user.id)) > before and _files(tg, user.id), 10.0, "the record")
    rolls = recorded_rolls(parse_json((sent[-1].document or b"").decode()).game)
    assert rolls, name
    assert [fair_roll(seed, name, n, (args["white"], args["black"])) for n in range(len(rolls))] == rolls


def _reply_to_board(user: SimUser, text: str, board_message: StoredMessage) -> str:
    """`text` sent as a reply to a board; the bot's answer."""
    asked = user.say(text, board_message.chat_id, reply_to=board_message)
    return user.wait_message(lambda m: m.message_id > asked.message_id, board_message.chat_id).body


def _play_turns(tg: FakeTelegram, chat_id: int, users: dict[str, SimUser], turns: int) -> None:
    rng = random.Random(chat_id)
    for _ in range(turns):
        msg = board(tg, chat_id)
        mover = MOVER.search(msg.caption or "")
        if mover is None:
            return
        play_turn(users[mover["name"]], msg, rng)


def test_every_game_of_a_match_to_3_reveals_its_seed_and_each_is_verifiable_after_the_match(
    tg: FakeTelegram, fair_bot: BotRunner
) -> None:
    alice, bob, carol = SimUser(tg, 311, "Alice"), SimUser(tg, 312, "Bob"), SimUser(tg, 313, "Carol")
    tg.add_chat(GROUP, "group", "Nardy club")
    menu = new_game_menu(alice, GROUP)
    alice.press_data(menu, f"v:{alice.id}:long.3")
    assert not bob.press(tg.message(GROUP, menu.message_id), "Join").show_alert
    first = wait_board(tg, GROUP)
    shown: dict[str, str] = {}  # game -> the commitment its boards showed while it ran
    revealed: dict[str, str] = {}  # game -> its seed, revealed when it ended
    caption = first.caption or ""
    for loser in (alice, bob, alice):  # long nardy: a resignation at once is a mars, 2 points: 0:2, 2:2, 2:4
        running = COMMITMENT.search(caption)
        assert running, caption
        shown[running[2]] = running[1]
        _play_turns(tg, GROUP, {"Alice": alice, "Bob": bob}, 2)
        loser.press(reply_to(loser, "/resign", GROUP), "This game")
        fair_bot.settle()
        caption = board(tg, GROUP).caption or ""
        revealed.update((game, seed) for seed, game in REVEALED.findall(caption))
    assert "wins the match" in caption, caption
    game_id = next(iter(shown)).split("/")[0]
    assert sorted(shown) == sorted(revealed) == [f"{game_id}/{n}" for n in (1, 2, 3)], (shown, revealed)
    for name in shown:
        _proof_checks_out(tg, carol, name, shown[name], revealed[name])
    answer = _reply_to_board(alice, "/verify", board(tg, GROUP))
    assert f"Dice of game {game_id}/3" in answer and "✅" in answer, answer
    assert reply_to(carol, f"/verify {game_id}/4").body.startswith(f"There is no game {game_id}/4")
    assert not fair_bot.errors.records, fair_bot.errors.messages()


def test_every_game_of_a_rematch_series_is_revealed_and_verifiable_by_its_id_and_by_reply_to_its_board(
    tg: FakeTelegram, fair_bot: BotRunner
) -> None:
    anna = SimUser(tg, 321, "Anna")
    boards: list[StoredMessage] = []
    shown: dict[str, str] = {}
    revealed: dict[str, str] = {}
    for number in (1, 2):
        if number == 1:
            current = start_computer_game(tg, anna, "short", "Beginner")
        else:
            assert not anna.press(boards[-1], "Rematch").show_alert
            fair_bot.settle()
            current = wait_board(tg, anna.id)
            assert current.message_id != boards[-1].message_id
        running = COMMITMENT.search(current.caption or "")
        assert running and running[2].endswith(f"/{number}"), current.caption
        shown[running[2]] = running[1]
        for _ in range(2):
            fair_bot.settle()
            if has_turn(board(tg, anna.id)):
                play_turn(anna, board(tg, anna.id), random.Random(number))
        resign(anna)
        fair_bot.settle()
        over = tg.message(anna.id, current.message_id)
        ended = REVEALED.search(over.caption or "")
        assert ended and ended[2] == running[2], over.caption
        revealed[ended[2]] = ended[1]
        boards.append(over)
    for name in shown:
        _proof_checks_out(tg, anna, name, shown[name], revealed[name])
    for name, over in zip(shown, boards, strict=True):  # by reply to each game's own board
        answer = _reply_to_board(anna, "/verify", over)
        assert f"Dice of game {name}" in answer and "✅" in answer and revealed[name] in answer, answer

    assert not anna.press(boards[-1], "Rematch").show_alert  # game 3: game 1 is no longer kept
    fair_bot.settle()
    first = next(iter(shown))
    game_id = first.split("/")[0]
    gone = reply_to(anna, f"/verify {first}").body
    assert gone.startswith(f"Game {first} is no longer kept"), gone
    assert reply_to(anna, f"/verify {game_id}/7").body.startswith(f"There is no game {game_id}/7")
    assert reply_to(anna, f"/export {game_id}/7").body.startswith(f"There is no game {game_id}/7")
    assert not fair_bot.errors.records, fair_bot.errors.messages()
