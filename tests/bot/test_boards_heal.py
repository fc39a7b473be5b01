"""Boards that heal themselves: no game stuck behind a lost edit, and presses answered before the edit.

Through the fake Bot API over HTTP: a board edit that fails (502, a timeout) is drawn again, by the next
press on that board or by itself; a bot killed between a save and its edit redraws the board when it
starts again, without any press; a burst of stale presses costs at most one edit; a press is answered
before its board's edit is sent."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from bot.model.flow import ScriptedDice, engine_computer
from bot.storage.keys import UNSHOWN_KEY
from bot.telegram import boards
from bot.telegram.handlers import board as board_handlers
from testkit.fake_telegram import FakeTelegram, Fault, SimUser
from testkit.fake_telegram.play import (
    board,
    play_turn,
    reply_to,
    start_friend_game,
    start_group_game,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import BOT_TOKEN, CallbackAnswer, Stall

ROOT = Path(__file__).resolve().parents[2]
GROUP = -4101
BEHIND = "The board was behind; here it is now."
CHANGED = "The board has just changed. Look at it again."


def bad_gateway() -> Fault:
    """Telegram answers the next board edit with 502 Bad Gateway."""
    return Fault("editMessageMedia", 502, "Bad Gateway")


@contextmanager
def running(tg: FakeTelegram, redis_url: str, dice: ScriptedDice, **options: float) -> Iterator[BotRunner]:
    """The bot with the given board options (board_retry, heal_every, request_timeout), registered so that
    the simulated users' presses wait for its boards."""
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), **options)  # type: ignore[arg-type]
    runner.start()
    tg.settlers.append(runner.settle)
    try:
        yield runner
    finally:
        tg.settlers.remove(runner.settle)
        runner.stop()


def _answer(user: SimUser, msg: object, data: str) -> CallbackAnswer:
    """Press without waiting for the boards (one of them is expected to stay behind)."""
    qid = user.press_data(msg, data, wait=False)  # type: ignore[arg-type]
    return user.tg.wait_answer(str(qid))


def _unshown(redis_url: str) -> list[str]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return [str(g) for g in client.zrange(UNSHOWN_KEY, 0, -1)]
    finally:
        client.close()


def _edits_of(tg: FakeTelegram, chat_id: int, message_id: int) -> int:
    return sum(
        1
        for method, params in tg.calls()
        if method in ("editMessageMedia", "editMessageCaption")
        and int(params.get("chat_id", 0)) == chat_id
        and int(params.get("message_id", 0)) == message_id
    )


def test_a_board_whose_edit_failed_is_redrawn_by_the_next_press_on_it_and_the_game_goes_on(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    with running(tg, redis_url, dice, board_retry=600.0, heal_every=600.0) as bot:  # no retry by itself
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)
        first = start_group_game(tg, GROUP, alice, bob, "short")
        old = alice.button(first, "13→7")
        tg.inject(bad_gateway())
        assert not _answer(alice, first, old).show_alert  # taken; then Telegram fails the edit
        bot.settle()
        assert tg.faults_left() == 0
        stuck = tg.message(GROUP, first.message_id)
        assert "Moves so far" not in (stuck.caption or ""), "the failed edit changed nothing"
        assert _unshown(redis_url), "the game is marked: its board does not show its last change"

        second_old = alice.button(stuck, "8→7")  # a button of the board as it still is: an old version
        answer = alice.press_data(stuck, second_old)
        assert isinstance(answer, CallbackAnswer) and answer.show_alert and answer.text == BEHIND
        now = board(tg, GROUP)
        assert now.message_id == first.message_id
        assert "Moves so far: 13/7" in (now.caption or ""), now.caption
        assert _unshown(redis_url) == []

        assert not alice.press(now, "8→7").show_alert  # the game goes on from the board as it is now
        assert "Alice rolled 6-1 and played 13/7 8/7." in (board(tg, GROUP).caption or "")  # its last die
        assert not bot.errors.records, bot.errors.messages()


