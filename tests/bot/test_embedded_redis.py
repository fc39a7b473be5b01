"""The embedded redis-server owns its data directory: one owner, one server, nothing lost when an owner
dies (bot/embedded_redis.py). Real processes throughout: owners are `python -c` subprocesses, killed with
SIGKILL; the servers are counted on /proc."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from bot.embedded_redis import (
    LOCK_FILE,
    PID_RECORD,
    DataDirLocked,
    EmbeddedRedis,
    process_start_time,
    redis_server_binary,
    redis_server_processes,
)

ROOT = Path(__file__).resolve().parents[2]

# argv: data dir, "main" or "thread" (where start() runs), "write" (SET k<i> forever, printing i once
# each SET is acknowledged) or "hold" (just keep the server).
OWNER = r"""
import sys, threading
import redis
from bot.embedded_redis import EmbeddedRedis

server = EmbeddedRedis(sys.argv[1])
if sys.argv[2] == "thread":  # the parent-death signal is not armed from a thread
    starter = threading.Thread(target=server.start)
    starter.start()
    starter.join()
else:
    server.start()
if not server.running:
    sys.exit("not started")
client = redis.Redis.from_url(server.url)
print("ready", server._proc.pid, flush=True)
i = 0
while sys.argv[3] == "write":
    client.set(f"k{i}", i)
    print(i, flush=True)
    i += 1
