"""Board pictures drawn off the event loop: in render worker processes, or in a thread.

`render(view)` is what the bot calls. With `use_render_processes(RenderProcesses(n))` the pictures are
drawn by `n` worker processes (`python -m bot.pictures`) that talk to the event loop over their
stdin/stdout pipes, read and written by the loop itself: no helper threads in the bot's process, so
nothing there competes with the loop for the interpreter lock. (A thread pool, or a
ProcessPoolExecutor with its feeder and manager threads, made every socket write of the loop wait for
the lock: `python bench/load.py` served 120 moves/s with a thread, 174 with a ProcessPoolExecutor.)

Frames on the pipes: a request is a 4-byte big-endian length and a pickled view (pickles only ever come
from the bot's own process); an answer is one status byte (0: JPEG bytes follow, 1: an error text),
a 4-byte length and the payload. Answers come in the order of the requests.

A worker that dies or hangs loses no board: its pending pictures are drawn in a thread, and a new
worker takes its place.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import pickle
import signal
import sys
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

RENDER_TIMEOUT = 20.0  # seconds a worker may take for one picture before it is replaced
RESPAWN_DELAY = 30.0  # seconds between attempts to start a render worker after one failed to start
_HEAD = 4
_ROOT = str(Path(__file__).resolve().parent.parent)  # where `bot` and `render` are imported from


def image(view: object) -> bytes:
    """The board picture of `view`; a plain fallback picture if the renderer refuses the view."""
    from render import RenderError, render_board

    try:
        return render_board(view)  # type: ignore[arg-type]
    except RenderError:
        log.exception("the renderer refused a board view: %r", view)
        return _fallback_image(view)


def _fallback_image(view: object) -> bytes:
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", (640, 360), (236, 221, 190))
    draw = ImageDraw.Draw(img)
    points = getattr(view, "points", ())
    draw.text((20, 20), " ".join(str(p) for p in points[:12]), fill=(0, 0, 0))
    draw.text((20, 60), " ".join(str(p) for p in points[12:]), fill=(0, 0, 0))
    draw.text((20, 120), str(getattr(view, "status", "")), fill=(0, 0, 0))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=80)
    return buf.getvalue()


class WorkerGone(RuntimeError):
    """A render worker died or stopped answering before it sent a picture."""


class RenderFailed(RuntimeError):
    """The renderer raised on a view (a bug, not a failed worker): the worker says what and goes on."""


class _Worker:
    """One `python -m bot.pictures` process and the pictures it still owes, oldest first."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pending: collections.deque[asyncio.Future[bytes]] = collections.deque()
        self.reader: asyncio.Task[None] | None = None  # set once the worker said it is ready
        self.progress = 0.0  # loop time of the last answer, or of the request that found the worker idle

    @property
    def alive(self) -> bool:
        return self.reader is not None and not self.reader.done()

    def stalled(self, now: float) -> bool:
        """Owes pictures and has answered nothing for RENDER_TIMEOUT (a long queue is not a hang)."""
        return bool(self.pending) and now - self.progress >= RENDER_TIMEOUT

    def send(self, frame: bytes) -> asyncio.Future[bytes]:
        assert self.proc.stdin is not None
        if not self.alive or self.proc.stdin.is_closing():
            raise WorkerGone(f"render worker {self.proc.pid} has ended")
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
                payload = await stdout.readexactly(int.from_bytes(head[1:], "big"))
                self.progress = asyncio.get_running_loop().time()
                future = self.pending.popleft()
                if future.done():
                    continue
                if head[0] == 0:
                    future.set_result(payload)
                else:
                    future.set_exception(RenderFailed(payload.decode("utf-8", "replace")))
        except (asyncio.IncompleteReadError, ConnectionError, IndexError) as err:
            self.fail(WorkerGone(f"render worker {self.proc.pid} ended: {err!r}"))

    def fail(self, error: Exception) -> None:
        while self.pending:
            future = self.pending.popleft()
            if not future.done():
                future.set_exception(error)

    def kill(self) -> None:
        if self.proc.returncode is None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass


