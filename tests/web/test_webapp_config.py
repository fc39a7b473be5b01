"""The board page's settings (NARDY_WEBAPP_*, bot/config.py): read and checked before anything starts, off
unless NARDY_WEBAPP_URL is set; and `python -m bot` serving the page beside the bot (the home at /app/, a
game's board at /app/?game=<id>, the bot's menu button opening the home), stopped with it in time."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bot.config import Config, ConfigError, WebAppConfig, webapp_from_env
from bot.web import CONTENT_SECURITY_POLICY
from testkit.fake_telegram import BOT_TOKEN, FakeTelegram

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_is_off_unless_its_url_is_set() -> None:
    assert webapp_from_env({}) is None
    assert Config.from_env({"BOT_TOKEN": "1:x"}).webapp is None
    with pytest.raises(ConfigError, match="NARDY_WEBAPP_URL is not"):
        webapp_from_env({"NARDY_WEBAPP_NAME": "board"})


def test_the_settings_are_read_with_their_defaults() -> None:
    found = webapp_from_env({"NARDY_WEBAPP_URL": "https://Nardy.Example.org/app/"})
    assert found == WebAppConfig("https://Nardy.Example.org/app/", "0.0.0.0", 8081, 86400.0, None)
    assert found.origin == "https://nardy.example.org"
    assert found.page("g_1") == "https://Nardy.Example.org/app/?game=g_1"
    full = Config.from_env(
        {
            "BOT_TOKEN": "1:x",
            "NARDY_WEBAPP_URL": "https://nardy.example.org:8443/play/app/",
            "NARDY_WEBAPP_LISTEN": "127.0.0.1",
            "NARDY_WEBAPP_PORT": "9000",
            "NARDY_WEBAPP_MAX_AGE": "3600",
            "NARDY_WEBAPP_NAME": "board",
        }
    ).webapp
    assert full == WebAppConfig(
        "https://nardy.example.org:8443/play/app/", "127.0.0.1", 9000, 3600.0, "board"
    )
    assert full.origin == "https://nardy.example.org:8443"
    local = webapp_from_env({"NARDY_WEBAPP_URL": "http://127.0.0.1:8081/app/"})
    assert local is not None and local.origin == "http://127.0.0.1:8081"


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"NARDY_WEBAPP_URL": "http://nardy.example.org/app/"}, "https://"),
        ({"NARDY_WEBAPP_URL": "nardy.example.org/app/"}, "https://"),
        ({"NARDY_WEBAPP_URL": "https://nardy.example.org/app"}, "ending in /"),
        ({"NARDY_WEBAPP_URL": "https://nardy.example.org/app/?x=1"}, "ending in /"),
        ({"NARDY_WEBAPP_PORT": "70000"}, "NARDY_WEBAPP_PORT"),
        ({"NARDY_WEBAPP_MAX_AGE": "soon"}, "NARDY_WEBAPP_MAX_AGE"),
        ({"NARDY_WEBAPP_MAX_AGE": "5"}, "60 to"),
        ({"NARDY_WEBAPP_NAME": "a b"}, "short name"),
    ],
)
def test_a_bad_setting_is_refused_with_what_is_wrong(env: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        webapp_from_env({"NARDY_WEBAPP_URL": "https://nardy.example.org/app/", **env})


def test_python_m_bot_serves_the_page_and_stops_it_within_its_budget(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(
        BOT_TOKEN=BOT_TOKEN,
        TELEGRAM_API_URL=tg.api_url,
        NARDY_DATA_DIR=str(tmp_path / "data"),
        NARDY_COMPUTER_PROCESSES="0",
        NARDY_ANALYSIS_PROCESSES="0",
        NARDY_RENDER_PROCESSES="0",
        NARDY_WEBAPP_URL=f"http://127.0.0.1:{port}/app/",
        NARDY_WEBAPP_LISTEN="127.0.0.1",
        NARDY_WEBAPP_PORT=str(port),
        PYTHONPATH=str(ROOT),
    )
    log = tmp_path / "bot.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "bot"], cwd=tmp_path, env=env, stdout=out, stderr=out)
        try:
            tg.wait_for(lambda: tg.commands().get("ru"), timeout=30, what="the bot to start")
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/app/", timeout=5) as answer:
                assert answer.status == 200
                assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
                assert b'<script type="module" src="static/home/main.js"></script>' in answer.read()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/app/?game=abc", timeout=5) as answer:
                assert b'<script type="module" src="static/board/main.js"></script>' in answer.read()
            tg.wait_for(lambda: tg.menu_button() is not None, timeout=30, what="the menu button")
            assert tg.menu_button() == {
                "type": "web_app",
                "text": "🎲 Nardy",
                "web_app": {"url": f"http://127.0.0.1:{port}/app/"},
            }
        finally:
            began = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    took = time.monotonic() - began
    output = log.read_text()
    assert proc.returncode == 0, output
    assert took < 5.0, f"stopped in {took:.1f} s\n{output}"
    assert "the board page is served on 127.0.0.1" in output
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/app/", timeout=2)
