"""NARDY_METRICS_* and NARDY_LOG_FORMAT read and checked (bot/config.py), and the JSON log lines
(bot/observe/logs.py): one object a line, with the update and game ids where there are some."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.config import ConfigError, MetricsConfig, log_format_from_env, metrics_from_env
from bot.observe import logs


def test_the_metrics_are_off_unless_a_port_is_given() -> None:
    assert metrics_from_env({}) is None
    with pytest.raises(ConfigError, match="NARDY_METRICS_TOKEN set but NARDY_METRICS_PORT is not"):
        metrics_from_env({"NARDY_METRICS_TOKEN": "x" * 20})


def test_the_metrics_listen_on_127_0_0_1_by_default() -> None:
    assert metrics_from_env({"NARDY_METRICS_PORT": "9101"}) == MetricsConfig(port=9101, listen="127.0.0.1")
    found = metrics_from_env(
        {"NARDY_METRICS_PORT": "9101", "NARDY_METRICS_LISTEN": "0.0.0.0", "NARDY_METRICS_TOKEN": "t" * 32}
    )
    assert found is not None and found.listen == "0.0.0.0" and found.token == "t" * 32
    assert "t" * 32 not in repr(found)


@pytest.mark.parametrize("port", ["0", "65536", "nine", "-1"])
def test_a_metrics_port_that_is_not_one_is_refused(port: str) -> None:
    with pytest.raises(ConfigError, match=f"NARDY_METRICS_PORT='{port}' is not a port number"):
        metrics_from_env({"NARDY_METRICS_PORT": port})


def test_a_short_metrics_token_is_refused() -> None:
    with pytest.raises(ConfigError, match="NARDY_METRICS_TOKEN must be 16-256 characters"):
        metrics_from_env({"NARDY_METRICS_PORT": "9101", "NARDY_METRICS_TOKEN": "short"})


def test_the_log_format_is_text_unless_json_is_asked_for() -> None:
    assert log_format_from_env({}) == "text"
    assert log_format_from_env({"NARDY_LOG_FORMAT": "JSON"}) == "json"
    with pytest.raises(ConfigError, match="NARDY_LOG_FORMAT='xml' is neither text nor json"):
        log_format_from_env({"NARDY_LOG_FORMAT": "xml"})


def test_a_json_log_line_names_the_update_and_the_game_being_handled() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logs.use_json([handler])
    log = logging.getLogger("bot.test_json_logs")
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.INFO)
    try:
        log.warning("outside %s", "any update")
        with logs.handling(42):
            logs.about_game("g7Ab")
            log.info("inside")
        log.error("after")
    finally:
        log.removeHandler(handler)
    first, inside, after = (json.loads(line) for line in out.getvalue().splitlines())
    assert first.keys() == after.keys() == {"time", "level", "logger", "message"}
    assert (first["level"], first["logger"], first["message"]) == (
        "WARNING",
        "bot.test_json_logs",
        "outside any update",
    )
    assert (inside["message"], inside["update_id"], inside["game_id"]) == ("inside", 42, "g7Ab")