class RenderProcesses:
    """`workers` render worker processes, started with `await start()` inside the bot's event loop and
    stopped with `await stop()`. A failed worker is replaced in the background; while the pool is short
    (or a new worker cannot be started: tried again every RESPAWN_DELAY seconds) pictures are drawn by
    the remaining workers, or in a thread when none is left."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"RenderProcesses needs at least 1 worker, got {workers}")
        self.workers = workers
        self._pool: list[_Worker] = []
        self._growing: asyncio.Task[None] | None = None
        self._retry_at = 0.0
        self._stopped = False

    @property
    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._pool]

    async def start(self) -> None:
        """Start the workers; each imports the renderer and draws a few boards before it answers. Those
        that fail to start are logged and tried again later (meanwhile the others, or a thread, draw)."""
        self._stopped = False
        started = await asyncio.gather(*(self._spawn() for _ in range(self.workers)), return_exceptions=True)
        self._pool = [w for w in started if isinstance(w, _Worker)]
        for error in started:
            if isinstance(error, BaseException):
                log.error("could not start a render worker: %r", error)

    async def settle(self) -> None:
        """Wait until a replacement worker being started (if any) is ready or has failed."""
        if self._growing is not None:
            await asyncio.shield(self._growing)

    async def _spawn(self) -> _Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.pictures",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={
                **os.environ,
                "PYTHONPATH": os.pathsep.join(filter(None, (_ROOT, os.environ.get("PYTHONPATH")))),
            },
        )
        worker = _Worker(proc)
        assert proc.stdout is not None
        try:
            ready = await asyncio.wait_for(proc.stdout.readexactly(1), 120)
            if ready != b"R":
                raise WorkerGone(f"render worker {proc.pid} did not start (said {ready!r})")
        except BaseException:
            worker.kill()
            raise
        worker.reader = asyncio.create_task(worker.read_answers(), name=f"render-worker-{proc.pid}")
        return worker

    async def stop(self) -> None:
        self._stopped = True
        if self._growing is not None:
            self._growing.cancel()  # a worker being started is killed, not waited for
            await asyncio.gather(self._growing, return_exceptions=True)
        pool, self._pool = self._pool, []
        for worker in pool:
            if worker.proc.stdin is not None:
                worker.proc.stdin.close()  # the worker ends at the end of its input
        for worker in pool:
            try:
                await asyncio.wait_for(worker.proc.wait(), 5)
            except TimeoutError:
                worker.kill()
                await worker.proc.wait()
            if worker.reader is not None:
                await asyncio.gather(worker.reader, return_exceptions=True)
            worker.fail(WorkerGone("render workers stopped"))

    async def render(self, view: object) -> bytes:
        """The picture of `view` from the least busy worker; drawn in a thread if that worker fails."""
        if len(self._pool) < self.workers:
            self._grow()
        if not self._pool:
            return await asyncio.to_thread(image, view)
        worker = min(self._pool, key=lambda w: len(w.pending))
        body = pickle.dumps(view, protocol=pickle.HIGHEST_PROTOCOL)
        loop = asyncio.get_running_loop()
        try:
            answer = worker.send(len(body).to_bytes(_HEAD, "big") + body)
            while not answer.done():
                await asyncio.wait({answer}, timeout=RENDER_TIMEOUT)  # never cancels `answer`
                if not answer.done() and worker.stalled(loop.time()):
                    raise TimeoutError(f"no answer for {RENDER_TIMEOUT:.0f} s")
            return answer.result()  # RenderFailed (the renderer's bug) goes to the caller; the worker stays
        except (TimeoutError, WorkerGone, ConnectionError) as err:
            log.error("render worker %s failed (%s); drawing this board in a thread", worker.proc.pid, err)
            self._drop(worker)
            return await asyncio.to_thread(image, view)

    def _drop(self, worker: _Worker) -> None:
        """Take a failed worker out (once, however many of its pictures failed) and start a new one."""
        if worker in self._pool:
            self._pool.remove(worker)
            worker.kill()
            worker.fail(WorkerGone(f"render worker {worker.proc.pid} replaced"))
        self._grow()

    def _grow(self) -> None:
        loop = asyncio.get_running_loop()
        if self._stopped or self._growing is not None or loop.time() < self._retry_at:
            return
        self._growing = loop.create_task(self._add_worker(), name="render-worker-start")

    async def _add_worker(self) -> None:
        try:
            worker = await self._spawn()
        except Exception as err:  # noqa: BLE001 - whatever stops a start, try again later
            self._retry_at = asyncio.get_running_loop().time() + RESPAWN_DELAY
            log.error(
                "could not start a render worker (%s); %d running, next try in %.0f s",
                err,
                len(self._pool),
                RESPAWN_DELAY,
            )
        else:
            if self._stopped:
                worker.kill()
            else:
                self._pool.append(worker)
                log.info("render worker %s started; %d running", worker.proc.pid, len(self._pool))
        finally:
            self._growing = None
        if len(self._pool) < self.workers:
            self._grow()  # the next missing one (unless stopped or waiting to retry)


_processes: RenderProcesses | None = None


def use_render_processes(processes: RenderProcesses | None) -> None:
    """Draw the boards in these (started) workers from now on; None: back to a thread."""
    global _processes
    _processes = processes


async def render(view: object) -> bytes:
    """The board picture of `view`, drawn off the event loop."""
    if _processes is not None:
        return await _processes.render(view)
    return await asyncio.to_thread(image, view)


def _serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The worker's loop: a view in, its picture out, until the input ends."""
    while True:
        head = requests.read(_HEAD)
        if len(head) < _HEAD:
            return
        view = pickle.loads(requests.read(int.from_bytes(head, "big")))
        try:
            status, payload = 0, image(view)
        except Exception as err:  # noqa: BLE001 - told to the bot, which draws the board itself
            status, payload = 1, f"{type(err).__name__}: {err}".encode()
        answers.write(bytes([status]) + len(payload).to_bytes(_HEAD, "big") + payload)
        answers.flush()


def main() -> None:
    """`python -m bot.pictures`: a render worker. Its stdout carries only answers: anything else that
    prints goes to stderr."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    for signum in (signal.SIGINT, signal.SIGTERM):  # a Ctrl+C or a stop of the whole service: the bot
        signal.signal(signum, signal.SIG_IGN)  # still needs its pictures; the worker ends with its input
    from render.gallery import samples

    for view in list(samples().values())[:4]:  # import the renderer and fill its caches
        image(view)
    answers.write(b"R")
    answers.flush()
    _serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
