"""docs/grafana/nardy.json and docs/prometheus/alerts.yml speak of the metrics the bot has: every nardy_ name
they use is one of a worker's samples (tests/observe/test_prometheus.py runs their PromQL on a real Prometheus)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.observe.metrics import Metrics

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docs/grafana/nardy.json"
ALERTS = ROOT / "docs/prometheus/alerts.yml"


def sample_names() -> set[str]:
    """Every sample name a worker can expose (a histogram's _bucket, _count, _sum; a counter's _total)."""
    names = set()
    for family in Metrics().registry.collect():
        names.add(family.name)
        kind = family.type
        names |= {
            "counter": {f"{family.name}_total", f"{family.name}_created"},
            "histogram": {f"{family.name}_{s}" for s in ("bucket", "count", "sum", "created")},
        }.get(kind, set())
    return names


def dashboard_expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]


def test_every_metric_the_dashboard_and_the_alerts_name_exists() -> None:
    known = sample_names()
    used = set(re.findall(r"\bnardy_[a-z_]+", " ".join(dashboard_expressions()) + ALERTS.read_text()))
    assert used, "no metric named"
    assert used <= known, sorted(used - known)


def test_the_dashboard_has_the_panels_an_operator_looks_at_first() -> None:
    titles = {p["title"] for p in json.loads(DASHBOARD.read_text())["panels"]}
    for wanted in (
        "Press to answer",
        "Refused updates a second, by reason",
        "Redis errors a second, by kind",
    ):
        assert wanted in titles
    assert any("Bot API errors" in t for t in titles)
    assert any("queued for the worker processes" in t for t in titles)
