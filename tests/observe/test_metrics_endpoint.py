"""The metrics endpoint of a worker (bot/observing.py): scraped after a game through the fake Bot API it shows
that game's counts; its labels stay bounded whoever plays; with the metrics off, no port is open."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.config import MetricsConfig
from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice, engine_computer
from testkit.fake_telegram import FakeTelegram, Fault, SimUser
from testkit.fake_telegram.play import board, start_group_game
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer

GROUP = -1004
TOKEN = "a-token-for-the-scraper-0123456789"


def scrape(
    runner: BotRunner, token: str | None = TOKEN
) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the worker's /metrics: (name, sorted labels) -> value."""
    assert runner.observer is not None
    request = urllib.request.Request(runner.observer.url + "/metrics")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def observed_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    runner = BotRunner(
        tg.api_url, redis_url, dice, engine_computer(seed=3), metrics=MetricsConfig(port=0, token=TOKEN)
    )
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def test_a_scrape_after_a_game_shows_its_presses_refusals_and_telegrams_429(
    tg: FakeTelegram, observed_bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    old = alice.button(msg, "13→7")
    observed_bot.settle()
    before = scrape(observed_bot)  # the lobby's presses started the game

    def grew(name: str, **labels: str) -> float:
        return value(samples, name, **labels) - value(before, name, **labels)

    tg.inject(Fault("editMessageMedia", 429, "Too Many Requests: retry after 1", retry_after=1))
    assert not alice.press(msg, "13→7").show_alert
    observed_bot.settle()
    stale = alice.press_data(board(tg, GROUP), old)  # the same data again
    assert isinstance(stale, CallbackAnswer) and stale.show_alert
    not_his = bob.press_data(board(tg, GROUP), alice.button(board(tg, GROUP), "8→7"))
    assert isinstance(not_his, CallbackAnswer) and not_his.show_alert
    observed_bot.settle()
    samples = scrape(observed_bot)
    assert grew("nardy_updates_total", kind="press", outcome="applied") == 1
    assert grew("nardy_updates_total", kind="press", outcome="stale") == 1
    assert grew("nardy_updates_total", kind="press", outcome="not_your_turn") == 1
    assert grew("nardy_press_answer_seconds_count") == 3  # every press, whatever its outcome
    assert grew("nardy_press_board_edited_seconds_count") == 1  # the one that changed the board
    assert grew("nardy_telegram_calls_total", method="editMessageMedia", result="429") == 1
    assert grew("nardy_telegram_retry_after_seconds_total") == 1
    assert grew("nardy_telegram_calls_total", method="answerCallbackQuery", result="ok") == 3
    assert grew("nardy_save_seconds_count") == 1  # the move's
    assert value(samples, "nardy_games_started_total", variant="short", opponent="person") == 1
    assert value(samples, "nardy_press_answer_seconds_count") == sum(
        v
        for (name, labels), v in samples.items()
        if name == "nardy_updates_total" and ("kind", "press") in labels
    )
    assert value(samples, "nardy_picture_seconds_count") >= 2
    assert value(samples, "nardy_redis_connections_total") >= 1
    assert value(samples, "nardy_commands_total", command="newgame") == 1


def test_the_metrics_ask_for_the_token_and_the_health_probes_do_not(observed_bot: BotRunner) -> None:
    assert observed_bot.observer is not None
    with pytest.raises(urllib.error.HTTPError) as refused:
        scrape(observed_bot, token="wrong")
    assert refused.value.code == 401
    for path, body in (("/healthz", "ok\n"), ("/readyz", "ready\n")):
        with urllib.request.urlopen(observed_bot.observer.url + path, timeout=10) as response:
            assert response.read().decode() == body


def test_labels_stay_bounded_after_a_thousand_users(tg: FakeTelegram, observed_bot: BotRunner) -> None:
    users = [SimUser(tg, 10_000 + i, f"Player {i}") for i in range(1000)]
    for user in users:
        user.say("/help")
    tg.wait_for(lambda: observed_bot.handled >= 1000, 120.0, "a thousand updates handled")
    observed_bot.settle()
    samples = scrape(observed_bot)
    names = {name for name, _ in samples}
    assert value(samples, "nardy_commands_total", command="help_command") == 1000
    ids = {str(u.id) for u in users}
    for _, labels in samples:
        assert not ids & {v for _, v in labels}, labels
    assert len(samples) < 400, sorted(names)


def listening_ports() -> set[int]:
    """The TCP ports this test process listens on (the fake Bot API's among them)."""
    return {c.laddr.port for c in psutil.Process().net_connections("tcp") if c.status == psutil.CONN_LISTEN}


def test_with_the_metrics_off_no_port_is_open(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> None:
    before = listening_ports()
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3))
    runner.start()
    try:
        alice = SimUser(tg, 1, "Alice")
        alice.say("/help")
        tg.wait_for(lambda: runner.handled >= 1, 30.0, "the /help handled")
        assert runner.observer is None
        assert listening_ports() == before
    finally:
        runner.stop()


def test_redis_away_is_counted_and_makes_the_worker_unready(
    tg: FakeTelegram, observed_bot: BotRunner, dice: ScriptedDice, redis_server: EmbeddedRedis
) -> None:
    assert observed_bot.observer is not None
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    observed_bot.settle()
    redis_server.stop()
    try:
        assert alice.press(msg, "13→7").show_alert  # "try again in a minute"
        samples = scrape(observed_bot)
        with pytest.raises(urllib.error.HTTPError) as unready:
            urllib.request.urlopen(observed_bot.observer.url + "/readyz", timeout=10)
        assert unready.value.code == 503
        assert unready.value.read().decode().startswith("redis: ")
        with urllib.request.urlopen(observed_bot.observer.url + "/healthz", timeout=10) as alive:
            assert alive.status == 200  # alive, only not ready
    finally:
        redis_server.start()
    observed_bot.errors.records.clear()  # the outage was logged on purpose
    assert value(samples, "nardy_updates_total", kind="press", outcome="storage_away") == 1
    assert value(samples, "nardy_redis_errors_total", kind="away") >= 1
    with urllib.request.urlopen(observed_bot.observer.url + "/readyz", timeout=10) as ready:
        assert ready.read().decode() == "ready\n"
