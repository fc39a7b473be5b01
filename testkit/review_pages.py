"""The review page (bot/web/static/review.html) as its tests and screenshots drive it: a real finished game
made into the review's JSON (docs: /work's contract, bot/web's `api/review`), and a small server that sends
the page, its files and that JSON.

`review_payload` plays a game to its end with dice derived from fair seeds (engine/fair_dice.py, so that its
proof verifies) and the computer's beginner on both sides, replays it as the page's frames (render/replay.py `replay_views`,
each through bot/web/protocol.py `view_json`) and reviews it with the engine's analysis at the quick depth
(engine/ai/analysis.py: the same plays and marks as the expert's, faster). The win chances are a stand-in
(from the pips) where the bot's workers give the network's: the page only draws them.

`real_review_server`: the bot's own page server and review API over a test Redis, with a friend game played
out, for the page against the real thing.

`ReviewServer`: aiohttp on 127.0.0.1 (a free port) in a thread of its own, with the bot's headers (its CSP):
/app/?review=GAME/N (review.html), /app/static/..., /app/api/review, /app/api/review/analysis (answered 503
`busy` times first) and /app/api/record; it records the Authorization headers it was sent."""

from __future__ import annotations

import asyncio
import json
import math
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bot.web import STATIC_DIR
from bot.web.protocol import view_json
from bot.web.review_words import review_words
from bot.web.words import direction
from engine import Game, Phase, Side
from engine.ai import choose_play
from engine.ai.analysis import analyse
from engine.fair_dice import FairSeeds, recorded_rolls
from render.replay import ReplayTexts, replay_views
from testkit.browser import CSP_WATCH
from testkit.browser.stub_server import _security_headers, _type

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 15000
PARTS = ("5a" * 32, "c3" * 32)
CLIENTS = ("alice_seed", "bob-seed")

# Telegram.WebApp as the review uses it: initData, the theme, the BackButton (its presses kept in
# window.__back) and downloadFile (its calls kept in window.__downloads) where `download` is set.
FAKE_TELEGRAM = """
window.__back = []; window.__downloads = [];
window.Telegram = {WebApp: {initData: INIT_DATA, initDataUnsafe: {}, colorScheme: SCHEME, themeParams: {},
  version: "8.0", ready: function () {}, expand: function () {}, onEvent: function () {},
  BackButton: {isVisible: false, show: function () { this.isVisible = true; },
    hide: function () { this.isVisible = false; },
    onClick: function (f) { window.__backClick = f; }},
  downloadFile: DOWNLOAD}};
"""
DOWNLOAD_FILE = "function (p) { window.__downloads.push(p); }"


def finished_game(
    variant: str = "short", seed: int = 3, game_name: str = "g1/1", level: str = "beginner"
) -> tuple[Game, FairSeeds]:
    """A game of `variant` played to its end with fair dice (seeds of PARTS and CLIENTS, named
    `game_name`) by the computer's `level` on both sides (its noise drawn from `seed`); the seeds know
    how many rolls were made."""
    seeds = FairSeeds.of_parts(PARTS, CLIENTS, game_name)
    rng = random.Random(seed)
    game, made = Game.new(variant), 0
    while game.phase is not Phase.OVER:
        if game.phase is Phase.OPENING:
            game = game.opening_roll(*seeds.roll(made))
            made += 1
        elif game.phase is Phase.ROLL:
            game = game.roll(*seeds.roll(made))
            made += 1
        else:
            assert game.dice is not None
            game = game.play(choose_play(game.rules, game.position, game.dice, level, rng))
    return game, FairSeeds(seeds.server_seed, seeds.clients, seeds.game, made, seeds.parts)


def review_payload(
    variant: str = "short",
    seed: int = 3,
    lang: str = "en",
    names: tuple[str, str] = ("Alice", "Bob"),
    you: int | None = 0,
    game_name: str = "g1/1",
    analysed: bool = True,
) -> dict[str, Any]:
    """The review JSON of a real finished game, as api/review answers (the contract of issue 36)."""
    game, seeds = finished_game(variant, seed, game_name)
    assert game.result is not None
    winner = names[int(game.result.winner)]
    result = f"{winner} won: {game.result.kind.value} ({game.result.points})"
    viewer = Side.BLACK if you == 1 else Side.WHITE
    views = replay_views(game, names, ReplayTexts(start=" – ".join(names), result=result), viewer=viewer)
    frames = [view_json(v) for v in views]
    plays = []
    for n, turn in enumerate(game.history, start=1):
        forced = len(_replayed(game, n).legal_plays()) == 1
        plays.append(
            {
                "n": n,
                "side": int(turn.side),
                "dice": [turn.dice.a, turn.dice.b],
                "text": turn.play,
                "forced": forced,
            }
        )
    kinds = ["mat", "txt", "json"] if variant == "short" else ["txt", "json"]
    ident = game_name.replace("/", "-")
    return {
        "lang": lang,
        "dir": direction(lang),
        "words": review_words(lang),
        "game": game_name,
        "variant": variant,
        "title": f"{'Short' if variant == 'short' else 'Long'} nardy · {names[0]} – {names[1]}",
        "you": you,
        "names": list(names),
        "result": result,
        "frames": frames,
        "plays": plays,
        "analysis": analysis_json(game, frames) if analysed else None,
        "downloads": [
            {
                "kind": kind,
                "name": f"nardy-{variant}-{ident}.{kind}",
                "url": f"api/record?game={game_name}&kind={kind}&u=1&until=9999999999&sig=ab",
            }
            for kind in kinds
        ],
        "proof": {
            "game": seeds.game,
            "commitment": seeds.commitment,
            "seed": seeds.server_seed,
            "parts": list(PARTS),
            "clients": list(CLIENTS),
            "rolls": [list(r) for r in recorded_rolls(game)],
            "made": seeds.rolls,
        },
    }


