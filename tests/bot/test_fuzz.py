"""Fuzzing: random and mutated presses, commands and texts against live games (bench/fuzz.py, smaller).

The long run is `python bench/fuzz.py 100000`; here a seeded ~1,500 steps and a hypothesis check of the
callback codec."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.model.flow import ScriptedDice
from bot.telegram import callbacks
from bot.telegram.callbacks import BadCallback, Callback
from testkit.fake_telegram import FakeTelegram, Fault, SimUser
from testkit.fake_telegram.play import reply_to
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer
from testkit.fuzzer import LISTEN_BACKLOG, Fuzzer


@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(
        st.text(max_size=80),
        st.from_regex(r"\A(m|mm|u|d|r|ry|rn|c|v|o|l|j|x|xi|fy|fn|s):[\w:\-\n]{0,40}\Z"),
        st.builds(
            lambda g, v, s, d, tail: f"m:{g}:{v}:{s}:{d}{tail}",
            st.text(max_size=10),
            st.integers(-5, 10**10),
            st.integers(-1, 99),
            st.integers(-1, 9),
            st.sampled_from(["", "\n", " ", ":", "\x00", "\udcff"]),
        ),
    )
)
def test_the_codec_turns_any_text_into_a_button_or_bad_callback(data: str) -> None:
    try:
        decoded = callbacks.decode(data)
    except BadCallback:
        return
    assert isinstance(decoded, Callback)
    assert data.isascii() and "\n" not in data and len(data.encode()) <= callbacks.MAX_BYTES
    if decoded.action == "m":
        assert data == callbacks.move(decoded.game, decoded.version, decoded.src, decoded.die)
    if decoded.action == "mm":
        assert data == callbacks.move_on(
            decoded.game, decoded.version, decoded.src, decoded.die, decoded.then
        )
    if decoded.action == "s":
        assert data == callbacks.setting(decoded.user, decoded.setting, decoded.choice)


@pytest.fixture
def tg(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTelegram]:
    """The fake Bot API with a longer listen queue (see bench.fuzz.LISTEN_BACKLOG)."""
    monkeypatch.setattr(ThreadingHTTPServer, "request_queue_size", LISTEN_BACKLOG)
    server = FakeTelegram()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def claims_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games idle for 2 s may be claimed (read when the bot is built), so claims happen in the run."""
    monkeypatch.setenv("NARDY_CLAIM_AFTER", "2")


def test_a_thousand_fuzzed_presses_and_messages_change_nothing_and_all_get_answers(
    claims_soon: None, tg: FakeTelegram, bot: BotRunner, redis_url: str, dice: ScriptedDice
) -> None:
    fuzzer = Fuzzer(tg, redis_url, seed=11, batch=12)
    try:
        fuzzer.setup()
        stats = fuzzer.run(1200)
    finally:
        fuzzer.close()
    report = "\n".join(stats.failures)
    assert stats.presses >= 1100 and stats.legal > 20 and stats.commands + stats.texts >= 5, stats
    assert stats.answers == stats.presses, report
    assert stats.state_changes > 0, "the legal presses moved the games on"
    assert (stats.forbidden_changes, stats.unanswered, stats.impolite, stats.exceptions) == (0, 0, 0, 0), (
        report
    )
    assert not bot.errors.records, bot.errors.messages()


def test_a_press_is_answered_even_when_the_first_answer_is_lost(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    stranger = SimUser(tg, 77, "Stranger")
    menu = reply_to(stranger, "/help")
    tg.inject(Fault("answerCallbackQuery", 502, "Bad Gateway"))
    answer = stranger.press_data(menu, "m:forged:1:13:6")
    assert (
        isinstance(answer, CallbackAnswer) and answer.text == "This button does not belong to this message."
    )
    assert tg.faults_left() == 0
    assert not bot.errors.records, bot.errors.messages()
