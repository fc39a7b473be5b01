"""Provably fair dice through the fake Bot API: the commitment on the first board, the seed kept secret
while the game runs and revealed when it ends, /verify on running and finished games (and its command line
checked by the standalone script), /seed, the previous game of a series still verifiable after a rematch."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.model.flow import FairDice, engine_computer
from bot.storage.keys import game_key
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import reply_to, resign, start_computer_game, start_group_game, wait_board
from testkit.fake_telegram.runner import BotRunner

GROUP = -5150
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "verify_dice.py"
COMMITMENT = re.compile(r"🔒 Dice commitment: ([0-9a-f]{64}) \(/verify ([A-Za-z0-9_-]+/\d+)\)")
REVEALED = re.compile(r"🔓 Dice seed: ([0-9a-f]{64}) \(/verify ([A-Za-z0-9_-]+/\d+)\)")


@pytest.fixture
def fair_bot(tg: FakeTelegram, redis_url: str) -> Iterator[BotRunner]:
    """The bot with its production dice: every roll derived from each game's seeds."""
    runner = BotRunner(tg.api_url, redis_url, FairDice(), engine_computer(seed=3))
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _stored_fair(redis_url: str, game_id: str) -> dict[str, object]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        raw = client.get(game_key(game_id))
        assert isinstance(raw, str)
        fair = json.loads(raw)["fair"]
        assert isinstance(fair, dict)
        return fair
    finally:
        client.close()


def _everything_the_bot_said(tg: FakeTelegram) -> str:
    """Every parameter of every Bot API call the bot made: texts, captions, alerts, buttons' data."""
    return json.dumps([params for _, params in tg.calls()], default=str, ensure_ascii=False)


def test_the_commitment_is_shown_at_the_start_the_seed_revealed_at_the_end_and_verify_checks_every_roll(
    tg: FakeTelegram, fair_bot: BotRunner, redis_url: str
) -> None:
    anna = SimUser(tg, 71, "Anna")
    promised = re.search(r"Its SHA-256: ([0-9a-f]{64})", reply_to(anna, "/seed").body)
    assert promised, "/seed shows the commitment to the bot's part for the next game"
    first = start_computer_game(tg, anna, "long", "Beginner")
    match = COMMITMENT.search(first.caption or "")
    assert match, first.caption
    shown, game = match[1], match[2]
    game_id = game.split("/")[0]
    secret = str(_stored_fair(redis_url, game_id)["seed"])
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == shown

    running = reply_to(anna, "/verify").body
    assert shown in running and "revealed when the game ends" in running, running
    assert secret not in _everything_the_bot_said(tg), "the secret seed is never shown before the end"

    resign(anna)
    fair_bot.settle()
    over = wait_board(tg, anna.id)
    revealed = REVEALED.search(over.caption or "")
    assert revealed and revealed[1] == secret and revealed[2] == game, over.caption

    checked = reply_to(anna, "/verify").body
    assert "✅" in checked and secret in checked and shown in checked, checked
    parts = _stored_fair(redis_url, game_id)["parts"]
    assert isinstance(parts, list) and parts[0] in checked and parts[1] in checked, checked
    assert hashlib.sha256(bytes.fromhex(parts[0])).hexdigest() == promised[1], (
        "Anna's part is the one promised"
    )
    assert hashlib.sha256(bytes.fromhex(parts[0] + parts[1])).hexdigest() == secret
    assert promised[1] not in reply_to(anna, "/seed").body, "a new part is drawn for the next game"
    command = checked[checked.index("python3 verify_dice.py") :]
    args = shlex.split(command)[2:]
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    rolls = re.search(r'--rolls="([^"]*)"', command)
    assert rolls and len(rolls[1].split()) >= 1 and "everything checks out" in done.stdout
    assert "parts: ok" in done.stdout and promised[1] in done.stdout, done.stdout
    assert not fair_bot.errors.records, fair_bot.errors.messages()


def test_verify_by_game_id_from_anywhere_and_the_previous_game_after_a_rematch(
    tg: FakeTelegram, fair_bot: BotRunner
) -> None:
    alice, bob, carol = SimUser(tg, 81, "Alice"), SimUser(tg, 82, "Bob"), SimUser(tg, 83, "Carol")
    first = start_group_game(tg, GROUP, alice, bob, "short")
    match = COMMITMENT.search(first.caption or "")
    assert match and match[2].endswith("/1"), first.caption
    game = match[2]
    resign(bob, GROUP)
    fair_bot.settle()
    over = tg.message(GROUP, first.message_id)
    assert REVEALED.search(over.caption or ""), over.caption
    answer = bob.press(over, "Rematch")
    assert not answer.show_alert, answer.text
    fair_bot.settle()
    second = wait_board(tg, GROUP)
    assert second.message_id != first.message_id
    second_match = COMMITMENT.search(second.caption or "")
    assert second_match and second_match[2] == game[:-1] + "2" and second_match[1] != match[1]

    earlier = reply_to(carol, f"/verify {game}").body  # a stranger, in their private chat
    assert "✅" in earlier and match[1] in earlier, earlier
    now = reply_to(carol, f"/verify {game[:-2]}").body  # without the number: the game in progress
    assert second_match[1] in now and "revealed when the game ends" in now, now
    assert "I know no game" in reply_to(carol, "/verify nosuchgame").body
    assert reply_to(carol, "/verify").body.startswith("No game to check here.")
    assert not fair_bot.errors.records, fair_bot.errors.messages()


def test_a_players_own_seed_goes_into_their_next_game_and_forget_deletes_it(
    tg: FakeTelegram, fair_bot: BotRunner, redis_url: str
) -> None:
    anna = SimUser(tg, 91, "Anna")
    assert reply_to(anna, "/seed").body.startswith("Your dice seed: a new random one each game.")
    assert reply_to(anna, "/seed has space").body.startswith("A seed is 1-32 characters")
    assert reply_to(anna, "/seed " + "x" * 33).body.startswith("A seed is 1-32 characters")
    assert reply_to(anna, "/seed lucky-7").body.startswith("Your dice seed: lucky-7.")
    assert reply_to(anna, "/seed").body.startswith("Your dice seed: lucky-7.")

    first = start_computer_game(tg, anna, "short", "Beginner")
    match = COMMITMENT.search(first.caption or "")
    assert match, first.caption
    clients = _stored_fair(redis_url, match[2].split("/")[0])["clients"]
    assert isinstance(clients, list) and clients[0] == "lucky-7" and clients[1] != "lucky-7", clients
    assert "Anna lucky-7" in reply_to(anna, "/verify").body

    resign(anna)
    assert reply_to(anna, "/seed random").body.startswith("Your dice seed: a new random one each game.")
    anna.press(reply_to(anna, "/forget"), "Yes, delete my data")
    assert reply_to(anna, "/seed").body.startswith("Your dice seed: a new random one each game.")
    assert not fair_bot.errors.records, fair_bot.errors.messages()
