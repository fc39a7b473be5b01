"""bench/metrics_chart.py draws the dashboard's panels from a load run's scrape (tests never import bench/:
it runs as a script)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

ROOT = Path(__file__).resolve().parents[2]


def test_the_chart_tool_draws_four_panels_from_a_scrape(tmp_path: Path) -> None:
    registry = CollectorRegistry()
    presses = Counter("nardy_updates", "", ("kind", "outcome"), registry=registry)
    calls = Counter("nardy_telegram_calls", "", ("method", "result"), registry=registry)
    hists = [
        Histogram(name, "", buckets=(0.005, 0.01, 0.1, 1.0), registry=registry)
        for name in ("nardy_press_answer_seconds", "nardy_press_board_edited_seconds", "nardy_save_seconds")
    ]
    lines = []
    for second in range(20):
        for _ in range(10):
            presses.labels("press", "applied").inc()
            calls.labels("answerCallbackQuery", "ok").inc()
            for hist in hists:
                hist.observe(0.007)
        lines.append(json.dumps({"t": float(second), "text": generate_latest(registry).decode()}))
    scrape = tmp_path / "scrape.jsonl"
    scrape.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "bench/metrics_chart.py", str(scrape), str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "metrics-press-answer.png",
        "metrics-press-board.png",
        "metrics-save.png",
        "metrics-traffic.png",
    ]
    assert "presses max 10.0" in done.stdout  # 10 presses a second
    assert "p50 max 7.5" in done.stdout  # inside the 5-10 ms bucket, interpolated as Prometheus does