def _replayed(game: Game, n: int) -> Game:
    """`game` replayed to just before the play of turn `n` (1-based), its dice rolled."""
    at = Game.new(game.game, game.rules.options, game.starter)
    for white_die, black_die in game.opening_rolls:
        at = at.opening_roll(white_die, black_die)
    for turn in game.history[: n - 1]:
        if at.phase is Phase.ROLL:
            at = at.roll(turn.dice.a, turn.dice.b)
        at = at.play(turn.play)
    turn = game.history[n - 1]
    return at.roll(turn.dice.a, turn.dice.b) if at.phase is Phase.ROLL else at


def analysis_json(game: Game, frames: list[dict[str, Any]]) -> dict[str, Any]:
    found = analyse(game, depth="quick")
    sides = [found.white, found.black]
    chances = []
    for frame in frames:
        white, black = frame["pips"]
        chances.append(round(1 / (1 + math.exp((white - black) / 12)), 4))
    chances[-1] = 1.0 if frames[-1]["winner"] == 0 else 0.0
    return {
        "depth": "expert",
        "plays": [
            {
                "n": r.turn,
                "side": int(r.side),
                "equity": round(r.equity, 4),
                "best_equity": round(r.best_equity, 4),
                "loss": round(r.loss, 4),
                "mark": r.mark,
                "best": str(r.best),
                "best_moves": [{"src": m.src, "dst": m.dst, "hit": m.hit} for m in r.best.moves],
            }
            for r in found.plays
        ],
        "sides": [
            {
                "decisions": s.decisions,
                "total_loss": round(s.total_loss, 4),
                "error_rate": round(s.error_rate, 4),
                "doubtful": s.doubtful,
                "errors": s.errors,
                "blunders": s.blunders,
            }
            for s in sides
        ],
        "chances": chances,
    }


class ReviewServer:
    """The review's server in miniature; `reviews` by game name, `busy` 503s before each analysis."""

    def __init__(self) -> None:
        self.reviews: dict[str, dict[str, Any]] = {}
        self.analyses: dict[str, dict[str, Any]] = {}
        self.busy = 0
        self.headers: list[str] = []
        self.asked: list[str] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/app/"

    def review_url(self, game: str) -> str:
        return f"{self.url}?review={game.replace('/', '%2F')}"

    def add(self, payload: dict[str, Any], analysis: dict[str, Any] | None = None) -> dict[str, Any]:
        """Serve `payload` by api/review, and its analysis (or `analysis`, for a payload sent without one)
        by api/review/analysis."""
        self.reviews[payload["game"]] = payload
        found = payload["analysis"] or analysis
        if found is not None:
            self.analyses[payload["game"]] = found
        return payload

    def start(self) -> ReviewServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            app = web.Application(middlewares=[_security_headers])
            app.router.add_get("/app/", self._page)
            app.router.add_get("/app/api/review", self._review)
            app.router.add_get("/app/api/review/analysis", self._analysis)
            app.router.add_get("/app/api/record", self._record)
            app.router.add_get("/app/static/{name:.+}", self._file)
            runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.SockSite(runner, sock).start())
            self._loop, self._runner = loop, runner
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=serve, name="stub-review-server", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise AssertionError("the review's stub server did not start in 10 s")
        return self

    def stop(self) -> None:
        if self._loop is None or self._runner is None:
            return
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        self._loop = None

    def __enter__(self) -> ReviewServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _page(self, request: web.Request) -> web.StreamResponse:
        name = "review.html" if "review" in request.query else "home.html"
        return web.FileResponse(STATIC_DIR / name, headers={"Cache-Control": "no-cache"})

    async def _file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC_DIR / name
        if any(not part or part.startswith(".") for part in name.split("/")) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache", "Content-Type": _type(path)})

    def _found(self, request: web.Request) -> dict[str, Any]:
        self.headers.append(request.headers.get("Authorization", ""))
        found = self.reviews.get(request.query.get("game", ""))
        if found is None:
            raise web.HTTPNotFound(
                text=json.dumps({"error": "No such game to review."}), content_type="application/json"
            )
        return found

    async def _review(self, request: web.Request) -> web.StreamResponse:
        found = self._found(request)
        self.asked.append("review")
        return web.json_response(found)

    async def _analysis(self, request: web.Request) -> web.StreamResponse:
        found = self._found(request)
        self.asked.append("analysis")
        if self.busy > 0:
            self.busy -= 1
            return web.json_response({"error": "The analysis workers are busy: try again."}, status=503)
        analysis = self.analyses.get(found["game"])
        if analysis is None:
            return web.json_response({"error": "No analysis."}, status=503)
        return web.json_response({"analysis": analysis})

    async def _record(self, request: web.Request) -> web.StreamResponse:
        kind = request.query.get("kind", "txt")
        return web.Response(
            text=f"record of {request.query.get('game')}\n",
            headers={"Content-Disposition": f'attachment; filename="record.{kind}"'},
        )


