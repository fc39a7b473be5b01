"""Benchmark of the Mini App (issues 24, 36): `python bench/webapp.py [--rounds N] [--games 100] [--seconds 20]
[--no-round-trips]`.

Prints
- the page weight: every file of the board page and the home (bot/web/static, the sandbox's start page
  and the review's own files aside), raw and gzip-compressed at level 9 as the server sends it, the home's
  own files alone, and the review's own files (review.html, review.css, review/: it loads the board's
  modules too);
- the time to the home's first paint on the bot's server (the mark `nardy:first-home`: the player's home
  asked for with their initData, checked, read from Redis and drawn), desktop and phone;
- the time to the first board in Debian's Chromium: from the navigation's start to the first state drawn
  (the page's performance mark `nardy:first-board`), each round in a fresh browser context (nothing
  cached), on a desktop and on a phone viewport, against testkit's stub server (the page alone) and against
  the bot's own server (bot/web/server.py: the hello's initData checked, the game loaded from Redis);
- a finished game's review on the bot's server (bot/web/reviews.py): a long nardy game of at least 100 plays
  played out against the computer (beginner), then over HTTP with its player's initData: `api/review` (the
  record, every frame, the dice proof), `api/review/analysis` cold (worked out in `--analysts` analysis
  worker processes, its kept copy deleted before each round) and warm (read from Redis): p50 and max; and
  in Chromium, desktop and phone, fresh contexts: from the navigation's start to the page's mark
  `nardy:review-ready` (the first frame, the plays and the proof drawn) and to `nardy:review-analysed` (the
  kept analysis drawn);
- a press's round trip to the other player's page: `--games` friend games open at once on the bot's server
  (a pair of sockets each, aiohttp clients, no browser), each player on turn pressing a legal step (or
  Done) after a think time of 0..2x`--think` seconds, for `--seconds`: from the press sent to the state of
  the new version received on the opponent's socket, through the game service's save: p50, p99. Twice:
  both players on one worker (the state goes out from the table in hand), then each player on a worker of
  their own (two servers over one Redis: the state reaches the other worker through the save's publish).
Each server runs in a process of its own (the bot's two over an embedded Redis of their own). Goals (the issue):
under 150 KB compressed, under 1 s to the first board, p99 under 100 ms, a 100-play long game's review loaded
in under 1 s. The last line is one JSON object:
{"bytes": ..., "gzip_bytes": ..., "first_board_ms": {...}, "round_trip_ms": {...}, "review_ms": {...}}.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import FairDice
from bot.model.table import Person
from bot.storage import Storage
from bot.storage.keys import analysis_key
from bot.telegram.app import new_event_loop
from bot.web import STATIC_DIR
from bot.workers.computer import ComputerProcesses
from testkit.browser import DESKTOP, FAKE_TELEGRAM, PHONE, StubServer, StubTable, chromium_path, launch
from testkit.home_pages import fake_telegram
from testkit.web_client import (
    PageSocket,
    computer_game,
    friend_game,
    init_data,
    page_server,
    page_socket,
    played_out,
    services,
)

WEIGHT_GOAL = 150 * 1024
FIRST_BOARD_GOAL_MS = 1000.0
ROUND_TRIP_GOAL_MS = 100.0
REVIEW_GOAL_MS = 1000.0
MARK = "performance.getEntriesByName('NAME')[0].startTime"  # a performance mark's time, ms
REVIEW_PLAYS = 100  # the reviewed long game has at least this many plays


REVIEW_FILES = ("review.html", "review.css", "review/")  # the review's own files


def page_weight(review: bool = False) -> dict[str, tuple[int, int]]:
    """file path under static/ -> (bytes, gzip level 9 bytes) for every file the page loads (index.html,
    board.css, the modules of board/; the sandbox's start page aside), or with `review` the review's own."""
    return {
        name: (len(data), len(gzip.compress(data, 9, mtime=0)))
        for path in sorted(STATIC_DIR.rglob("*"))
        if path.is_file() and path.relative_to(STATIC_DIR).parts[0] != "sandbox"
        for name in [path.relative_to(STATIC_DIR).as_posix()]
        if name.startswith(REVIEW_FILES) == review
        for data in [path.read_bytes()]
    }


HOME_FILES = ("home.html", "home.css", "home/", "board/state.js", "board/telegram.js")  # what the home loads


def home_weight(weights: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """The home's own files (home.html, home.css, home/, and the two board modules it imports): bytes, gzip."""
    mine = [w for name, w in weights.items() if name.startswith(HOME_FILES)]
    return sum(raw for raw, _ in mine), sum(packed for _, packed in mine)


def in_fresh_contexts(
    browser: Any, rounds: int, load: Callable[[Any, int], dict[str, float]]
) -> dict[str, dict[str, list[float]]]:
    """On a desktop and a phone viewport, `load(page, k)` in `rounds` + 1 fresh browser contexts (nothing
    cached; the first load warms Chromium's own caches and is not counted): each figure it returns, by
    name, over the counted rounds, by device."""
    found: dict[str, dict[str, list[float]]] = {}
    for device, options in (("desktop", DESKTOP), ("phone", PHONE)):
        figures: dict[str, list[float]] = {}
        for k in range(rounds + 1):
            context = browser.new_context(**options)
            got = load(context.new_page(), k)
            context.close()
            for name, value in got.items() if k else ():
                figures.setdefault(name, []).append(value)
        found[device] = figures
    return found


def spread(times: list[float], prefix: str = "") -> dict[str, float]:
    """The median, p90 and max of `times`, rounded to 0.1 ms, their names after `prefix`."""
    return {
        prefix + "median": round(statistics.median(times), 1),
        prefix + "p90": round(p90(times), 1),
        prefix + "max": round(max(times), 1),
    }


def first_homes(browser: Any, served: Served, rounds: int) -> dict[str, dict[str, float]]:
    """Time to the home's first paint (the page's mark `nardy:first-home`: the player's home asked for,
    checked and drawn) on a desktop and a phone over `rounds` fresh contexts (and one to warm up), each
    player with one game in progress on the bot's server."""

    def load(page: Any, k: int) -> dict[str, float]:
        _, white, _ = served.games[k % len(served.games)]
        page.add_init_script(fake_telegram(init_data(white, "White", auth_date=time.time())))
        page.goto(served.page)
        page.wait_for_selector('#home[aria-busy="false"] #games button.game')
        return {"mark": page.evaluate(MARK.replace("NAME", "nardy:first-home"))}

    figures: dict[str, dict[str, float]] = {}
    for device, found in in_fresh_contexts(browser, rounds, load).items():
        figures[device] = spread(found["mark"])
        verdict = "under" if figures[device]["p90"] < FIRST_BOARD_GOAL_MS else "OVER"
        print(
            f"first home, bot's server, {device:7}: median {figures[device]['median']:6.1f} ms, "
            f"p90 {figures[device]['p90']:6.1f} ms, max {figures[device]['max']:6.1f} ms ({verdict} the goal "
            f"of {FIRST_BOARD_GOAL_MS:.0f} ms) over {rounds} fresh contexts"
        )
    return figures


def first_reviews(browser: Any, served: Served, rounds: int) -> dict[str, dict[str, float]]:
    """Time to the served long game's review in the browser on the bot's server, on a desktop and a phone
    over `rounds` fresh contexts (and one to warm up, which also has the analysis worked out and kept): to
    the page's mark `nardy:review-ready` (initData checked, the record, every frame and the proof read and
    drawn, the first frame on the board) and to `nardy:review-analysed` (the kept analysis drawn beside it)."""
    name, user, plays = served.review

    def load(page: Any, k: int) -> dict[str, float]:
        page.add_init_script(fake_telegram(init_data(user, "Reviewer", auth_date=time.time())))
        page.goto(f"{served.page}?review={name}")
        until = time.monotonic() + 120  # the page's CSP forbids wait_for_function's eval: evaluate polls
        while not page.evaluate("performance.getEntriesByName('nardy:review-analysed').length"):
            assert time.monotonic() < until, "the review's analysis was not drawn in 120 s"
            page.wait_for_timeout(20)
        return {
            "ready": page.evaluate(MARK.replace("NAME", "nardy:review-ready")),
            "analysed": page.evaluate(MARK.replace("NAME", "nardy:review-analysed")),
        }

    figures: dict[str, dict[str, float]] = {}
    for device, found in in_fresh_contexts(browser, rounds, load).items():
        figures[device] = spread(found["ready"]) | spread(found["analysed"], "analysed_")
        verdict = "under" if figures[device]["p90"] < REVIEW_GOAL_MS else "OVER"
        print(
            f"review of a {plays}-play long game in the browser, bot's server, {device:7}: ready "
            f"median {figures[device]['median']:6.1f} ms, p90 {figures[device]['p90']:6.1f} ms ({verdict} the "
            f"goal of {REVIEW_GOAL_MS:.0f} ms), its kept analysis drawn median "
            f"{figures[device]['analysed_median']:6.1f} ms, p90 {figures[device]['analysed_p90']:6.1f} ms, over "
            f"{rounds} fresh contexts"
        )
    return figures


def serve(conn: Connection) -> None:
    """The stub server with a game of each variant, in a process of its own (so that the browser's driver
    in this process does not slow its answers): sends its page's URL, stops when told."""
    with StubServer() as server:
        for variant, dice in (("short", (6, 1)), ("long", (5, 3))):
            server.add(StubTable.start(variant, variant, dice))
        conn.send(server.url)
        conn.recv()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def p90(values: list[float]) -> float:
    return percentile(values, 0.9)


@dataclass(frozen=True)
class Served:
    """The bot's server in its process: the socket's and the page's URLs, and its games (id, white's user
    id, black's user id)."""

    ws: str
    page: str
    games: list[tuple[str, int, int]]
    other_ws: str  # a second worker's socket, over the same Redis
    redis_url: str
    review: tuple[str, int, int]  # the reviewed game: its name, its player's user id, its plays


async def long_game(s: Any) -> tuple[str, int, int]:
    """A finished long nardy game of at least REVIEW_PLAYS plays against the computer (beginner both)."""
    for seed in range(1, 100):
        me = Person(90_000 + seed, f"Reviewer {seed}")
        table = await played_out(s, await computer_game(s, me, "long"), seed=seed)
        if len(table.game.history) >= REVIEW_PLAYS:
            return f"{table.id}/{table.number}", me.user_id, len(table.game.history)
    raise AssertionError(f"no long game of {REVIEW_PLAYS} plays in 99 tries")


def serve_games(conn: Connection, games: int, analysts: int) -> None:
    """The bot's page server (bot/web/server.py) over an embedded Redis of its own, with `games` friend
    games begun and a long game over for its review (`analysts` analysis worker processes), in a process of
    its own: sends a Served, stops when told."""

    async def run() -> None:
        with tempfile.TemporaryDirectory(prefix="nardy-bench-") as scratch:
            redis = EmbeddedRedis(Path(scratch) / "redis")
            redis.start()
            storage = Storage.from_url(redis.url)
            s = services(storage, FairDice())
            s.analysts = ComputerProcesses(analysts) if analysts else None
            if s.analysts is not None:
                await s.analysts.start()
            review = await long_game(s)
            made = []
            for k in range(games):
                white, black = Person(10_000 + 2 * k, f"W{k}"), Person(10_001 + 2 * k, f"B{k}")
                table = await friend_game(s, white, black)
                made.append((table.id, white.user_id, black.user_id))
            async with page_server(s) as server, page_server(services(storage, FairDice())) as other:
                base = f"127.0.0.1:{server.port}/app/"
                other_ws = f"ws://127.0.0.1:{other.port}/app/ws"
                conn.send(Served(f"ws://{base}ws", f"http://{base}", made, other_ws, redis.url, review))
                await asyncio.get_running_loop().run_in_executor(None, conn.recv)
            if s.analysts is not None:
                await s.analysts.stop()
            await storage.close()
            redis.stop()

    new_event_loop().run_until_complete(run())


async def round_trips(
    served: Served, seconds: float, think: float, apart: bool = False, seed: int = 1
) -> tuple[list[float], int]:
    """Every game played at once for `seconds` (see the module docstring; `apart`: black's sockets on the
    second worker): the round trips (seconds) and the presses made."""
    rng = random.Random(seed)
    latencies: list[float] = []
    presses = 0
    connector = aiohttp.TCPConnector(limit=0)  # a socket holds its connection: no limit to their number
    async with aiohttp.ClientSession(connector=connector) as http, contextlib.AsyncExitStack() as stack:
        pairs: list[tuple[PageSocket, PageSocket]] = []
        for game, white, black in served.games:
            sockets = []
            for user, url in ((white, served.ws), (black, served.other_ws if apart else served.ws)):
                page = await stack.enter_async_context(page_socket(http, url))
                first = await page.hello(game, init_data(user, f"u{user}", auth_date=time.time()))
                assert first["type"] == "state", first
                sockets.append(page)
            pairs.append((sockets[0], sockets[1]))
        deadline = time.perf_counter() + seconds

        async def play(white: PageSocket, black: PageSocket, delay: float) -> None:
            nonlocal presses
            await asyncio.sleep(delay)
            while time.perf_counter() < deadline:
                state = white.messages[-1]
                mover, other = (white, black) if _deciding(state) == 0 else (black, white)
                state = mover.messages[-1]
                version = state["version"]
                if state["actions"] == ["rematch"]:
                    action, step = "rematch", None
                elif state["steps"]:
                    action, step = "move", state["steps"][0]
                elif "done" in state["actions"]:
                    action, step = "done", None
                else:  # nothing to do here (a turn passed on its own meanwhile): look again
                    await asyncio.sleep(0.05)
                    continue
                seen = len(other.messages)
                sent = time.perf_counter()
                await mover.press(version, action, *((step["src"], step["die"]) if step else ()))
                await other.state(version + 1)
                index = next(
                    i for i in range(seen, len(other.messages)) if other.messages[i]["version"] > version
                )
                latencies.append(other.arrived[index] - sent)
                presses += 1
                await mover.state(version + 1)
                await asyncio.sleep(rng.uniform(0, 2 * think))

        await asyncio.gather(*(play(w, b, rng.uniform(0, think)) for w, b in pairs))
    return latencies, presses


def _deciding(state: dict[str, Any]) -> int:
    """The side whose press the game waits for (white's state says so for both: the view's to_move)."""
    to_move = state["view"]["to_move"]
    return 0 if to_move is None else int(to_move)


def first_boards(
    browser: Any, base: str, rounds: int, urls: Callable[[int], tuple[str, str | None]]
) -> dict[str, dict[str, float]]:
    """Time to the first board on a desktop and a phone over `rounds` fresh contexts (and one to warm up):
    `urls(k)` gives round k's page and the initData its stand-in Telegram object hands over (None: none)."""

    def load(page: Any, k: int) -> dict[str, float]:
        url, init = urls(k)
        if init is not None:
            page.add_init_script(FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init)))
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#board[data-version]")
        wall = (time.perf_counter() - start) * 1000
        return {"mark": page.evaluate(MARK.replace("NAME", "nardy:first-board")), "wall": wall}

    figures: dict[str, dict[str, float]] = {}
    for device, found in in_fresh_contexts(browser, rounds, load).items():
        figures[device] = spread(found["mark"]) | {"wall_median": round(statistics.median(found["wall"]), 1)}
        verdict = "under" if figures[device]["p90"] < FIRST_BOARD_GOAL_MS else "OVER"
        print(
            f"first board, {base}, {device:7}: median {figures[device]['median']:6.1f} ms, "
            f"p90 {figures[device]['p90']:6.1f} ms, max {figures[device]['max']:6.1f} ms "
            f"(the test's wall clock: median {figures[device]['wall_median']:.1f} ms; {verdict} the goal of "
            f"{FIRST_BOARD_GOAL_MS:.0f} ms) over {rounds} fresh contexts"
        )
    return figures