def test_a_failed_board_edit_is_tried_again_by_itself_without_any_press(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    with running(tg, redis_url, dice, board_retry=0.2) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(1, 6, 6, 1)  # Bob (black) moves first with 6-1
        alice_board, bob_board = start_friend_game(tg, alice, bob, "short")
        tg.inject(Fault("editMessageMedia", 502, "Bad Gateway", times=2, chat_id=alice.id))
        assert not _answer(bob, bob_board, bob.button(bob_board, "13→7")).show_alert
        tg.wait_for(
            lambda: "Moves so far: 13/7" in (tg.message_now(alice.id, alice_board.message_id).caption or ""),
            20,
            "Alice's board redrawn after two failed edits",
        )
        bot.settle()
        assert tg.faults_left() == 0
        assert "Moves so far: 13/7" in (tg.message(bob.id, bob_board.message_id).caption or "")
        assert _unshown(redis_url) == []


def test_a_timed_out_edit_counts_as_unknown_and_the_board_is_drawn_again(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    with running(tg, redis_url, dice, board_retry=0.2, request_timeout=0.5) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)
        first = start_group_game(tg, GROUP, alice, bob, "short")
        tg.stall(Stall("editMessageMedia", seconds=5.0, chat_id=GROUP))  # the bot gives up after 2 s
        assert not _answer(alice, first, alice.button(first, "13→7")).show_alert
        tg.wait_for(
            lambda: "Moves so far: 13/7" in (tg.message_now(GROUP, first.message_id).caption or ""),
            30,
            "the board drawn again after the timeout",
        )
        bot.settle()
        assert _edits_of(tg, GROUP, first.message_id) >= 2, "the timed-out edit and the one after it"
        assert _unshown(redis_url) == []
        assert not bot.errors.records, bot.errors.messages()


def test_ten_stale_presses_on_a_board_that_is_behind_cost_at_most_one_edit(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    with running(tg, redis_url, dice, board_retry=600.0, heal_every=600.0) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)
        first = start_group_game(tg, GROUP, alice, bob, "short")
        tg.inject(bad_gateway())
        assert not _answer(alice, first, alice.button(first, "13→7")).show_alert
        bot.settle()
        stuck = tg.message(GROUP, first.message_id)
        stale = alice.button(stuck, "8→7")
        edits_before = _edits_of(tg, GROUP, first.message_id)
        qids = [str(alice.press_data(stuck, stale, wait=False)) for _ in range(10)]
        answers = [tg.wait_answer(q) for q in qids]
        bot.settle()
        assert all(a.show_alert and a.text in (BEHIND, CHANGED) for a in answers), answers
        assert BEHIND in [a.text for a in answers]
        assert _edits_of(tg, GROUP, first.message_id) - edits_before == 1
        assert "Moves so far: 13/7" in (board(tg, GROUP).caption or "")


def test_a_group_press_is_answered_before_its_board_edit_is_sent(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    with running(tg, redis_url, dice) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)
        first = start_group_game(tg, GROUP, alice, bob, "short")
        for label in ("13→7", "8→7"):
            hold = tg.hold("answerCallbackQuery")  # Telegram slow to take the answer
            edits = _edits_of(tg, GROUP, first.message_id)
            qid = str(alice.press_data(board(tg, GROUP), alice.button(board(tg, GROUP), label), wait=False))
            tg.wait_held(hold)
            time.sleep(0.5)  # time enough for an edit that did not wait for the answer
            assert _edits_of(tg, GROUP, first.message_id) == edits, "the edit went before the answer"
            tg.release(hold)
            assert not tg.wait_answer(qid).show_alert
            bot.settle()
            names = [method for method, params in tg.calls() if method != "getUpdates"]
            answered = max(i for i, (m, p) in enumerate(tg.calls()) if p.get("callback_query_id") == qid)
            edited = max(i for i, m in enumerate(names) if m in ("editMessageMedia", "editMessageCaption"))
            assert answered < edited
        assert "Alice rolled 6-1 and played 13/7 8/7." in (board(tg, GROUP).caption or "")  # its last die


def _python_m_bot(tg: FakeTelegram, redis_url: str, tmp_path: Path) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ,
        BOT_TOKEN=BOT_TOKEN,
        REDIS_URL=redis_url,
        TELEGRAM_API_URL=tg.api_url,
        NARDY_RENDER_PROCESSES="0",
        NARDY_COMPUTER_PROCESSES="0",
        PYTHONPATH=str(ROOT),
    )
    return subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_a_bot_killed_between_the_save_and_the_edit_redraws_the_board_when_it_starts_again(
    tg: FakeTelegram, redis_url: str, tmp_path: Path
) -> None:
    first_bot = _python_m_bot(tg, redis_url, tmp_path)
    second_bot: subprocess.Popen[bytes] | None = None
    try:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        msg = start_group_game(tg, GROUP, alice, bob, "short")
        tg.wait_for(lambda: tg.message_now(GROUP, msg.message_id).buttons, 20, "the first board's buttons")
        current = tg.message(GROUP, msg.message_id)
        mover = alice if "Alice moves" in (current.caption or "") else bob
        data = next(
            str(b["callback_data"]) for b in current.buttons if str(b["callback_data"]).startswith("m:")
        )
        hold = tg.hold("editMessageMedia", chat_id=GROUP)
        hold_caption = tg.hold("editMessageCaption", chat_id=GROUP)
        qid = str(mover.press_data(current, data, wait=False))
        assert not tg.wait_answer(qid, 20).show_alert  # decided, saved and answered...
        tg.wait_for(lambda: hold.waiting or hold_caption.waiting, 20, "the board's edit, held")
        tg.wait_for(lambda: not tg.pending_updates(), 20, "the press confirmed to Telegram")
        first_bot.send_signal(signal.SIGKILL)  # ...and the bot dies before its edit reaches Telegram
        first_bot.wait(20)
        tg.release(hold, apply=False)
        tg.release(hold_caption, apply=False)
        assert tg.message(GROUP, msg.message_id).reply_markup == current.reply_markup, "the board is behind"
        assert _unshown(redis_url), "the save marked the game: its board may not show it"

        second_bot = _python_m_bot(tg, redis_url, tmp_path)  # nobody presses anything
        tg.wait_for(
            lambda: tg.message_now(GROUP, msg.message_id).reply_markup != current.reply_markup,
            60,
            "the board redrawn by the restarted bot",
        )
        deadline = time.monotonic() + 30
        while _unshown(redis_url) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _unshown(redis_url) == [], "nothing stays marked"
        redrawn = tg.message(GROUP, msg.message_id)
        assert "Moves so far" in (redrawn.caption or "") or "moves, dice" in (redrawn.caption or "")
        assert wait_board(tg, GROUP).message_id == msg.message_id, "drawn on the same message"
    finally:
        for proc in (first_bot, second_bot):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc is not None and proc.stderr is not None:
                proc.stderr.close()


