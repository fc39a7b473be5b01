"""Worker processes the event loop talks to over pipes: the mechanics shared by the render workers
(`bot/workers/pictures.py`) and the computer opponent's workers (`bot/workers/computer.py`).

A `WorkerPool` runs `n` processes `python -m <module>`, each started with `worker_env()` (only what
a worker needs: never the bot's token, webhook secret or Redis URL) and read and written by the loop
itself: no helper threads in the bot's process, so nothing there competes with the loop for the
interpreter lock. (A thread pool, or a ProcessPoolExecutor with its feeder and manager threads, made
every socket write of the loop wait for the lock.)

Frames on the pipes: a request is a 4-byte big-endian length and the payload (the pool's user
encodes it); an answer is one status byte (0: the payload is the answer, 1: the payload is an error
text from the worker's handler), a 4-byte length and the payload. A worker writes one byte, `R`,
once it is ready, and answers in the order of the requests. `run_worker()` is the worker's side.

A worker that dies or hangs (owes answers and has sent none for the pool's timeout) is killed and
replaced in the background; its callers get `WorkerGone` and do the work themselves (in a thread).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

ROOT = str(Path(__file__).resolve().parents[2])  # where `bot`, `engine` and `render` are imported from
RESPAWN_DELAY = 30.0  # seconds between attempts to start a worker after one failed to start
READY = b"R"
READY_TIMEOUT = 120.0  # seconds a new worker may take to import and warm up
_HEAD = 4
_OK, _FAILED = 0, 1

# The environment of a worker, by name (and PYTHON*, LC_* by prefix): enough to start Python and
# find the project, nothing else. LD_LIBRARY_PATH: some Python builds need it to load libpython.
_KEPT = ("PATH", "HOME", "LANG", "LANGUAGE", "TMPDIR", "TZ", "LD_LIBRARY_PATH")
_KEPT_PREFIXES = ("LC_", "PYTHON")


def worker_env(environ: Mapping[str, str] | None = None, root: str = ROOT) -> dict[str, str]:
    """The environment a worker process is started with: PATH, HOME, LANG/LANGUAGE/LC_*, TMPDIR, TZ,
    LD_LIBRARY_PATH and the PYTHON* settings (e.g. PYTHONHASHSEED) where set, and PYTHONPATH with
    the project root first. Nothing else of the bot's environment: no BOT_TOKEN, WEBHOOK_SECRET,
    REDIS_URL, whatever the bot was started with."""
    env = os.environ if environ is None else environ
    kept = {k: v for k, v in env.items() if k in _KEPT or k.startswith(_KEPT_PREFIXES)}
    kept["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    return kept


class WorkerGone(RuntimeError):
    """A worker died, hung or was stopped before it answered (or none is running): do the work here."""


class NoWorker(WorkerGone):
    """No worker is running (none could start, or all failed and none is back yet)."""


class HandlerFailed(RuntimeError):
    """The worker's handler raised on a request (a bug, not a failed worker): the worker says what and
    goes on."""


@dataclass(frozen=True)
class WorkerSpec:
    """What a pool runs: `python -m <module>`; `label` names its workers in logs and errors ("render
    worker"); `timeout`: seconds a worker that owes answers may go without sending one before it is
    taken for hung and replaced; `queue_bound`: at most this many requests written to one worker and
    not yet answered (None: no bound), more wait in the pool for a slot."""

    module: str
    label: str
    timeout: float = 20.0
    queue_bound: int | None = None

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError(f"{self.label}: timeout must be positive, got {self.timeout}")
        if self.queue_bound is not None and self.queue_bound < 1:
            raise ValueError(f"{self.label}: queue_bound must be 1 or more (or None), got {self.queue_bound}")


class _Worker:
    """One worker process and the answers it still owes, oldest first."""

    def __init__(self, proc: asyncio.subprocess.Process, label: str, answered: Callable[[], None]) -> None:
        self.proc = proc
        self.label = label
        self.pending: collections.deque[asyncio.Future[bytes]] = collections.deque()
        self.reader: asyncio.Task[None] | None = None  # set once the worker said it is ready
        self.progress = 0.0  # loop time of the last answer, or of the request that found the worker idle
        self._answered = answered

    @property
    def alive(self) -> bool:
        return self.reader is not None and not self.reader.done()

    def stalled(self, now: float, timeout: float) -> bool:
        """Owes answers and has sent none for `timeout` seconds (a long queue is not a hang)."""
        return bool(self.pending) and now - self.progress >= timeout

    def send(self, frame: bytes) -> asyncio.Future[bytes]:
        assert self.proc.stdin is not None
        if not self.alive or self.proc.stdin.is_closing():
            raise WorkerGone(f"{self.label} {self.proc.pid} has ended")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()
        if not self.pending:
            self.progress = loop.time()
        self.pending.append(future)  # appended and written in one step: answers keep this order
        self.proc.stdin.write(frame)
        return future

    async def read_answers(self) -> None:
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while True:
                head = await stdout.readexactly(1 + _HEAD)
                if head[0] not in (_OK, _FAILED):
                    raise ConnectionError(f"status byte {head[0]} is not {_OK} or {_FAILED}: out of step")
                payload = await stdout.readexactly(int.from_bytes(head[1:], "big"))
                self.progress = asyncio.get_running_loop().time()
                future = self.pending.popleft()
                if not future.done():
                    if head[0] == _OK:
                        future.set_result(payload)
                    else:
                        future.set_exception(HandlerFailed(payload.decode("utf-8", "replace")))
                self._answered()
        except (asyncio.IncompleteReadError, ConnectionError, IndexError) as err:
            self.fail(WorkerGone(f"{self.label} {self.proc.pid} ended: {err!r}"))
            self._answered()

    def fail(self, error: Exception) -> None:
        while self.pending:
            future = self.pending.popleft()
            if not future.done():
                future.set_exception(error)

    def kill(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # ended meanwhile
                self.proc.kill()


class WorkerPool:
    """`workers` worker processes, started with `await start()` inside the bot's event loop and stopped
    with `await stop()`; `await call(request)` is a worker's answer. A failed worker is replaced in the
    background; while the pool is short (or a new worker cannot be started: tried again every
    RESPAWN_DELAY seconds) the remaining workers answer, and with none left `call` raises `NoWorker`."""

    def __init__(self, spec: WorkerSpec, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"a pool of {spec.label}s needs at least 1 worker, got {workers}")
        self.spec = spec
        self.workers = workers
        self._pool: list[_Worker] = []
        self._growing: asyncio.Task[None] | None = None
        self._retry_at = 0.0
        self._stopped = False
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()  # for a queue slot
        self._most_queued = 0

    @property
    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._pool]

    @property
    def queued(self) -> int:
        """Requests owed by the workers now, and those waiting for a slot (nardy_worker_queue)."""
        return sum(len(w.pending) for w in self._pool) + len(self._waiting)

    @property
    def running(self) -> int:
        """Workers alive now (nardy_worker_processes)."""
        return sum(1 for w in self._pool if w.alive)

    @property
    def most_queued(self) -> int:
        """The most requests one worker has owed at once since the pool was made (never above the
        spec's queue_bound)."""
        return self._most_queued

    def answer_timeout(self) -> float:
        """Seconds a worker that owes answers may go without one (the spec's; a user may look it up
        elsewhere)."""
        return self.spec.timeout

    async def start(self) -> None:
        """Start the workers and wait until each is ready. Those that fail to start are logged and
        tried again later (meanwhile the others answer, or the caller does the work)."""
        self._stopped = False
        started = await asyncio.gather(*(self._spawn() for _ in range(self.workers)), return_exceptions=True)
        self._pool = [w for w in started if isinstance(w, _Worker)]
        for error in started:
            if isinstance(error, BaseException):
                log.error("could not start a %s: %r", self.spec.label, error)

    async def settle(self) -> None:
        """Wait until a replacement worker being started (if any) is ready or has failed."""
        if self._growing is not None:
            await asyncio.shield(self._growing)

    async def _spawn(self) -> _Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            self.spec.module,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=worker_env(),
        )
        worker = _Worker(proc, self.spec.label, self._wake)
        assert proc.stdout is not None
        try:
            ready = await asyncio.wait_for(proc.stdout.readexactly(1), READY_TIMEOUT)
            if ready != READY:
                raise WorkerGone(f"{self.spec.label} {proc.pid} did not start (said {ready!r})")
        except BaseException:
            worker.kill()
            raise
        worker.reader = asyncio.create_task(
            worker.read_answers(), name=f"{self.spec.label.replace(' ', '-')}-{proc.pid}"
        )
        return worker

    async def stop(self) -> None:
        """Close the workers' input (each ends after its last answer), kill those still running 5 s
        later; requests still owed or waiting for a slot get WorkerGone / NoWorker."""
        self._stopped = True
        if self._growing is not None:
            self._growing.cancel()  # a worker being started is killed, not waited for
            await asyncio.gather(self._growing, return_exceptions=True)
        pool, self._pool = self._pool, []
        self._wake(everyone=True)
        for worker in pool:
            if worker.proc.stdin is not None:
                worker.proc.stdin.close()
        for worker in pool:
            try:
                await asyncio.wait_for(worker.proc.wait(), 5)
            except TimeoutError:
                worker.kill()
                await worker.proc.wait()
            if worker.reader is not None:
                await asyncio.gather(worker.reader, return_exceptions=True)
            worker.fail(WorkerGone(f"{self.spec.label}s stopped"))

    async def call(self, request: bytes) -> bytes:
        """The answer to `request` from the least busy worker (waiting for a slot if every worker owes
        queue_bound answers). Raises HandlerFailed when the worker's handler raised (the worker stays),
        WorkerGone when the worker died or hung (logged; it is replaced), NoWorker when none runs."""
        if len(self._pool) < self.workers:
            self._grow()
        worker = await self._worker_with_room()
        loop = asyncio.get_running_loop()
        try:
            answer = worker.send(len(request).to_bytes(_HEAD, "big") + request)
            self._most_queued = max(self._most_queued, len(worker.pending))
            if self._waiting and self._has_room():
                self._wake()  # a new worker brings several slots: the next in line may have one too
            while not answer.done():
                timeout = self.answer_timeout()
                await asyncio.wait({answer}, timeout=timeout)  # never cancels `answer`
                if not answer.done() and worker.stalled(loop.time(), timeout):
                    raise TimeoutError(f"no answer for {timeout:g} s")
            return answer.result()
        except (TimeoutError, WorkerGone, ConnectionError) as err:
            label, pid = self.spec.label, worker.proc.pid
            log.error("%s %s failed (%s); its work is done in the bot's process", label, pid, err)
            self._drop(worker)
            raise WorkerGone(f"{self.spec.label} {worker.proc.pid} failed: {err}") from err

    async def _worker_with_room(self) -> _Worker:
        """The least busy worker, once it owes fewer than queue_bound answers; requests that find every
        worker full wait in order of arrival."""
        bound = self.spec.queue_bound
        first_try = True
        while True:
            if not self._pool:
                raise NoWorker(f"no {self.spec.label} is running")
            worker = min(self._pool, key=lambda w: len(w.pending))
            if bound is None or (len(worker.pending) < bound and (not first_try or not self._waiting)):
                return worker
            slot: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            if first_try:
                self._waiting.append(slot)  # behind the requests already waiting
            else:
                self._waiting.appendleft(slot)  # woken but beaten to the slot: first in line again
            first_try = False
            try:
                await slot
            except BaseException:
                if slot in self._waiting:
                    self._waiting.remove(slot)
                elif slot.done() and not slot.cancelled():
                    self._wake()  # it was woken for a slot it will not take: pass the turn on
                raise

    def _has_room(self) -> bool:
        bound = self.spec.queue_bound
        return bound is None or any(len(w.pending) < bound for w in self._pool)

    def _wake(self, everyone: bool = False) -> None:
        """A slot came free (or the pool changed): the first request waiting for one looks again."""
        while self._waiting:
            slot = self._waiting.popleft()
            if not slot.done():
                slot.set_result(None)
                if not everyone:
                    return

    def _drop(self, worker: _Worker) -> None:
        """Take a failed worker out (once, however many of its requests failed) and start a new one."""
        if worker in self._pool:
            self._pool.remove(worker)
            worker.kill()
            worker.fail(WorkerGone(f"{self.spec.label} {worker.proc.pid} replaced"))
            self._wake(everyone=True)  # the pool is smaller, perhaps empty: everyone waiting looks again
        self._grow()

    def _grow(self) -> None:
        loop = asyncio.get_running_loop()
        if self._stopped or self._growing is not None or loop.time() < self._retry_at:
            return
        name = f"{self.spec.label.replace(' ', '-')}-start"
        self._growing = loop.create_task(self._add_worker(), name=name)

    async def _add_worker(self) -> None:
        try:
            worker = await self._spawn()
        except Exception as err:  # whatever stops a start: try again later
            self._retry_at = asyncio.get_running_loop().time() + RESPAWN_DELAY
            log.error(
                "could not start a %s (%s); %d running, next try in %.0f s",
                self.spec.label,
                err,
                len(self._pool),
                RESPAWN_DELAY,
            )
        else:
            if self._stopped:
                worker.kill()
            else:
                self._pool.append(worker)
                self._wake()
                log.info("%s %s started; %d running", self.spec.label, worker.proc.pid, len(self._pool))
        finally:
            self._growing = None
        if len(self._pool) < self.workers:
            self._grow()  # the next missing one (unless stopped or waiting to retry)


# ---------------------------------------------------------------------- the worker's side


def set_process_name(name: str) -> None:
    """The name `ps -e`, `top` and `pgrep` show for this process (Linux: at most 15 bytes; elsewhere
    nothing happens). `ps -f` still shows the command line, `python -m <module>`."""
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write(name[:15])
    except OSError:
        pass


def serve(requests: BinaryIO, answers: BinaryIO, handle: Callable[[bytes], bytes]) -> None:
    """The worker's loop: a request in, `handle(request)` out (or the error it raised, as text), until
    the input ends."""
    while True:
        head = requests.read(_HEAD)
        if len(head) < _HEAD:
            return
        size = int.from_bytes(head, "big")
        body = requests.read(size)
        if len(body) < size:
            return
        try:
            status, payload = _OK, handle(body)
        except Exception as err:  # told to the bot, which does the work itself
            status, payload = _FAILED, f"{type(err).__name__}: {err}".encode()
        answers.write(bytes([status]) + len(payload).to_bytes(_HEAD, "big") + payload)
        answers.flush()


def run_worker(
    name: str, handle: Callable[[bytes], bytes], warm: Callable[[], None] | None = None, nice: int = 0
) -> None:
    """`python -m <module>`'s main: name the process, lower its priority by `nice` (os.nice), `warm()` up
    (imports, caches), say READY, then answer requests until the input ends. Its stdout carries only
    answers: anything else that prints goes to stderr. Ctrl+C and SIGTERM are ignored: the bot still needs
    its answers while it stops; a worker ends with its input."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    set_process_name(name)
    if nice:
        with contextlib.suppress(OSError):  # not allowed here: run at the bot's priority
            os.nice(nice)
    if warm is not None:
        warm()
    answers.write(READY)
    answers.flush()
    serve(sys.stdin.buffer, answers, handle)