async def review_times(served: Served, rounds: int, cold: int) -> dict[str, Any]:
    """The review of the served long game, timed from this process over HTTP: `api/review` and the warm
    `api/review/analysis` `rounds` times each (after one to warm up), the cold analysis `cold` times (its
    kept copy deleted before each): p50 and max, in ms."""
    import redis.asyncio as aioredis

    name, user, plays = served.review
    headers = {"Authorization": "tma " + init_data(user, "Reviewer", auth_date=time.time())}
    client = aioredis.Redis.from_url(served.redis_url)

    async def timed(http: aiohttp.ClientSession, path: str) -> float:
        began = time.perf_counter()
        async with http.get(f"{served.page}{path}?game={name}", headers=headers) as answer:
            assert answer.status == 200, f"{path}: {answer.status} {await answer.text()}"
            await answer.read()
        return 1000 * (time.perf_counter() - began)

    def figure(times: list[float]) -> dict[str, float]:
        return {"p50": round(statistics.median(times), 1), "max": round(max(times), 1)}

    async with aiohttp.ClientSession() as http:
        loaded = [await timed(http, "api/review") for _ in range(rounds + 1)][1:]
        computed = []
        for _ in range(cold):
            await client.delete(analysis_key(name.split("/")[0]))
            computed.append(await timed(http, "api/review/analysis"))
        warm = [await timed(http, "api/review/analysis") for _ in range(rounds + 1)][1:]
        async with http.get(f"{served.page}api/review?game={name}", headers=headers) as answer:
            size = len(await answer.read())
    await client.aclose()
    found: dict[str, Any] = {
        "plays": plays,
        "bytes": size,
        "review": figure(loaded),
        "analysis_cold": figure(computed),
        "analysis_warm": figure(warm),
    }
    verdict = "under" if found["review"]["p50"] < REVIEW_GOAL_MS else "OVER"
    print(
        f"review of a {plays}-play long game, bot's server: api/review p50 {found['review']['p50']:.1f} ms "
        f"(max {found['review']['max']:.1f}; {size} B; {verdict} the goal of {REVIEW_GOAL_MS:.0f} ms), "
        f"its analysis cold p50 {found['analysis_cold']['p50']:.0f} ms (max {found['analysis_cold']['max']:.0f}; "
        f"{cold} rounds), warm p50 {found['analysis_warm']['p50']:.1f} ms"
    )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="page loads timed per viewport (default 20)")
    parser.add_argument("--games", type=int, default=100, help="games open at once for the round trips")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the games are played")
    parser.add_argument("--think", type=float, default=1.0, help="a player's mean think time, seconds")
    parser.add_argument("--no-round-trips", action="store_true", help="the page loads only (no round trips)")
    parser.add_argument("--analysts", type=int, default=2, help="analysis worker processes (default 2)")
    parser.add_argument("--cold", type=int, default=3, help="cold analyses of the reviewed game (default 3)")
    args = parser.parse_args()

    weights = page_weight()
    for name, (raw, packed) in weights.items():
        print(f"{name:20} {raw:7d} B  {packed:6d} B gzip")
    total = sum(raw for raw, _ in weights.values())
    total_gzip = sum(packed for _, packed in weights.values())
    verdict = "under" if total_gzip < WEIGHT_GOAL else "OVER"
    print(f"{'all':20} {total:7d} B  {total_gzip:6d} B gzip ({verdict} the goal of {WEIGHT_GOAL // 1024} KB)")
    home_raw, home_gzip = home_weight(weights)
    print(f"{'the home alone':20} {home_raw:7d} B  {home_gzip:6d} B gzip")
    review = page_weight(review=True)
    review_raw, review_gzip = sum(raw for raw, _ in review.values()), sum(p for _, p in review.values())
    print(f"{'the review alone':20} {review_raw:7d} B  {review_gzip:6d} B gzip (with the board's modules)")

    context_of = multiprocessing.get_context("spawn")
    stub_end, stub_theirs = context_of.Pipe()
    stub = context_of.Process(target=serve, args=(stub_theirs,), daemon=True)
    bot_end, bot_theirs = context_of.Pipe()
    bot = context_of.Process(target=serve_games, args=(bot_theirs, args.games, args.analysts), daemon=True)
    stub.start()
    bot.start()
    stub_url = stub_end.recv()
    served: Served = bot_end.recv()
    figures: dict[str, dict[str, dict[str, float]]] | None = None
    version = None
    if chromium_path() is None:
        print("no Chromium (apt-get install chromium): the time to the first board is not measured")
    else:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = launch(playwright)
            version = browser.version

            def on_stub(k: int) -> tuple[str, str | None]:
                return f"{stub_url}?game={'short' if k % 2 else 'long'}", None

            def on_bot(k: int) -> tuple[str, str | None]:
                game, white, _ = served.games[k % len(served.games)]
                return f"{served.page}?game={game}", init_data(white, "White", auth_date=time.time())

            figures = {
                "stub": first_boards(browser, "stub server", args.rounds, on_stub),
                "bot": first_boards(browser, "bot's server", args.rounds, on_bot),
                "home": first_homes(browser, served, args.rounds),
                "review": first_reviews(browser, served, args.rounds),
            }
            browser.close()
    stub_end.send("stop")
    stub.join(10)
    trips: dict[str, dict[str, float]] = {}
    trip: dict[str, float] = {}
    for where, apart in () if args.no_round_trips else (("one worker", False), ("two workers", True)):
        latencies, presses = asyncio.run(round_trips(served, args.seconds, args.think, apart))
        trip = trips[where] = {
            "p50": round(1000 * statistics.median(latencies), 1),
            "p99": round(1000 * percentile(latencies, 0.99), 1),
            "max": round(1000 * max(latencies), 1),
            "presses": presses,
            "per_second": round(presses / args.seconds, 1),
        }
        verdict = "under" if trip["p99"] < ROUND_TRIP_GOAL_MS else "OVER"
        print(
            f"round trip to the other player's page, {where}, {len(served.games)} games open "
            f"({2 * len(served.games)} sockets): p50 {trip['p50']:.1f} ms, p99 {trip['p99']:.1f} ms, max "
            f"{trip['max']:.1f} ms over {presses} presses ({trip['per_second']:.0f}/s; {verdict} the goal of "
            f"{ROUND_TRIP_GOAL_MS:.0f} ms)"
        )
    review = asyncio.run(review_times(served, args.rounds, args.cold))
    bot_end.send("stop")
    bot.join(20)
    if version:
        print(f"Chromium {version}, headless; each server in a process of its own on 127.0.0.1")
    print(
        json.dumps(
            {
                "bytes": total,
                "gzip_bytes": total_gzip,
                "first_board_ms": figures,
                "round_trip_ms": trip,
                "review_ms": review,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
