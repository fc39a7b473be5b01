"""REDIS_URL read (bot/storage/sentinel.py): one server as redis-py takes it, or sentinels and a service; the
replicas a save waits for; a URL that is neither refused with the URL (its password hidden) in the error."""

from __future__ import annotations

import pytest

from bot.storage import Storage
from bot.storage.sentinel import DEFAULT_REPLICA_TIMEOUT, Replication, Sentinels, parse


def test_a_plain_url_is_passed_to_redis_py_as_it_is_and_waits_for_no_replica() -> None:
    for url in ("redis://localhost:6379/0", "unix:///data/redis/redis.sock?db=0", "rediss://:pw@h:6380/2"):
        target = parse(url)
        assert (target.url, target.sentinels, target.replication) == (url, None, Replication())


def test_a_plain_url_may_ask_for_replicas_and_loses_that_setting_before_redis_py_sees_it() -> None:
    target = parse("unix:///r.sock?db=0&replicas=1&replica_timeout=0.25")
    assert target.url == "unix:///r.sock?db=0"
    assert target.replication == Replication(1, 0.25)


def test_a_sentinel_url_names_the_sentinels_the_service_and_the_database() -> None:
    target = parse("redis+sentinel://:s3cret@h1:26379,h2:26380,h3/nardy/2")
    assert target.url is None
    assert target.sentinels == Sentinels((("h1", 26379), ("h2", 26380), ("h3", 26379)), "nardy", 2, "s3cret")
    assert target.replication == Replication(1, DEFAULT_REPLICA_TIMEOUT)


def test_a_sentinel_url_may_wait_for_no_replica_or_for_two() -> None:
    assert parse("redis+sentinel://h1:26379/nardy?replicas=0").replication.replicas == 0
    assert parse("redis+sentinel://h1:26379/nardy/0?replicas=2").replication.replicas == 2


@pytest.mark.parametrize(
    "url",
    [
        "redis+sentinel://:pw@h1:26379",  # no service
        "redis+sentinel://:pw@h1:x/nardy",  # a port that is no number
        "redis+sentinel://:pw@h1:26379/nardy/zero",  # a database that is no number
        "redis+sentinel://:pw@h1:26379/nardy?replicas=-1",
        "redis+sentinel://:pw@h1:26379/nardy?replica_timeout=soon",
        "redis+sentinel://:pw@h1:26379/nardy?ssl=1",  # not a setting of ours
    ],
)
def test_a_sentinel_url_that_is_not_one_is_refused_without_showing_its_password(url: str) -> None:
    with pytest.raises(ValueError, match=r"REDIS_URL redis\+sentinel://:\*\*\*@h1") as refused:
        parse(url)
    assert "pw" not in str(refused.value)


def test_the_replica_wait_is_kept_shorter_than_any_wait_on_redis() -> None:
    storage = Storage.from_url("redis+sentinel://h1:26379/nardy/0?replica_timeout=3", timeout=1.0)
    assert storage.games._replicated == Replication(1, 0.5)
