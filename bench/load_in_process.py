"""The in-process modes of the load benchmark (bench/load.py), no Telegram in between: `--breakdown` times
each step of a press (load, flow, save, caption and keyboard, the check against the previous board, the
picture), `--memory` measures the Redis memory a game takes from its start to its end. Each runs on an
embedded Redis in a temporary directory, with seeded dice, computer and random legal presses."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bot.embedded_redis import EmbeddedRedis


async def random_press(table: Any, rng: random.Random, dice: Any, computer: Any) -> tuple[Any, bool]:
    """A random legal press by the player on turn, in-process: a single move, or Done (taken 30 % of the
    time once the turn can end, and whenever no move is left). Returns the new table and whether it was
    Done."""
    from bot.model import flow

    step, user = table.step(), table.players[table.game.turn].user_id
    if step.next_moves and not (step.can_finish and rng.random() < 0.3):
        move = rng.choice(step.next_moves)
        return flow.press_move(table, user, table.version, move.src, move.die), False
    return await flow.press_done(table, user, table.version, dice, computer), True


@asynccontextmanager
async def in_process(name: str, seed: int) -> AsyncIterator[tuple[str, Any, Any, Any, random.Random]]:
    """For the in-process modes: an embedded Redis in a temporary directory and a Storage on it, with
    seeded dice, computer and random presses: (Redis URL, storage, dice, computer, rng)."""
    from bot.model import flow
    from bot.storage import Storage

    with tempfile.TemporaryDirectory(prefix=f"nardy-{name}-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis")
        server.start()
        storage = Storage.from_url(server.url)
        try:
            yield (
                server.url,
                storage,
                flow.ScriptedDice(seed=seed),
                flow.engine_computer(seed=seed),
                random.Random(seed),
            )
        finally:
            await storage.close()
            server.stop()


def breakdown(presses: int, seed: int) -> int:
    """`--breakdown`: one short game pressed through in-process (no Telegram), timing each step of a
    press: load from Redis, the flow, the compare-and-set save, caption/keyboard/view, the check
    against the previous board (same picture?), the picture. Median milliseconds per press."""
    from bot.model import flow
    from bot.model.table import Person
    from bot.telegram import display
    from bot.workers import pictures

    async def run() -> dict[str, float]:
        times: dict[str, list[float]] = {k: [] for k in ("load", "flow", "save", "parts", "prev", "image")}
        async with in_process("breakdown", seed) as (_, storage, dice, computer, rng):
            table = None
            for _ in range(presses):
                if table is None or table.over:
                    table = await flow.start_table(
                        flow.new_game_id(), "group", "short", Person(1, "A"), Person(2, "B"), "en",
                        dice, computer, chat_id=-1,
                    )  # fmt: skip
                    await storage.games.create(table)
                t0 = time.perf_counter()
                loaded = await storage.games.load(table.id)
                assert loaded is not None
                t1 = time.perf_counter()
                new, _ = await random_press(loaded, rng, dice, computer)
                t2 = time.perf_counter()
                await storage.games.save(new)
                t3 = time.perf_counter()
                view, _, _ = display._render_parts(new, new.targets[0])
                t4 = time.perf_counter()
                display.same_picture(loaded, new, new.targets[0], view)
                t5 = time.perf_counter()
                pictures.image(view)
                t6 = time.perf_counter()
                for key, spent in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5)):
                    times[key].append(spent)
                table = new
        return {k: round(statistics.median(v) * 1000, 3) for k, v in times.items()}

    result = asyncio.run(run())
    print(f"median ms per press, in-process, {presses} presses: {result}; sum {sum(result.values()):.2f}")
    print(json.dumps(result))
    return 0


def memory(games: int, seed: int) -> int:
    """`--memory`: play `games` group games (short and long) to the end in-process with random legal
    presses; MEMORY USAGE of the game key at the start, after 25 turns and at the end, and of the other
    keys of a game. Bytes, median over the games."""
    import redis

    from bot.model import flow
    from bot.model.table import Person
    from bot.storage.keys import chat_key, game_key, messages_key, user_games_key

    async def run() -> dict[str, float]:
        sizes: dict[str, list[int]] = {
            k: [] for k in ("start", "turn 25", "finished", "messages", "chat", "user")
        }
        async with in_process("memory", seed) as (url, storage, dice, computer, rng):
            sync = redis.Redis.from_url(url)

            def usage(key: str) -> int:
                return int(sync.memory_usage(key, samples=0) or 0)

            try:
                for g in range(games):
                    players = (Person(10 + 2 * g, f"Player{2 * g}"), Person(11 + 2 * g, f"Player{2 * g + 1}"))
                    table = await flow.start_table(
                        flow.new_game_id(), "group", ("short", "long")[g % 2], *players, "en", dice, computer,
                        chat_id=-1000 - g,
                    )  # fmt: skip
                    await storage.games.create(table)
                    await storage.games.set_message(table.id, "g", 1000 + g)
                    sizes["start"].append(usage(game_key(table.id)))
                    turns = 0
                    while not table.over:
                        new, done = await random_press(table, rng, dice, computer)
                        if done:
                            turns += 1
                            if turns == 25:
                                sizes["turn 25"].append(usage(game_key(table.id)))
                        await storage.games.save(new)
                        table = new
                    sizes["finished"].append(usage(game_key(table.id)))
                    sizes["messages"].append(usage(messages_key(table.id)))
                    sizes["chat"].append(usage(chat_key(-1000 - g)))
                    sizes["user"].append(usage(user_games_key(players[0].user_id)))
                print(f"used_memory with {games} finished games: {sync.info('memory')['used_memory']} bytes")
            finally:
                sync.close()
        result = {k: statistics.median(v) for k, v in sizes.items() if v}
        result["finished max"] = max(sizes["finished"])
        return result

    result = asyncio.run(run())
    print(f"MEMORY USAGE, bytes, median of {games} games: {result}")
    print(json.dumps(result))
    return 0
