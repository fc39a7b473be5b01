"""The dashboard's main panels drawn from a real scrape of a load run, with the project's chart code
(render/stats.py): `python bench/metrics_chart.py SCRAPE.jsonl OUT_DIR`.

SCRAPE.jsonl is what `python bench/load.py --scrape FILE` wrote (the bot's /metrics once a second). Each panel
is computed the way the Grafana dashboard's PromQL does (docs/grafana/nardy.json): rates of counters, and
histogram_quantile over the buckets' increase, here over WINDOW seconds. Writes metrics-traffic.png,
metrics-press-answer.png, metrics-press-board.png and metrics-save.png to OUT_DIR; prints what it drew."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prometheus_client.parser import text_string_to_metric_families

from render.stats import ChartTexts, Series, rating_chart

WINDOW = 5.0  # seconds each point's rate or quantile looks back (the dashboard's [1m], shortened for a run)
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def summed(samples: Samples, name: str, keep: Callable[[dict[str, str]], bool] = lambda _: True) -> float:
    return sum(v for (n, labels), v in samples.items() if n == name and keep(dict(labels)))


def buckets(samples: Samples, name: str) -> dict[float, float]:
    """A histogram's cumulative counts by upper bound (summed over its other labels)."""
    found: dict[float, float] = {}
    for (n, labels), v in samples.items():
        if n == f"{name}_bucket":
            le = float(dict(labels)["le"])
            found[le] = found.get(le, 0.0) + v
    return found


def quantile(q: float, cumulative: dict[float, float]) -> float | None:
    """Prometheus's histogram_quantile: linear inside the bucket that holds the rank."""
    bounds = sorted(cumulative)
    if not bounds or cumulative[bounds[-1]] <= 0:
        return None
    rank = q * cumulative[bounds[-1]]
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = cumulative[bound]
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = bound, count
    return lower


def load(path: Path) -> list[tuple[float, Samples]]:
    with path.open(encoding="utf-8") as lines:
        return [(float(d["t"]), parse(d["text"])) for d in map(json.loads, lines)]


def windows(scrapes: Sequence[tuple[float, Samples]]) -> list[tuple[float, Samples, Samples]]:
    """(time, the scrape WINDOW seconds before, this scrape) for every scrape that has one before it."""
    out = []
    for t, now in scrapes:
        before = [(u, s) for u, s in scrapes if u <= t - WINDOW]
        if before:
            out.append((t, before[-1][1], now))
    return out


def rate_series(
    label: str, scrapes: Sequence[tuple[float, Samples]], value: Callable[[Samples], float]
) -> Series:
    points = []
    t0 = scrapes[0][0]
    for t, before, now in windows(scrapes):
        earlier = max(u for u, s in scrapes if s is before)
        points.append((t - t0, (value(now) - value(before)) / (t - earlier)))
    return Series(label, tuple(points))


def quantile_series(label: str, q: float, scrapes: Sequence[tuple[float, Samples]], name: str) -> Series:
    points = []
    t0 = scrapes[0][0]
    for t, before, now in windows(scrapes):
        start, end = buckets(before, name), buckets(now, name)
        found = quantile(q, {le: end[le] - start.get(le, 0.0) for le in end})
        if found is not None:
            points.append((t - t0, found * 1000))
    return Series(label, tuple(points))


def panels(scrapes: Sequence[tuple[float, Samples]]) -> dict[str, tuple[ChartTexts, list[Series]]]:
    def presses(s: Samples) -> float:
        return summed(s, "nardy_updates_total", lambda labels: labels.get("kind") == "press")

    def calls(s: Samples) -> float:
        return summed(s, "nardy_telegram_calls_total")

    def latency(title: str, name: str) -> tuple[ChartTexts, list[Series]]:
        series = [quantile_series(f"p{round(q * 100)}", q, scrapes, name) for q in (0.5, 0.99)]
        return ChartTexts(title, "time into the run", "milliseconds", "no data"), series

    return {
        "metrics-traffic.png": (
            ChartTexts("Traffic: a second", "time into the run", "per second", "no data"),
            [rate_series("presses", scrapes, presses), rate_series("Bot API calls", scrapes, calls)],
        ),
        "metrics-press-answer.png": latency("Press to answer", "nardy_press_answer_seconds"),
        "metrics-press-board.png": latency("Press to board edited", "nardy_press_board_edited_seconds"),
        "metrics-save.png": latency("The save (Redis)", "nardy_save_seconds"),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[1].strip(), file=sys.stderr)
        return 2
    scrapes = load(Path(argv[0]))
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, (texts, series) in panels(scrapes).items():
        (out / name).write_bytes(rating_chart(series, texts, theme="light", seconds=True))
        tops = ", ".join(f"{s.label} max {max((v for _, v in s.points), default=0):.1f}" for s in series)
        print(f"{out / name}: {texts.title} ({len(scrapes)} scrapes; {tops})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
