"""A finished game given back through the fake Bot API: its record as a file (📄 Record, /export), its
animated replay (🎞 Replay, sent again by file_id), its analysis (📊, players only, progress then report
and the worst play's picture), and 💡 hints for the player on turn; refusals for games still running."""

from __future__ import annotations

import io
import random
from typing import Any

from PIL import Image

from bot.model.flow import ScriptedDice, finished_game
from bot.service.reviews import work_out
from engine import Phase
from engine.records.json_record import parse_json
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    MOVER,
    board,
    data_of,
    play_turn,
    reply_to,
    resign,
    start_computer_game,
    start_friend_game,
    start_group_game,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

GROUP = -6262


def _group_game_over(
    tg: FakeTelegram, bot: BotRunner, alice: SimUser, bob: SimUser, turns: int
) -> StoredMessage:
    """A short nardy group game of a few turns each, then Bob resigns: the finished board."""
    first = start_group_game(tg, GROUP, alice, bob, "short")
    rng = random.Random(5)
    by_name = {u.first_name: u for u in (alice, bob)}
    for _ in range(turns):
        msg = board(tg, GROUP)
        match = MOVER.search(msg.caption or "")
        assert match, msg.caption
        play_turn(by_name[match["name"]], msg, rng)
    resign(bob, GROUP)
    bot.settle()
    over = tg.message(GROUP, first.message_id)
    assert "Rematch" in " ".join(over.button_texts), over.button_texts
    return over


def _files(tg: FakeTelegram, chat_id: int) -> list[StoredMessage]:
    return [m for m in tg.bot_messages(chat_id) if m.document is not None]


def _animations(tg: FakeTelegram, chat_id: int) -> list[StoredMessage]:
    return [m for m in tg.bot_messages(chat_id) if m.animation is not None]


