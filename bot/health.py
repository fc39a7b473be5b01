"""`python -m bot.health`: is the bot alive and its Redis answering? One line, exit status 0 or 1.

The Docker image's HEALTHCHECK. A polling bot serves no port, so what can be checked from beside it is
its process (a `nardy-bot` or `python -m bot` command line in /proc; skipped where there is no /proc) and
its Redis, found the way the bot finds it (bot/config.py, bot/__main__.py): REDIS_URL, else the embedded
redis-server's unix socket <NARDY_DATA_DIR>/redis/redis.sock (NARDY_DATA_DIR defaults to ./data).
"""

from __future__ import annotations

import os
import sys
import urllib.parse
from pathlib import Path

import redis
from redis.sentinel import Sentinel

from bot.config import Config, ConfigError
from bot.storage.sentinel import parse

TIMEOUT = 3.0  # seconds for Redis to connect and answer; the HEALTHCHECK allows 10


def redis_url(config: Config) -> str:
    """The URL the bot uses: REDIS_URL, else the socket of the embedded server in the data directory."""
    if config.redis_url is not None:
        return config.redis_url
    return f"unix://{(config.data_dir / 'redis').resolve() / 'redis.sock'}?db=0"


def shown(url: str) -> str:
    """The URL with its password, if any, replaced by ***."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def is_bot_command(args: list[str]) -> bool:
    """`nardy-bot` (as run through its script's interpreter, or directly) or `python -m bot`."""
    if any(Path(arg).name == "nardy-bot" for arg in args[:2]):
        return True
    return any(args[i : i + 2] == ["-m", "bot"] for i in range(len(args) - 1))


def bot_pids(proc: Path = Path("/proc")) -> list[int] | None:
    """The running bots' process ids, this process left out; None where there is no /proc to look in."""
    if not (proc / "self").is_dir():
        return None
    pids = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if is_bot_command([arg for arg in args if arg]):
            pids.append(int(entry.name))
    return sorted(pids)


def sync_client(url: str) -> redis.Redis:
    """A client of the bot's Redis as REDIS_URL names it: one server, or the master the sentinels name
    (bot/storage/sentinel.py), each wait at most TIMEOUT seconds."""
    target = parse(url)
    timeouts = {"socket_timeout": TIMEOUT, "socket_connect_timeout": TIMEOUT}
    if target.sentinels is None:
        assert target.url is not None
        return redis.Redis.from_url(target.url, **timeouts)
    where = target.sentinels
    auth = {"username": where.username, "password": where.password}
    sentinels = Sentinel(list(where.addresses), sentinel_kwargs={**timeouts, **auth})
    return sentinels.master_for(where.service, db=where.db, **auth, **timeouts)


def check() -> tuple[bool, str]:
    """(healthy, the one line that says why)."""
    try:
        config = Config.from_env()
    except ConfigError as err:
        return False, f"the bot cannot run: {err}"
    pids = bot_pids()
    if pids == []:
        return False, "no nardy-bot process is running"
    url = redis_url(config)
    try:
        client = sync_client(url)
        with client:
            client.ping()
    except (redis.RedisError, OSError, ValueError) as err:
        reason = " ".join(str(err).split())  # one line
        return False, f"Redis at {shown(url)} does not answer: {type(err).__name__}: {reason}"
    process = "not looked for (no /proc)" if pids is None else ", ".join(map(str, pids))
    return True, f"bot process {process}; Redis at {shown(url)} answers"


def main() -> int:
    healthy, line = check()
    print(f"{'healthy' if healthy else 'unhealthy'}: {line}")
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
