"""A real Prometheus (Debian's `prometheus` package; skipped without it) scrapes two webhook workers during a
game through the fake Bot API, and a PromQL query over its HTTP API returns the counts the workers made;
`promtool` passes the alert rules and each worker's exposition."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import MetricsConfig
from bot.model.flow import ScriptedDice, engine_computer
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import board, start_group_game
from testkit.fake_telegram.runner import BotRunner

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docs/grafana/nardy.json"
PROMETHEUS, PROMTOOL = shutil.which("prometheus"), shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool missing (Debian's prometheus package)")
needs_prometheus = pytest.mark.skipif(
    PROMETHEUS is None or PROMTOOL is None, reason="prometheus missing (Debian's prometheus package)"
)
TOKEN = "scraper-token-0123456789abcdef"
GROUP = -1004


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(found: Callable[[], Any], timeout: float, what: str) -> Any:
    """`found()`'s first true answer, looked for every 0.2 s until `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        answer = found()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        time.sleep(0.2)


def dashboard_expressions() -> list[str]:
    return [t["expr"] for p in json.loads(DASHBOARD.read_text())["panels"] for t in p.get("targets", [])]


def exposition(worker: BotRunner) -> str:
    assert worker.observer is not None
    request = urllib.request.Request(
        worker.observer.url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(response.read().decode())


@needs_promtool
def test_promtool_passes_the_alert_rules() -> None:
    assert PROMTOOL is not None
    done = subprocess.run(
        [PROMTOOL, "check", "rules", str(ROOT / "docs/prometheus/alerts.yml")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def workers(tg: FakeTelegram, redis_url: str) -> Iterator[tuple[BotRunner, BotRunner]]:
    dice = ScriptedDice(seed=11)
    dice.push(6, 1)
    pair = tuple(
        BotRunner(
            tg.api_url,
            redis_url,
            dice,
            engine_computer(seed=5),
            webhook_port=free_port(),
            name=name,
            metrics=MetricsConfig(port=0, token=TOKEN),
        )
        for name in ("worker-a", "worker-b")
    )
    for worker in pair:
        worker.start()
        tg.settlers.append(worker.settle)
    yield pair[0], pair[1]
    for worker in pair:
        tg.settlers.remove(worker.settle)
        worker.stop()


@pytest.fixture
def prometheus(tmp_path: Path, workers: tuple[BotRunner, BotRunner]) -> Iterator[str]:
    """Prometheus scraping both workers every second; its HTTP API's root URL."""
    assert PROMETHEUS is not None
    targets = [w.observer.url.removeprefix("http://") for w in workers if w.observer is not None]
    (tmp_path / "token").write_text(TOKEN)
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(ROOT / "docs/prometheus/alerts.yml")],
        "scrape_configs": [
            {
                "job_name": "nardy",
                "authorization": {"type": "Bearer", "credentials_file": str(tmp_path / "token")},
                "static_configs": [{"targets": targets}],
            }
        ],
    }
    (tmp_path / "prometheus.yml").write_text(json.dumps(config))  # JSON is YAML
    port = free_port()
    process = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "prometheus.log").open("w"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _get(url + "/-/ready") is not None, 60.0, "prometheus ready")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bytes(response.read())
    except (urllib.error.URLError, OSError):
        return None


def query(prometheus: str, promql: str) -> float | None:
    """The one value of an instant PromQL query, None while it has none."""
    body = _get(f"{prometheus}/api/v1/query?{urllib.parse.urlencode({'query': promql})}")
    if body is None:
        return None
    result = json.loads(body)["data"]["result"]
    return float(result[0]["value"][1]) if result else None


@needs_prometheus
def test_prometheus_scrapes_two_workers_and_promql_returns_the_games_counts(
    tg: FakeTelegram, workers: tuple[BotRunner, BotRunner], prometheus: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    assert not alice.press(msg, "13→7").show_alert
    assert bob.press(board(tg, GROUP), "8→7").show_alert  # not his turn
    tg.settle()
    texts = [exposition(w) for w in workers]
    presses = sum(
        float(line.rsplit(" ", 1)[1])
        for text in texts
        for line in text.splitlines()
        if line.startswith('nardy_updates_total{kind="press"')
    )
    assert presses >= 3  # the lobby's join, the move, the refused press
    assert wait_until(lambda: query(prometheus, 'count(up{job="nardy"} == 1)') == 2, 60.0, "both targets up")
    promql = 'sum(nardy_updates_total{kind="press"})'
    assert wait_until(lambda: query(prometheus, promql) == presses, 60.0, f"{promql} == {presses}")
    refused = 'sum(nardy_updates_total{kind="press",outcome="not_your_turn"})'
    assert wait_until(lambda: query(prometheus, refused) == 1, 60.0, f"{refused} == 1")
    started = 'sum(nardy_games_started_total{variant="short",opponent="person"})'
    assert wait_until(lambda: query(prometheus, started) == 1, 60.0, f"{started} == 1")
    for expr in dashboard_expressions():  # every panel's PromQL is valid and, over this run, has an answer
        promql = expr.replace("$__rate_interval", "1m").replace("$instance", ".*")
        body = _get(f"{prometheus}/api/v1/query?{urllib.parse.urlencode({'query': promql})}")
        assert body is not None and json.loads(body)["status"] == "success", promql
    assert PROMTOOL is not None
    for text in texts:
        done = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
