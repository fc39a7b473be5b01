"""The entry point: `python -m bot` reads the environment, runs an embedded Redis, hides the token."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from testkit.fake_telegram import BOT_TOKEN, FakeTelegram, SimUser
from testkit.fake_telegram.play import reply_to

ROOT = Path(__file__).resolve().parents[2]


def test_python_m_bot_runs_with_an_embedded_redis_and_never_logs_the_token(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)}
    env.update(
        BOT_TOKEN=BOT_TOKEN,
        TELEGRAM_API_URL=tg.api_url,
        NARDY_DATA_DIR=str(tmp_path / "data"),
        LOG_LEVEL="DEBUG",
        PYTHONPATH=str(ROOT),
    )
    log = tmp_path / "bot.log"  # a file, not a pipe: the debug log outgrows a pipe's buffer before it is read
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            tg.wait_for(lambda: tg.commands().get("ru"), timeout=30, what="the bot to set its commands")
            user = SimUser(tg, 9, "Dana")
            assert reply_to(
                user,
                "/start",
            ).body.startswith("Hello! I am a nardy bot")
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    output = log.read_text()
    assert proc.returncode == 0, output
    assert BOT_TOKEN not in output
    assert BOT_TOKEN.split(":")[1] not in output
    assert "<BOT_TOKEN>" in output, "the debug log shows request URLs, masked"
    if sys.platform != "win32":
        assert "event loop: uvloop" in output
    assert (tmp_path / "data" / "redis" / "appendonlydir").exists() or any(
        (tmp_path / "data" / "redis").glob("*.aof")
    )


def test_nardy_bot_without_a_token_says_what_is_missing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "BOT_TOKEN is not set" in done.stderr


def test_nardy_bot_that_cannot_reach_the_bot_api_exits_with_one_clear_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as closed:  # a loopback port with nobody listening
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = dict(
        os.environ, PYTHONPATH=str(ROOT), BOT_TOKEN=BOT_TOKEN, TELEGRAM_API_URL=f"http://127.0.0.1:{port}"
    )
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    output = done.stdout + done.stderr
    assert "cannot start the bot: NetworkError" in output
    assert "Unclosed client session" not in output and "Event loop is closed" not in output
    assert BOT_TOKEN not in output
