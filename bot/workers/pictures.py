"""Board pictures drawn off the event loop: in render worker processes, or in a thread.

`render(view)` is what the bot calls. With `use_render_processes(RenderProcesses(n))` the pictures are
drawn by `n` worker processes (`python -m bot.workers.pictures`, `nardy-render` in ps) that talk to the event
loop over their stdin/stdout pipes, read and written by the loop itself (`bot/workers/worker_pool.py`: the
frames, the start, the replacement of a failed worker, the environment a worker gets). Drawn in a
thread instead, each Pillow call waited for the interpreter lock held by the loop: `python
bench/load.py` served 120 moves/s with a thread, 174 with a ProcessPoolExecutor (whose feeder and
manager threads did the same), more with these pipes.

A request is a pickled view (pickles only ever come from the bot's own process); the answer is the
JPEG. A worker that dies or hangs loses no board: its pending pictures are drawn in a thread, and a
new worker takes its place. A renderer bug on a view is raised to the caller as RenderFailed.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import time
from dataclasses import dataclass
from typing import Any

from bot.observe.metrics import current
from bot.workers.worker_pool import (
    RESPAWN_DELAY,
    HandlerFailed,
    WorkerGone,
    WorkerPool,
    WorkerSpec,
    run_worker,
)

__all__ = [
    "RESPAWN_DELAY",
    "RenderFailed",
    "RenderProcesses",
    "WorkerGone",
    "image",
    "render",
    "use_render_processes",
]

log = logging.getLogger(__name__)

RENDER_TIMEOUT = 20.0  # seconds a worker may take for one picture before it is replaced


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


class RenderFailed(RuntimeError):
    """The renderer raised on a view (a bug, not a failed worker): the worker says what and goes on."""


class RenderProcesses(WorkerPool):
    """`workers` render worker processes (`python -m bot.workers.pictures`), started with `await start()` inside
    the bot's event loop and stopped with `await stop()`. A failed worker is replaced in the background;
    while the pool is short (or a new worker cannot be started: tried again every RESPAWN_DELAY seconds)
    pictures are drawn by the remaining workers, or in a thread when none is left. No bound on the
    pictures queued per worker: a picture takes a few milliseconds, and a failed worker's pictures are
    few enough to draw in a thread."""

    def __init__(self, workers: int) -> None:
        spec = WorkerSpec(module="bot.workers.pictures", label="render worker", timeout=RENDER_TIMEOUT)
        super().__init__(spec, workers)

    def answer_timeout(self) -> float:
        return RENDER_TIMEOUT  # read when used: tests shorten it

    async def render(self, view: object) -> bytes:
        """The picture of `view` from the least busy worker; drawn in a thread if that worker fails."""
        try:
            return await self.call(pickle.dumps(view, protocol=pickle.HIGHEST_PROTOCOL))
        except WorkerGone:  # none running, or it died or hung (logged; it is replaced)
            return await asyncio.to_thread(image, view)
        except HandlerFailed as err:  # the renderer's bug goes to the caller; the worker stays
            raise RenderFailed(str(err)) from None


_processes: RenderProcesses | None = None


def use_render_processes(processes: RenderProcesses | None) -> None:
    """Draw the boards in these (started) workers from now on; None: back to a thread."""
    global _processes
    _processes = processes


async def render(view: object) -> bytes:
    """The board picture of `view`, drawn off the event loop (timed: nardy_picture_seconds)."""
    metrics = current()
    began = time.perf_counter()
    if _processes is not None:
        picture = await _processes.render(view)
    else:
        picture = await asyncio.to_thread(image, view)
    if metrics is not None:
        metrics.picture.observe(time.perf_counter() - began)
    return picture


@dataclass(frozen=True)
class ReplayRequest:
    """A finished game's animated replay to draw (render/replay.py): its record (Game.to_json), the
    players' names, the translated words on its frames, the side it is seen from and the colours."""

    record: dict[str, Any]
    names: tuple[str, str]
    texts: Any  # render.replay.ReplayTexts (imported in the worker only)
    viewer: int
    theme: str

    def run(self) -> bytes:
        return replay_animation(self)


def replay_animation(request: ReplayRequest) -> bytes:
    """The replay's GIF (render.replay.render_replay); RenderError for a record that does not replay."""
    from engine import Game, Side
    from render.replay import render_replay, replay_views

    game = Game.from_json(request.record)
    views = replay_views(game, request.names, request.texts, Side(request.viewer), request.theme)
    return render_replay(views)


@dataclass(frozen=True)
class ComparisonRequest:
    """Two boards side by side, each under its label (render/compare.py): a play and the better one."""

    left: Any  # render.view.BoardView
    right: Any
    labels: tuple[str, str]

    def run(self) -> bytes:
        return comparison_picture(self)


def comparison_picture(request: ComparisonRequest) -> bytes:
    from render.compare import render_comparison

    return render_comparison(request.left, request.right, request.labels)


def _draw(request: bytes) -> bytes:
    """A render worker's handler: a pickled view in (pickles only ever come from the bot's own
    process), its JPEG out. (Replays and comparison pictures are drawn by the analysis workers,
    bot/workers/computer.py `think`: a replay takes seconds, a board must not wait behind it.)"""
    return image(pickle.loads(request))


def _warm() -> None:
    from render.gallery import samples

    for view in list(samples().values())[:4]:  # import the renderer and fill its caches
        image(view)


def main() -> None:
    """`python -m bot.workers.pictures`: a render worker (named `nardy-render` for ps)."""
    run_worker("nardy-render", _draw, _warm)


if __name__ == "__main__":
    main()
