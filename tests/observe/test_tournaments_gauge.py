"""The tournaments-running gauge (bot/observe/sampler.py): the live tournaments in nardy:tourneys, sampled from
the real Redis; a finished or cancelled one leaves it."""

from __future__ import annotations

from bot.model.flow import ScriptedDice, engine_computer
from bot.model.table import Person
from bot.observe.metrics import Metrics
from bot.observe.sampler import sample
from bot.service import tournaments
from bot.service.context import Services
from bot.service.settings import SettingsCache
from bot.storage import Storage

NOW = 1_800_000_000.0


def running(metrics: Metrics) -> float | None:
    return metrics.registry.get_sample_value("nardy_tournaments_running", {})


async def test_the_gauge_counts_the_tournaments_signing_up_or_playing_and_drops_a_cancelled_one(
    redis_url: str,
) -> None:
    storage = Storage.from_url(redis_url, timeout=10.0)
    s = Services(
        storage, ScriptedDice(seed=5), engine_computer(seed=1), SettingsCache(storage), clock=lambda: NOW
    )
    metrics = Metrics()
    await sample(metrics, storage)
    assert running(metrics) == 0
    first = await tournaments.create(s, -1001, "One", Person(1, "P1"), "arena", "short-blitz", 5, 0)
    await tournaments.create(s, -1002, "Two", Person(2, "P2"), "knockout", "short-blitz", 0, 0)
    await sample(metrics, storage)
    assert running(metrics) == 2
    await tournaments.cancel(s, first.id, 1, admin=True)
    await sample(metrics, storage)
    assert running(metrics) == 1
    await storage.close()
