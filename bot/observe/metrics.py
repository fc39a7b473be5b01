"""The bot's Prometheus metrics (prometheus_client), one `Metrics` per worker process.

Every metric lives on the Metrics' own CollectorRegistry (never the library's global one), so that two
workers run in one test process are two targets, as two processes are in production. The seams that count
(the guards, the Bot API calls, the save, the boards, the worker pools, the board page) find the worker's
Metrics with `current()`: set once with `use()` in the coroutine that runs the worker, inherited by every
task it starts. None (metrics off, NARDY_METRICS_PORT unset): nothing is counted.

Only the bot's main process counts: the render and computer processes (bot/workers/) count nothing, their
calls are timed from the main process's side, so nothing is counted twice and no multiprocess directory is
needed. Label values are bounded: a kind, an outcome, a method, a variant, a level; never a user, chat or
game id (`bounded` maps anything unexpected to "other")."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

# Seconds: a press is answered in milliseconds; Telegram drops an answer after ~10 s.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)  # a save, a PING
DECISION_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

OTHER = "other"

# What became of an update (nardy_updates_total's outcome).
APPLIED = "applied"
OUTCOMES = frozenset(
    {
        APPLIED,
        "stale",  # someone was quicker, or the board is out of date
        "not_your_turn",
        "forged_home",  # the button is not its message's (a forged press)
        "rate_limited",  # past the inbound limits (bot/telegram/handlers/gate.py)
        "storage_away",
        "storage_slow",
        "refused",  # any other refusal a player is told
        "bad_data",
        "busy",  # the chat has a game on, the computer is busy
        "gone",
        "failed",  # a bug: on_error logged it
        OTHER,
    }
)
UPDATE_KINDS = frozenset({"press", "command", "inline", "message", OTHER})
VARIANTS = frozenset({"short", "long"})
LEVELS = frozenset({"beginner", "intermediate", "expert", OTHER})  # bot/model/stats.py LEVELS
OPPONENTS = frozenset({"computer", "person"})
ENDINGS = frozenset({"played", "resigned", "dropped", "claimed", "time", OTHER})  # bot/model/stats.py HOWS
RESULTS = frozenset({"oin", "mars", "koks", "home_mars", OTHER})  # engine/scoring.py WinKind
TELEGRAM_RESULTS = frozenset(
    {
        "ok",
        "429",
        "400_not_modified",  # "message is not modified": harmless
        "400_not_found",  # the message to edit is gone
        "400_query_too_old",  # a press answered too late
        "400_chat_not_found",
        "400_other",
        "403",  # blocked by the user, kicked from the group
        "5xx",
        "timeout",
        "network",
        OTHER,
    }
)
REDIS_ERRORS = frozenset({"away", "slow", "fault"})
POOLS = frozenset({"render", "computer", "analysis"})
HELLO_REFUSALS = frozenset(
    {"origin", "auth", "not_a_player", "rate_limited", "bad_message", "gone", "storage_away", OTHER}
)


def bounded(value: str | None, allowed: Collection[str]) -> str:
    """`value` when it is one of `allowed`, else "other": a label never takes an unbounded value."""
    return value if value is not None and value in allowed else OTHER


class Metrics:
    """Every metric of one worker, on its own registry (exposed by bot/observe/server.py)."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        # traffic
        self.updates = Counter(
            "nardy_updates", "Updates handled, by kind and outcome", ("kind", "outcome"), registry=r
        )
        self.commands = Counter("nardy_commands", "Commands handled, by command", ("command",), registry=r)
        self.press_answer = Histogram(
            "nardy_press_answer_seconds",
            "From a press reaching its guard to its callback query answered",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.press_board = Histogram(
            "nardy_press_board_edited_seconds",
            "From a press reaching its guard to every board of its game showing the change",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        # the work behind a press
        self.save = Histogram(
            "nardy_save_seconds",
            "A game's save (lua/save_game.lua), whatever its outcome",
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.picture = Histogram(
            "nardy_picture_seconds",
            "A board picture, asked for and drawn (in a render process, or a thread)",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.decision = Histogram(
            "nardy_computer_decision_seconds",
            "The computer's decision of a play, by variant and level",
            ("variant", "level"),
            buckets=DECISION_BUCKETS,
            registry=r,
        )
        self.pool_queue = Gauge(
            "nardy_worker_queue",
            "Requests owed by a pool's worker processes or waiting for one, by pool",
            ("pool",),
            registry=r,
        )
        self.pool_alive = Gauge(
            "nardy_worker_processes", "Worker processes running, by pool", ("pool",), registry=r
        )
        # Telegram
        self.telegram = Counter(
            "nardy_telegram_calls", "Bot API calls, by method and result", ("method", "result"), registry=r
        )
        self.retry_after = Counter(
            "nardy_telegram_retry_after_seconds",
            "Seconds Telegram's 429 answers asked the bot to wait, summed",
            registry=r,
        )
        self.outbox = Gauge("nardy_outbox_queued", "Messages queued in the per-chat outbox", registry=r)
        # games
        self.started = Counter(
            "nardy_games_started",
            "Games started, by variant and opponent kind",
            ("variant", "opponent"),
            registry=r,
        )
        self.finished = Counter(
            "nardy_games_finished",
            "Games finished, by variant, opponent kind, how they ended and their result",
            ("variant", "opponent", "ending", "result"),
            registry=r,
        )
        self.seekers = Gauge(
            "nardy_quickmatch_seekers", "Quick-match searches queued, by game format", ("format",), registry=r
        )
        self.clocks = Gauge("nardy_clocks_pending", "Live games whose clock runs (nardy:clocks)", registry=r)
        self.tournaments = Gauge(
            "nardy_tournaments_running", "Tournaments signing up or playing (nardy:tourneys)", registry=r
        )
        self.games_live = Gauge(
            "nardy_games_live",
            "Games not over, saved within the game's lifetime (nardy:games:live)",
            registry=r,
        )
        # Redis
        self.redis_errors = Counter(
            "nardy_redis_errors",
            "Redis errors at the storage boundary, by kind (away, slow, fault)",
            ("kind",),
            registry=r,
        )
        self.redis_ping = Histogram(
            "nardy_redis_ping_seconds",
            "Round trip of a Redis PING (sampled)",
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.redis_connects = Counter(
            "nardy_redis_connections",
            "Connections opened to Redis (the first ones and every reconnect)",
            registry=r,
        )
        # the board page
        self.sockets = Gauge("nardy_web_sockets", "Board pages' sockets open", registry=r)
        self.hellos_refused = Counter(
            "nardy_web_hellos_refused", "Board page hellos refused, by reason", ("reason",), registry=r
        )
        self.pushes = Histogram(
            "nardy_web_push_seconds",
            "From a save to its state pushed to a board page (one per page)",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        # press -> board edited: game id -> (version, when its press reached the guard); bounded by the
        # games being drawn (an entry leaves when its boards are shown or a newer press takes its place)
        self.pressed: dict[str, tuple[int, float]] = {}

    def update(self, kind: str, outcome: str) -> None:
        self.updates.labels(bounded(kind, UPDATE_KINDS), bounded(outcome, OUTCOMES)).inc()

    def hello_refused(self, reason: str) -> None:
        self.hellos_refused.labels(bounded(reason, HELLO_REFUSALS)).inc()

    def telegram_call(self, method: str, result: str) -> None:
        name = method if method.isascii() and method.isalnum() and len(method) <= 40 else OTHER
        self.telegram.labels(name, bounded(result, TELEGRAM_RESULTS)).inc()

    def watch(self, gauge: Gauge, read: Callable[[], float], *labels: str) -> None:
        """`gauge` (with `labels`) reads `read()` at each scrape: a queue's length, the processes alive."""
        (gauge.labels(*labels) if labels else gauge).set_function(read)


_current: contextvars.ContextVar[Metrics | None] = contextvars.ContextVar("nardy_metrics", default=None)


def current() -> Metrics | None:
    """This worker's metrics; None when they are off."""
    return _current.get()


@contextmanager
def using(metrics: Metrics | None) -> Iterator[Metrics | None]:
    """Count into `metrics` in this context (and every task started from it) until the block ends."""
    token = _current.set(metrics)
    try:
        yield metrics
    finally:
        _current.reset(token)


def use(metrics: Metrics | None) -> None:
    """Count into `metrics` from here on in this context (the coroutine that runs a worker)."""
    _current.set(metrics)