def test_the_record_of_a_finished_group_game_as_a_mat_file_and_as_json_and_a_double_tap_sends_one(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    alice, bob = SimUser(tg, 11, "Alice"), SimUser(tg, 12, "Bob")
    over = _group_game_over(tg, bot, alice, bob, 4)
    assert {"📄 Record", "🎞 Replay", "📊 Analysis"} <= set(over.button_texts), over.button_texts
    first = bob.press(over, "Record", wait_edit=False)
    again = alice.press(over, "Record", wait_edit=False)
    assert not first.show_alert and again.show_alert and again.text == "It is on its way."
    sent = tg.wait_for(lambda: _files(tg, GROUP), 10.0, "the record")
    assert len(sent) == 1 and (sent[0].file_name or "").endswith(".mat"), sent
    mat = (sent[0].document or b"").decode()
    assert "1 point match" in mat and "Alice" in mat and "Bob" in mat and "Wins" in mat, mat

    alice.say("/export json", GROUP)
    files = tg.wait_for(lambda: len(_files(tg, GROUP)) == 2 and _files(tg, GROUP), 10.0, "the JSON record")
    record = parse_json((files[1].document or b"").decode())
    assert record.game.phase is Phase.OVER and (record.white, record.black) == ("Alice", "Bob")
    assert len(record.game.history) >= 4
    assert reply_to(alice, "/export mat nosuchgame", GROUP).body.startswith("I know no game")
    assert not bot.errors.records, bot.errors.messages()


def test_nothing_is_exported_replayed_or_analysed_while_the_game_runs(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    alice, bob = SimUser(tg, 21, "Alice"), SimUser(tg, 22, "Bob")
    running = start_group_game(tg, GROUP, alice, bob, "short")
    game_id = data_of(running, "m:")[0].split(":")[1]
    for forged in (f"gx:{game_id}:1", f"gr:{game_id}:1", f"ga:{game_id}:1"):
        answer = alice.press_data(running, forged)
        assert isinstance(answer, CallbackAnswer) and answer.show_alert, forged
        assert answer.text == "This game is not over yet.", answer.text
    assert reply_to(alice, "/export", GROUP).body.startswith("No finished game to export here.")
    assert not _files(tg, GROUP) and not _animations(tg, GROUP)


def test_the_replay_is_an_animated_gif_drawn_once_and_sent_again_by_its_file_id(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    anna, boris = SimUser(tg, 31, "Anna"), SimUser(tg, 32, "Boris")
    start_friend_game(tg, anna, boris, "long")
    rng = random.Random(3)
    for _ in range(4):
        for user in (anna, boris):
            msg = board(tg, user.id)
            if data_of(msg, "m:"):
                play_turn(user, msg, rng)
    resign(anna)
    bot.settle()
    mine, theirs = wait_board(tg, anna.id), wait_board(tg, boris.id)
    anna.press(mine, "Replay", wait_edit=False)
    sent = tg.wait_for(lambda: _animations(tg, anna.id), 20.0, "Anna's replay")
    gif = sent[0].animation or b""
    assert gif.startswith(b"GIF89a") and len(gif) < 2_000_000
    with Image.open(io.BytesIO(gif)) as image:
        assert getattr(image, "n_frames", 1) >= 3  # the start, the plays, the result
    assert "🎞" in (sent[0].caption or "") and "Boris wins" in (sent[0].caption or ""), sent[0].caption
    boris.press(theirs, "Replay", wait_edit=False)
    again = tg.wait_for(lambda: _animations(tg, boris.id), 20.0, "Boris's replay")
    assert again[0].file_id == sent[0].file_id, "the second replay is the first one's file, not a new upload"
    uploads = [p for m, p in tg.calls("sendAnimation") if not isinstance(p.get("animation"), str)]
    assert len(uploads) == 1, uploads
    assert not bot.errors.records, bot.errors.messages()


def test_the_analysis_is_for_players_only_shows_progress_then_the_report_and_the_worst_play(
    tg: FakeTelegram, bot: BotRunner
) -> None:
    alice, bob, carol = SimUser(tg, 41, "Alice"), SimUser(tg, 42, "Bob"), SimUser(tg, 43, "Carol")
    over = _group_game_over(tg, bot, alice, bob, 6)
    refused = carol.press(over, "Analysis", wait_edit=False)
    assert refused.show_alert and refused.text == "Only the players of this game can ask for its analysis."
    before = len(tg.bot_messages(GROUP))
    assert not alice.press(over, "Analysis", wait_edit=False).show_alert

    def report() -> StoredMessage | None:
        found = [m for m in tg.bot_messages(GROUP)[before:] if (m.text or "").startswith("📊 Analysis\n")]
        return found[0] if found else None

    text = tg.wait_for(report, 30.0, "the analysis report").text or ""
    assert "error rate" in text and "⚪ Alice" in text and "⚫ Bob" in text, text
    assert "GNU Backgammon" in text and "mEMG" in text, text
    worst = [
        m for m in tg.bot_messages(GROUP)[before:] if (m.caption or "").startswith("Worst play of the game")
    ]
    if "better" in text:  # somebody lost equity somewhere: the worst play's picture follows
        picture = tg.wait_for(
            lambda: [m for m in tg.bot_messages(GROUP)[before:] if m.photo is not None], 20.0, "the picture"
        )[0]
        assert "better" in (picture.caption or ""), picture.caption
        with Image.open(io.BytesIO(picture.photo or b"")) as image:
            assert image.width > image.height  # two boards side by side
    else:
        assert not worst
    assert alice.press(over, "Analysis", wait_edit=False).text == "It is on its way."
    # the same analysis is kept for the game's review in the Mini App, which then reads it from Redis
    _, game_id, number = data_of(over, "ga:")[0].split(":")[:3]

    async def kept(d: Any) -> Any:
        return await d.storage.reviews.analysis(game_id, int(number))

    async def worked_out(d: Any) -> Any:
        return await work_out(d, finished_game(await d.storage.games.load(game_id), int(number)))

    found = tg.wait_for(lambda: bot.call(kept), 30.0, "the analysis kept for the review")
    assert found == bot.call(worked_out, 120.0) and found["chances"], found
    assert not bot.errors.records, bot.errors.messages()


def test_a_hint_is_an_alert_for_the_player_on_turn_only(tg: FakeTelegram, bot: BotRunner) -> None:
    anna, eve = SimUser(tg, 51, "Anna"), SimUser(tg, 54, "Eve")
    msg = start_computer_game(tg, anna, "short", "Beginner")
    hint = anna.press(msg, "💡", wait_edit=False)
    assert hint.show_alert and (hint.text or "").startswith("💡 Best: "), hint.text
    assert "chance to win" in (hint.text or "") and len(hint.text or "") <= 200

    forged = data_of(msg, "h:")[0]
    refused = eve.press_data(msg, forged)
    assert isinstance(refused, CallbackAnswer) and refused.show_alert, refused
    assert refused.text == "A hint is for the player on turn.", refused.text
    stale = anna.press_data(msg, forged.rsplit(":", 1)[0] + ":999")
    assert (
        isinstance(stale, CallbackAnswer)
        and stale.text == "This board is out of date. Use the latest message."
    )
    assert not bot.errors.records, bot.errors.messages()


NO_HINT_RATED = "No hints in a rated game: it changes both players' ratings."


def _forged_hint(msg: StoredMessage) -> str:
    """`h:<game>:<version>` for the board `msg` shows, made from one of its move buttons."""
    _, game, version = (data_of(msg, "m:") or data_of(msg, "p:"))[0].split(":")[:3]
    return f"h:{game}:{version}"


def test_a_rated_group_game_offers_no_hint_and_refuses_a_forged_one(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 55, "Alice"), SimUser(tg, 56, "Bob")
    dice.push(5, 3)  # Alice moves first with 5-3: single moves and 13→8→5 buttons
    group_board = start_group_game(tg, GROUP, alice, bob, "short")
    assert "Alice moves" in (group_board.caption or ""), group_board.caption
    assert "💡" not in group_board.button_texts and not data_of(group_board, "h:"), group_board.button_texts
    refused = alice.press_data(group_board, _forged_hint(group_board))
    assert isinstance(refused, CallbackAnswer) and refused.show_alert and refused.text == NO_HINT_RATED, (
        refused
    )
    assert not bot.errors.records, bot.errors.messages()


def test_a_rated_friend_game_offers_no_hint_in_any_language_and_refuses_a_forged_one(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    anna, boris = SimUser(tg, 57, "Anna"), SimUser(tg, 58, "Boris", "ru")
    dice.push(1, 6)  # Boris (black, Russian) moves first with 6-1
    _, boris_board = start_friend_game(tg, anna, boris, "short")
    assert "💡" not in boris_board.button_texts and not data_of(boris_board, "h:"), boris_board.button_texts
    refused = boris.press_data(boris_board, _forged_hint(boris_board))
    assert isinstance(refused, CallbackAnswer) and refused.show_alert, refused
    assert refused.text == "Подсказок нет в рейтинговой игре: она меняет рейтинги обоих игроков.", (
        refused.text
    )
    assert not bot.errors.records, bot.errors.messages()


def test_a_private_games_record_and_replay_are_for_its_players_only(tg: FakeTelegram, bot: BotRunner) -> None:
    anna, boris, eve = SimUser(tg, 61, "Anna"), SimUser(tg, 62, "Boris"), SimUser(tg, 63, "Eve")
    start_friend_game(tg, anna, boris, "short")
    resign(anna)
    bot.settle()
    over = wait_board(tg, anna.id)
    game_id = data_of(over, "gx:")[0].split(":")[1]
    refused = reply_to(eve, f"/export {game_id}").body
    assert refused == "This game's record is for its players only.", refused
    for forged in (f"gx:{game_id}:1", f"gr:{game_id}:1", f"ga:{game_id}:1"):
        answer = eve.press_data(tg.message(anna.id, over.message_id), forged)
        assert isinstance(answer, CallbackAnswer) and answer.show_alert, forged
    assert not _files(tg, eve.id) and not _animations(tg, eve.id)
    boris.say(f"/export {game_id} txt")
    sent = tg.wait_for(lambda: _files(tg, boris.id), 10.0, "Boris's record")
    assert (sent[0].file_name or "").endswith(".txt") and "white resigned" in (
        sent[0].document or b""
    ).decode()
    again = reply_to(boris, f"/export {game_id} txt").body  # once a minute per chat
    assert again.startswith("I sent this file here moments ago"), again
    assert not bot.errors.records, bot.errors.messages()