def test_a_draw_slower_than_the_lease_keeps_it_so_no_other_worker_draws_meanwhile(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(boards, "DRAW_LEASE", 0.6)  # renewed every 0.2 s while the edit waits
    with running(tg, redis_url, dice) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)
        first = start_group_game(tg, GROUP, alice, bob, "short")
        game_id = alice.button(first, "13→7").split(":")[1]
        hold = tg.hold("editMessageMedia", chat_id=GROUP)  # Telegram takes 2 s for this edit
        assert not _answer(alice, first, alice.button(first, "13→7")).show_alert
        tg.wait_held(hold)
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        try:
            holders = set()
            for _ in range(20):
                holders.add(client.get(f"nardy:drawing:{game_id}"))
                time.sleep(0.1)
            assert len(holders) == 1 and None not in holders, holders
        finally:
            client.close()
        tg.release(hold)
        bot.settle()
        assert "Moves so far: 13/7" in (board(tg, GROUP).caption or "")


def test_a_board_in_a_chat_that_blocked_the_bot_is_redrawn_when_its_player_comes_back(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice
) -> None:
    with running(tg, redis_url, dice) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(1, 6, 6, 1)  # Bob (black) moves first with 6-1
        alice_board, bob_board = start_friend_game(tg, alice, bob, "short")
        tg.set_blocked(alice.id)
        play_turn(bob, bob_board, random.Random(1))
        bot.settle()
        assert _unshown(redis_url) == [], "a blocked chat is not tried again and again"
        stale = tg.message(alice.id, alice_board.message_id)
        assert not stale.buttons, "Alice's board never got her turn"
        tg.set_blocked(alice.id, False)
        reply_to(alice, "/newgame")  # back: she asks for a game, and is pointed to this one
        bot.settle()
        assert tg.message(alice.id, alice_board.message_id).buttons, "her board shows her turn now"
        assert not bot.errors.records, bot.errors.messages()


def test_a_board_redis_wrongly_believes_up_to_date_is_redrawn_by_a_second_press_seconds_later(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_handlers, "STALE_AGAIN", 0.3)
    with running(tg, redis_url, dice, board_retry=600.0, heal_every=600.0) as bot:
        alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
        dice.push(6, 1)
        first = start_group_game(tg, GROUP, alice, bob, "short")
        tg.inject(bad_gateway())
        assert not _answer(alice, first, alice.button(first, "13→7")).show_alert
        bot.settle()
        game_id = alice.button(first, "8→7").split(":")[1]
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        try:  # as if an older edit had landed after a newer one: Redis says shown, the message is old
            stored = json.loads(client.get(f"nardy:game:{game_id}") or "{}")["version"]
            client.hset(f"nardy:game:{game_id}:messages", "v:g", str(stored))
        finally:
            client.close()
        stuck = tg.message(GROUP, first.message_id)
        stale = alice.button(stuck, "8→7")
        assert _answer(alice, stuck, stale).text == CHANGED
        assert "Moves so far" not in (board(tg, GROUP).caption or "")
        time.sleep(0.4)
        answer = alice.press_data(stuck, stale)
        assert isinstance(answer, CallbackAnswer) and answer.text == BEHIND
        assert "Moves so far: 13/7" in (board(tg, GROUP).caption or ""), "redrawn anyway"