threading.Event().wait()
"""


def _servers_on(data_dir: Path) -> list[int]:
    """The live redis-server processes working in data_dir (redis chdirs to its --dir)."""
    return [p.pid for p in redis_server_processes() if p.cwd == data_dir.resolve()]


def _wait_until(condition: Callable[[], object], what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _kill_servers_on(data_dir: Path) -> None:
    for pid in _servers_on(data_dir):
        os.kill(pid, signal.SIGKILL)


@contextmanager
def _owner(data_dir: Path, where: str, what: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """An owner process that has started its server: (the process, the server's pid). Whatever happens,
    the owner and every server on data_dir are killed at the end."""
    proc = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(data_dir), where, what],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ready "), (line, proc.stderr.read() if proc.stderr else "")
        yield proc, int(line.split()[1])
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        _kill_servers_on(data_dir)


def _kill_while_writing(proc: subprocess.Popen[str], at_least: int) -> list[int]:
    """Let the owner's acknowledged SETs reach at_least, SIGKILL it mid-stream, return every index it had
    reported as acknowledged."""
    assert proc.stdout is not None
    acked: list[int] = []
    while len(acked) < at_least:
        line = proc.stdout.readline()
        assert line.endswith("\n"), "the owner stopped writing"
        acked.append(int(line))
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    # the rest through the same buffered stream: communicate() would read the pipe beneath it and miss the
    # lines readline() had already buffered (it did on a loaded machine: 400 acknowledged, then 429)
    rest = proc.stdout.read()
    acked += [int(line) for line in rest.splitlines(keepends=True) if line.endswith("\n")]
    assert acked == list(range(len(acked)))
    return acked


def _check_acknowledged(server: EmbeddedRedis, acked: list[int]) -> None:
    client = redis.Redis.from_url(server.url)
    try:
        values = client.mget([f"k{i}" for i in acked])
    finally:
        client.close()
    missing = [i for i, value in zip(acked, values, strict=True) if value != str(i).encode()]
    assert not missing, f"{len(missing)} acknowledged writes lost, first {missing[:5]}"


def test_a_killed_owner_takes_its_server_along_and_the_next_start_has_every_acknowledged_write(
    tmp_path: Path,
) -> None:
    data = tmp_path / "redis"
    with _owner(data, "main", "write") as (proc, first_server):
        acked = _kill_while_writing(proc, 300)
        # the parent-death signal: SIGTERM, so the server writes its AOF and exits by itself
        _wait_until(lambda: not _servers_on(data), "the orphaned redis-server to exit")
        assert process_start_time(first_server) is None
        server = EmbeddedRedis(data)
        try:
            server.start()
            assert server._proc is not None
            assert _servers_on(data) == [server._proc.pid]
            _check_acknowledged(server, acked)
        finally:
            server.stop()
        assert _servers_on(data) == []


def test_a_server_that_outlived_its_killed_owner_is_shut_down_cleanly_by_the_next_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Started from a thread (no parent-death signal, as where Linux's is not available), the server
    survives its owner's SIGKILL; each next start shuts the survivor down, so crashes never pile up."""
    data = tmp_path / "redis"
    acked: list[int] = []
    for round_ in range(2):
        with _owner(data, "thread", "write") as (proc, survivor):
            acked = _kill_while_writing(proc, 200 * (round_ + 1))
            time.sleep(0.2)  # the server does not follow its owner
            assert _servers_on(data) == [survivor]
            assert json.loads((data / PID_RECORD).read_text())["pid"] == survivor
            server = EmbeddedRedis(data)
            try:
                with caplog.at_level(logging.INFO, logger="bot.embedded_redis"):
                    server.start()
                assert server._proc is not None
                assert _servers_on(data) == [server._proc.pid]
                assert process_start_time(survivor) is None
                assert f"a redis-server left by a previous run (pid {survivor}) still runs on {data}" in (
                    caplog.text
                )
                assert f"the leftover redis-server (pid {survivor}) has exited" in caplog.text
                assert "SIGKILL" not in caplog.text, "SHUTDOWN over its socket was enough"
                _check_acknowledged(server, acked)
            finally:
                server.stop()
                caplog.clear()
    assert _servers_on(data) == []


def test_a_second_owner_is_refused_and_the_first_keeps_its_socket_and_server(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    with _owner(data, "main", "hold") as (proc, first_server):
        socket_inode = (data / "redis.sock").stat().st_ino
        second = EmbeddedRedis(data)
        with pytest.raises(DataDirLocked) as refused:
            second.start()
        message = str(refused.value)
        assert "\n" not in message
        assert str(data) in message and f"pid {proc.pid}" in message
        assert refused.value.holder == proc.pid
        assert not second.running
        second.stop()  # harmless: it never owned anything
        assert (data / "redis.sock").stat().st_ino == socket_inode
        assert json.loads((data / PID_RECORD).read_text())["pid"] == first_server
        assert _servers_on(data) == [first_server]
        client = redis.Redis.from_url(f"unix://{data / 'redis.sock'}?db=0")
        try:
            assert client.ping()
            client.set("still", "here")
            assert client.get("still") == b"here"
        finally:
            client.close()


def test_python_m_bot_on_a_data_directory_in_use_exits_1_with_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with _owner(data / "redis", "main", "hold") as (proc, first_server):
        socket_inode = (data / "redis" / "redis.sock").stat().st_ino
        env = dict(
            os.environ,
            PYTHONPATH=str(ROOT),
            BOT_TOKEN="123456:not-a-real-token",
            TELEGRAM_API_URL="http://127.0.0.1:9",
            NARDY_DATA_DIR=str(data),
        )
        env.pop("REDIS_URL", None)
        done = subprocess.run(
            [sys.executable, "-m", "bot"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr + done.stdout
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("nardy-bot: "), done.stderr
        assert str(data / "redis") in lines[0] and f"pid {proc.pid}" in lines[0]
        assert (data / "redis" / "redis.sock").stat().st_ino == socket_inode
        assert _servers_on(data / "redis") == [first_server]
        client = redis.Redis.from_url(f"unix://{data / 'redis' / 'redis.sock'}?db=0")
        try:
            assert client.ping()
        finally:
            client.close()


def test_a_stale_lock_file_and_record_of_a_dead_process_do_not_block_a_start(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    data.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (data / LOCK_FILE).write_text(f"{dead.pid}\n")
    (data / PID_RECORD).write_text(
        json.dumps({"pid": dead.pid, "start_time": 1, "socket": None, "port": None})
    )
    server = EmbeddedRedis(data)
    try:
        server.start()
        assert server.running
        assert (data / LOCK_FILE).read_text() == f"{os.getpid()}\n"
        assert server._proc is not None
        assert json.loads((data / PID_RECORD).read_text())["pid"] == server._proc.pid
    finally:
        server.stop()


def test_a_record_naming_another_process_is_not_acted_on(tmp_path: Path) -> None:
    """The recorded pid now belongs to a `sleep`, or to a redis-server of another directory, with the
    start time of that very process: neither is stopped."""
    data, elsewhere = tmp_path / "redis", tmp_path / "other"
    data.mkdir()
    sleeper = subprocess.Popen(["sleep", "60"])
    other = EmbeddedRedis(elsewhere)
    server = EmbeddedRedis(data)
    try:
        other.start()
        assert other._proc is not None
        client = redis.Redis.from_url(other.url)
        client.set("other", "kept")
        client.close()
        for pid in (sleeper.pid, other._proc.pid):
            (data / PID_RECORD).write_text(
                json.dumps(
                    {
                        "pid": pid,
                        "start_time": process_start_time(pid),
                        "socket": str(other.socket_path),
                        "port": None,
                    }
                )
            )
            server.start()
            assert server.running
            server.stop()
            assert sleeper.poll() is None
            assert other.running
        client = redis.Redis.from_url(other.url)
        assert client.get("other") == b"kept"
        client.close()
    finally:
        server.stop()
        other.stop()
        sleeper.kill()
        sleeper.wait()


def test_a_server_of_an_older_bot_without_a_record_is_shut_down_with_its_data(tmp_path: Path) -> None:
    """A redis-server on the directory's socket with no lock and no record (as the bot used to leave
    them): the next start shuts it down cleanly and finds its acknowledged writes."""
    data = tmp_path / "redis"
    data.mkdir()
    sock = data / "redis.sock"
    old = subprocess.Popen(
        [redis_server_binary(), "--dir", str(data), "--appendonly", "yes", "--save", "", "--port", "0"]
        + ["--unixsocket", str(sock), "--logfile", str(data / "old.log")],
        stdin=subprocess.DEVNULL,
    )
    server = EmbeddedRedis(data)
    try:
        client = redis.Redis.from_url(f"unix://{sock}?db=0")
        _wait_until(lambda: sock.exists(), "the old server's socket")
        _wait_until(client.ping, "the old server to answer")
        client.set("old", "kept")
        client.close()
        server.start()
        assert old.wait(timeout=15) == 0, "SHUTDOWN, not a kill"
        assert server._proc is not None
        assert _servers_on(data) == [server._proc.pid]
        client = redis.Redis.from_url(server.url)
        assert client.get("old") == b"kept"
        client.close()
    finally:
        server.stop()
        if old.poll() is None:
            old.kill()
        old.wait()


def test_start_and_stop_repeat_and_stop_gives_up_the_directory(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    server = EmbeddedRedis(data)
    try:
        server.start()
        assert server._proc is not None
        pid = server._proc.pid
        server.start()  # idempotent while it runs
        assert server._proc.pid == pid
        record = json.loads((data / PID_RECORD).read_text())
        assert record["pid"] == pid and record["start_time"] == process_start_time(pid)
        assert record["socket"] == str(server.socket_path)
        server.stop()
        assert not (data / PID_RECORD).exists()
        assert _servers_on(data) == []
        other = EmbeddedRedis(data)  # the directory is free again
        other.start()
        other.stop()
        server.start()
        assert server.running and _servers_on(data) == [server._proc.pid]
    finally:
        server.stop()


def test_a_server_killed_under_its_owner_is_replaced_by_the_same_owner(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    server = EmbeddedRedis(data, fsync_always=True)
    try:
        server.start()
        client = redis.Redis.from_url(server.url)
        client.set("k", "v")
        client.close()
        assert server._proc is not None
        server._proc.kill()
        server._proc.wait()
        assert not server.running
        with pytest.raises(DataDirLocked):  # still owned while its server is down
            EmbeddedRedis(data).start()
        server.start()
        assert _servers_on(data) == [server._proc.pid]
        client = redis.Redis.from_url(server.url)
        assert client.get("k") == b"v"
        client.close()
    finally:
        server.stop()


def test_a_tcp_server_left_by_a_killed_owner_is_shut_down_too(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    script = OWNER.replace("EmbeddedRedis(sys.argv[1])", "EmbeddedRedis(sys.argv[1], use_tcp=True)")
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(data), "thread", "hold"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    server = EmbeddedRedis(data, use_tcp=True)
    try:
        assert proc.stdout is not None
        survivor = int(proc.stdout.readline().split()[1])
        proc.kill()
        proc.wait()
        assert _servers_on(data) == [survivor]
        server.start()
        assert server._proc is not None
        assert _servers_on(data) == [server._proc.pid]
    finally:
        server.stop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        _kill_servers_on(data)
