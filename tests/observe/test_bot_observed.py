"""`python -m bot` in polling mode with NARDY_METRICS_PORT and NARDY_LOG_FORMAT=json: its /healthz, /readyz and
/metrics answer (its worker processes counted from the main process), and every log line is a JSON object."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from testkit.fake_telegram import BOT_TOKEN, FakeTelegram, SimUser
from testkit.fake_telegram.play import reply_to

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except OSError:
        return 0, ""


def test_a_polling_bot_serves_health_and_metrics_and_logs_json_lines(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)}
    env.update(
        BOT_TOKEN=BOT_TOKEN,
        TELEGRAM_API_URL=tg.api_url,
        NARDY_DATA_DIR=str(tmp_path / "data"),
        NARDY_METRICS_PORT=str(port),
        NARDY_LOG_FORMAT="json",
        NARDY_RENDER_PROCESSES="1",
        PYTHONPATH=str(ROOT),
    )
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "bot.log"
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
            tg.wait_for(lambda: get(base + "/healthz") == (200, "ok\n"), 60, "the bot's /healthz")
            tg.wait_for(lambda: get(base + "/readyz") == (200, "ready\n"), 60, "the bot's /readyz")
            assert reply_to(SimUser(tg, 9, "Dana"), "/start").body.startswith("Hello! I am a nardy bot")
            status, text = get(base + "/metrics")
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    assert status == 200
    assert 'nardy_commands_total{command="start"} 1.0' in text
    for pool in ("render", "computer", "analysis"):
        assert f'nardy_worker_processes{{pool="{pool}"}} 1.0' in text
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert any("metrics and health on" in line["message"] for line in lines)
    assert proc.returncode == 0
    assert BOT_TOKEN not in log.read_text()