def open_review(
    page: Page,
    server: ReviewServer | RealReview,
    game: str,
    init_data: str | None = "user=1",
    scheme: str = "",
    download: bool = True,
    wait: Callable[[Page], None] | None = None,
) -> None:
    """Open `game`'s review (as Telegram opens a Mini App, with a stand-in Telegram object, unless
    `init_data` is None) and wait until it is drawn (`performance.mark("nardy:review-ready")`)."""
    page.add_init_script(CSP_WATCH)
    if init_data is not None:
        script = FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data)).replace(
            "SCHEME", json.dumps(scheme)
        )
        page.add_init_script(script.replace("DOWNLOAD", DOWNLOAD_FILE if download else "undefined"))
    page.goto(server.review_url(game))
    (wait or wait_ready)(page)


def wait_ready(page: Page) -> None:
    page.wait_for_selector('#review[aria-busy="false"]', timeout=WAIT_MS)
    page.wait_for_function(
        "() => performance.getEntriesByName('nardy:review-ready').length > 0", timeout=WAIT_MS
    )


def frame(page: Page) -> int:
    """The frame the page shows now (0: the start)."""
    return int(page.get_attribute("#board", "data-frame") or "-1")


def checkers(page: Page) -> list[int]:
    """The board's checkers as view.points writes them: + white's, - black's, per absolute point 1..24."""
    found = page.evaluate(
        """() => { var p = new Array(24).fill(0);
        document.querySelectorAll('#board .layer-checkers .checker[data-point]').forEach(function (c) {
          var n = c.getAttribute('data-point'); if (n === 'bar') { return; }
          var label = c.querySelector('.count'), sign = c.getAttribute('data-side') === '0' ? 1 : -1;
          p[+n - 1] = label ? sign * +label.textContent : p[+n - 1] + sign; });
        return p; }"""
    )
    return [int(n) for n in found]


@dataclass
class RealReview:
    """The bot's own page server (its review API) with one finished friend game, Alice's and Bob's."""

    url: str
    game: str
    frames: int
    init_data: str  # Alice's, signed for the bot
    stranger: str  # someone else's, signed for the bot

    def review_url(self, game: str) -> str:
        return f"{self.url}?review={game.replace('/', '%2F')}"


@contextmanager
def real_review_server(redis_url: str) -> Iterator[RealReview]:
    """The bot's page server over the Redis at `redis_url`, in a thread of its own (Playwright's sync API
    holds this one's loop), with a friend game of Alice and Bob played out by the engine's beginner with the bot's own fair dice."""
    from bot.model.sources import FairDice
    from bot.model.table import Person
    from bot.storage import Storage
    from testkit.web_client import friend_game, init_data, page_server, played_out, services

    alice, bob = Person(1001, "Alice"), Person(1002, "Bob")
    ready, stop = threading.Event(), threading.Event()
    found: list[RealReview] = []
    failed: list[BaseException] = []

    async def serve() -> None:
        storage = Storage.from_url(redis_url)
        try:
            s = services(storage, FairDice())  # the dice the bot rolls: the proof must check out
            table = await played_out(s, await friend_game(s, alice, bob))
            async with page_server(s) as server:
                found.append(
                    RealReview(
                        f"http://127.0.0.1:{server.port}/app/",
                        f"{table.id}/1",
                        len(table.game.history) + 2,
                        init_data(alice.user_id, alice.name, auth_date=time.time()),
                        init_data(1003, "Mallory", auth_date=time.time()),
                    )
                )
                ready.set()
                await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        except BaseException as error:
            failed.append(error)
            ready.set()
        finally:
            await storage.close()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), name="review-page-server", daemon=True)
    thread.start()
    if not ready.wait(120):
        raise AssertionError("the bot's page server did not start in 120 s")
    if failed:
        raise failed[0]
    try:
        yield found[0]
    finally:
        stop.set()
        thread.join(30)
