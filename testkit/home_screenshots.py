"""The pictures of the Mini App's home in docs/: a player with games in progress (a friend's game on a live
clock, two group games), finished games over a fortnight (their statistics, their rating charts, their
review links), in the light and the dark, on a phone
and a desktop (`python -m testkit.home_screenshots [FOLDER]`). The bot's own page server over an embedded
Redis in a temporary folder, in a thread of its own; Chromium driven from this one."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice
from bot.model.stats import FinishedGame, PlayerRef
from bot.model.table import Person
from bot.service import games
from bot.service.context import Services
from bot.storage import Storage
from testkit.browser.launch import DESKTOP, PHONE, launch
from testkit.home_pages import open_home
from testkit.web_client import computer_game, friend_game, group_game, init_data, page_server, services

ALICE = Person(501, "Alice", "en")
RIVALS = (Person(502, "Bob"), Person(503, "Carol"), Person(504, "Dmitri"), Person(505, "Elif"))


DAY = 24 * 3600.0
# Alice's rated games before today's: (days ago, variant, rival, Alice won, points)
PAST = (
    (14, "short", 1, True, 1),
    (12, "short", 2, False, 1),
    (11, "short", 3, True, 2),
    (10, "long", 2, True, 1),
    (9, "short", 0, True, 1),
    (7, "short", 1, False, 2),
    (6, "short", 2, True, 1),
    (5, "long", 3, True, 2),
    (4, "short", 3, True, 1),
    (3, "short", 0, False, 1),
    (2, "short", 1, True, 2),
    (1, "short", 3, True, 1),
)


async def scene(s: Services) -> None:
    """Alice's games: a dozen rated games over the last fortnight, then two finished against people, one
    against the computer; a blitz game with Bob (her turn) and two group games in progress."""
    bob, carol, dmitri, elif_ = RIVALS
    now = time.time()
    alice = PlayerRef(ALICE.user_id, ALICE.name)
    for n, (ago, variant, which, won, points) in enumerate(PAST):
        other = PlayerRef(RIVALS[which].user_id, RIVALS[which].name)
        at = now - ago * DAY
        score = (points, 0)
        game = FinishedGame(
            f"past{n}/1",
            variant,
            "friend",
            None,
            (alice, other) if won else (other, alice),
            0,
            points,
            "mars" if points == 2 else "oin",
            "played",
            1,
            True,
            0,
            score,
            at,
        )
        await s.storage.results.record(game, at)
    for rival, resigning in ((carol, carol), (dmitri, ALICE)):
        table = await friend_game(s, ALICE, rival, "long")
        await games.resign(s, table, resigning.user_id, table.number)
    table = await computer_game(s, ALICE, "short", "intermediate")
    await games.resign(s, table, ALICE.user_id, table.number)
    await friend_game(s, bob, ALICE, "short-blitz")
    await group_game(s, -1001, ALICE, elif_, "long")
    await group_game(s, -1002, carol, ALICE, "short.3")


def screenshots(out: Path) -> list[Path]:
    """docs/webapp-home-{light,dark}-{phone,desktop}.png."""
    from playwright.sync_api import sync_playwright

    ready = threading.Event()
    stop = threading.Event()
    where: list[str] = []

    async def serve(scratch: str) -> None:
        redis = EmbeddedRedis(Path(scratch) / "redis")
        redis.start()
        storage = Storage.from_url(redis.url)
        s = services(storage, ScriptedDice(seed=11))
        await scene(s)
        async with page_server(s) as server:
            where.append(f"http://127.0.0.1:{server.port}/app/")
            ready.set()
            await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        await storage.close()
        redis.stop()

    with tempfile.TemporaryDirectory(prefix="nardy-home-shots-") as scratch:
        thread = threading.Thread(target=lambda: asyncio.run(serve(scratch)), daemon=True)
        thread.start()
        if not ready.wait(60):
            raise RuntimeError("the page server did not start")
        written = []
        try:
            with sync_playwright() as playwright:
                browser = launch(playwright)
                for scheme in ("light", "dark"):
                    for device, options in (("phone", PHONE), ("desktop", DESKTOP)):
                        context = browser.new_context(color_scheme=scheme, **options)
                        page = context.new_page()
                        open_home(page, where[0], init_data(ALICE.user_id, "Alice", auth_date=time.time()))
                        path = out / f"webapp-home-{scheme}-{device}.png"
                        page.screenshot(path=str(path), full_page=True)
                        written.append(path)
                        context.close()
                browser.close()
        finally:
            stop.set()
            thread.join(30)
    return written


if __name__ == "__main__":
    for written_path in screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(written_path)
