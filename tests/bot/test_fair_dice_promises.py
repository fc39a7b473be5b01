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

from bot.flow import FairDice, engine_computer
from bot.storage import dice_secret_key, game_key
from engine.fair_dice import combine, commitment, fair_roll, recorded_rolls
from engine.records import parse_json
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import board, has_turn, play_turn, reply_to, resign, start_computer_game
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import StoredMessage

COMMITMENT = re.compile(r"🔒 Dice commitment: ([0-9a-f]{64}) \(/verify ([A-Za-z0-9_-]+/\d+)\)")
PROMISED = re.compile(r"Its SHA-256: ([0-9a-f]{64})")


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
