"""Load benchmark of the whole bot: `python bench/load.py [--games 200] [--seconds 20] [--profile FILE]`.

The real bot (one process, polling, real redis-server with AOF) plays `--games` group games at once
against the fake Bot API (testkit/fake_telegram, in this process). Simulated players press a legal button
(a move, or Done) as soon as the bot has answered their previous press and edited the board; a "move"
below is one such accepted press (a finished game is followed by a rematch, not counted). Latency is
measured from the press reaching the fake API (the update is queued) to the bot's edit of the board
arriving at the fake (before the fake parses it, so the fake's own time is excluded). The bot runs in a
child process (`--serve-bot`), so the fake and the players do not share its interpreter lock.

`--computer-share 0.2` makes a fifth of the games games against the computer (`--computer-level`, expert
by default), each in the private chat of its own player, who presses moves and Done like any other
player; the bot then plays the computer's turn before it edits the board. The latency of the human
(group) games is printed apart from theirs: what a long search costs the other games
(`--computer-processes`: NARDY_COMPUTER_PROCESSES of the bot, default 1; 0: a thread of its process).

Prints moves per second and the p50/p99 latency; the last line is one JSON object:
{"games": ..., "moves": ..., "moves_per_s": ..., "p50_ms": ..., "p99_ms": ..., "group_p50_ms": ...,
"group_p99_ms": ..., "computer_games": ..., "computer_p50_ms": ..., "computer_p99_ms": ...} (p50/p99 of all
games; group_: the human games; computer_: the games against the computer, its thinking included).
`--metrics` has the bot count and serve its Prometheus metrics (NARDY_METRICS_PORT, bot/observing.py: what they
cost is the difference from a run without); `--scrape FILE` (implies --metrics) scrapes the bot's /metrics every
second of the measured time into FILE (JSON lines: {"t": seconds since the start, "text": the exposition}), which
`python bench/metrics_chart.py FILE OUT_DIR` draws as the dashboard's main panels (docs/operations.md).
`--profile FILE` writes a cProfile of the bot process (view with `python -m pstats FILE`). `--breakdown` and
`--memory` run in-process instead, without Telegram (bench/load_in_process.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load_in_process import breakdown, memory
from bot.config import default_render_processes
from bot.embedded_redis import EmbeddedRedis
from testkit.fake_telegram.play import MOVER, start_computer_game, start_group_game
from testkit.fake_telegram.server import BOT_TOKEN, FakeTelegram
from testkit.fake_telegram.users import SimUser
from testkit.sentinel_cluster import Cluster

EDITS = ("editMessageMedia", "editMessageCaption")


def serve_bot(
    api_url: str,
    redis_url: str,
    profile: str | None,
    render_processes: int,
    plain_asyncio: bool,
    computer_processes: int,
    metrics_port: int | None = None,
) -> None:
    """The child process: the real Application polling the fake, no rate limit, until SIGTERM."""
    from bot.config import MetricsConfig
    from bot.model.flow import engine_computer
    from bot.observing import observed
    from bot.storage import Storage
    from bot.telegram.app import ALLOWED_UPDATES, build_application, new_event_loop, services, settle_heap
    from bot.telegram.rate_limit import ChatRateLimiter
    from bot.workers.computer import ComputerProcesses
    from bot.workers.pictures import RenderProcesses, use_render_processes

    async def main() -> None:
        processes = RenderProcesses(render_processes) if render_processes else None
        if processes is not None:
            await processes.start()
            use_render_processes(processes)
        computers = ComputerProcesses(computer_processes) if computer_processes else None
        if computers is not None:
            await computers.start()
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        storage = Storage.from_url(redis_url)
        app = build_application(
            BOT_TOKEN,
            storage,
            api_url=api_url,
            rate_limiter=ChatRateLimiter(overall_per_second=0, group_per_minute=0),
            poll_timeout=1,
            computer=engine_computer(processes=computers),
            limits=None,  # simulated players press far faster than people: no inbound limits
        )
        metrics = None if metrics_port is None else MetricsConfig(port=metrics_port)
        pools = [(n, p) for n, p in (("render", processes), ("computer", computers)) if p is not None]
        async with observed(metrics, storage, services(app).outbox, pools), app:
            await app.start()
            if app.post_init is not None:
                await app.post_init(app)  # the board healer, as run_polling does
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0, timeout=1, allowed_updates=ALLOWED_UPDATES)
            settle_heap()  # as `python -m bot` does once started
            print("ready", flush=True)
            await stop.wait()
            await app.updater.stop()
            await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
        await storage.close()
        if processes is not None:
            await processes.stop()
        if computers is not None:
            await computers.stop()

    loop = asyncio.new_event_loop() if plain_asyncio else new_event_loop()  # the bot's choice: uvloop
    try:
        if profile:
            import cProfile

            with cProfile.Profile() as prof:
                loop.run_until_complete(main())
            prof.dump_stats(profile)
        else:
            loop.run_until_complete(main())
    finally:
        loop.close()


class TimedFake(FakeTelegram):
    """The fake Bot API that also tells the driver when a press was answered and its board edited."""

    def __init__(self) -> None:
        super().__init__()
        self.ready: queue.Queue[int] = queue.Queue()
        self.pressed: dict[int, float] = {}  # chat -> monotonic time of the outstanding press
        self.waiting: dict[int, set[str]] = {}  # chat -> what is still to come: "answer", "edit"
        self.query_chat: dict[str, int] = {}
        self.latencies: list[tuple[int, float]] = []  # (chat, seconds from the press to the edit)
        self.alerts: list[str] = []
        self.measuring = False
        self._mark = threading.Lock()
        self._local = threading.local()
        self.methods: Counter[str] = Counter()
        self.new_board: dict[int, int] = {}  # chat -> the board message of a rematch
        self.refused: set[int] = set()  # chats whose last press got an alert (not counted as a move)

    def timed_press(self, user: SimUser, chat_id: int, message_id: int, data: str) -> None:
        msg = self.message(chat_id, message_id)
        with self._mark:
            self.waiting[chat_id] = {"answer", "photo" if data.startswith("r:") else "edit"}
            self.pressed[chat_id] = time.monotonic()
            qid = self.press(user.json, msg, data)  # under _mark: the answer may come at once
            self.query_chat[qid] = chat_id

    def _arrived(self, chat_id: int, what: str, at: float) -> None:
        with self._mark:
            left = self.waiting.get(chat_id)
            if left is None or what not in left:
                return
            left.discard(what)
            if what == "edit" and self.measuring:
                self.latencies.append((chat_id, at - self.pressed[chat_id]))
            if not left:
                del self.waiting[chat_id]
                self.ready.put(chat_id)

    def _dispatch(
        self, path: str, content_type: str, body: bytes, parsed: Any = None
    ) -> tuple[int, dict[str, Any]]:
        self._local.arrived = time.monotonic()
        self.methods[path.rsplit("/", 1)[-1]] += 1
        return super()._dispatch(path, content_type, body, parsed)

    def _api_editMessageMedia(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        result = super()._api_editMessageMedia(params, files)
        self._arrived(int(params["chat_id"]), "edit", self._local.arrived)
        return result

    def _api_editMessageCaption(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        result = super()._api_editMessageCaption(params, files)
        self._arrived(int(params["chat_id"]), "edit", self._local.arrived)
        return result

    def _api_sendPhoto(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        result = super()._api_sendPhoto(params, files)
        chat = int(params["chat_id"])
        self.new_board[chat] = int(result["message_id"])
        self._arrived(chat, "photo", self._local.arrived)
        return result

    def _api_answerCallbackQuery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        result = super()._api_answerCallbackQuery(params, files)
        with self._mark:
            chat = self.query_chat.pop(str(params["callback_query_id"]), None)
            if chat is not None and params.get("show_alert"):
                self.alerts.append(str(params.get("text")))
                self.refused.add(chat)
                self.waiting.get(chat, set()).difference_update({"edit", "photo"})
        if chat is not None:
            self._arrived(chat, "answer", self._local.arrived)
        return result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="group games played at once (default 200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time (default 20)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds played before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rate",
        type=float,
        help="open loop: press at this many presses per second in all (a random idle game each time) "
        "instead of pressing again as soon as each game is answered",
    )
    parser.add_argument("--profile", help="write a cProfile of the bot process to this file")
    parser.add_argument(
        "--render-processes",
        type=int,
        default=default_render_processes(),
        help="NARDY_RENDER_PROCESSES of the bot (default: the bot's own default, "
        f"{default_render_processes()} here; 0: a thread of the bot process)",
    )
    parser.add_argument(
        "--computer-share",
        type=float,
        default=0.0,
        help="share of the games played against the computer, each in its player's private chat (default 0)",
    )
    parser.add_argument("--computer-level", choices=("beginner", "intermediate", "expert"), default="expert")
    parser.add_argument(
        "--computer-variant",
        choices=("long", "short", "both"),
        default="long",
        help="the game against the computer (default long: its expert thinks 10-100 times longer)",
    )
    parser.add_argument(
        "--computer-turns",
        type=int,
        default=12,
        help="turns each game against the computer plays (as fast as it can) before the others start and "
        "the warm-up begins: long nardy's expert thinks longest in the middle game (default 12)",
    )
    parser.add_argument(
        "--computer-processes",
        type=int,
        default=1,
        help="NARDY_COMPUTER_PROCESSES of the bot (default 1; 0: the computer decides in a thread)",
    )
    parser.add_argument(
        "--asyncio-loop",
        action="store_true",
        help="run the bot on asyncio's own loop instead of uvloop (to compare)",
    )
    parser.add_argument("--metrics", action="store_true", help="the bot counts and serves its metrics")
    parser.add_argument("--scrape", metavar="FILE", help="scrape the bot's /metrics every second into FILE")
    parser.add_argument("--metrics-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--sentinel-replicas",
        type=int,
        choices=(0, 1),
        help="run Redis as a master, a replica and three sentinels (testkit/sentinel_cluster.py), the bot "
        "pointed at the sentinels and its saves waiting for this many replicas (WAIT)",
    )
    parser.add_argument("--breakdown", type=int, metavar="PRESSES", help="time the steps of a press instead")
    parser.add_argument("--memory", type=int, metavar="GAMES", help="measure Redis memory per game instead")
    parser.add_argument("--serve-bot", nargs=2, metavar=("API_URL", "REDIS_URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory:
        return memory(args.memory, args.seed)
    if args.breakdown:
        return breakdown(args.breakdown, args.seed)
    if args.serve_bot:
        serve_bot(
            args.serve_bot[0],
            args.serve_bot[1],
            args.profile,
            args.render_processes,
            args.asyncio_loop,
            args.computer_processes,
            args.metrics_port,
        )
        return 0
    if args.scrape:
        args.metrics = True

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="nardy-load-") as tmp:
        redis_server: EmbeddedRedis | Cluster
        if args.sentinel_replicas is None:
            redis_server = EmbeddedRedis(Path(tmp) / "redis")
            redis_server.start()
            bot_url = url = redis_server.url
        else:  # a master, its replica, three sentinels; the bot's saves wait for that many replicas
            redis_server = Cluster(Path(tmp))
            redis_server.start()
            bot_url = f"{redis_server.url}?replicas={args.sentinel_replicas}"
            master = redis_server.master()
            assert master is not None
            url = f"redis://127.0.0.1:{master.port}/0"
        tg = TimedFake()
        tg.start()
        cmd = [sys.executable, __file__, "--serve-bot", tg.api_url, bot_url]
        if args.profile:
            cmd += ["--profile", str(Path(args.profile).resolve())]
        cmd += ["--render-processes", str(args.render_processes)] + ["--asyncio-loop"] * args.asyncio_loop
        cmd += ["--computer-processes", str(args.computer_processes)]
        if args.metrics:
            args.metrics_port = free_port()
            cmd += ["--metrics-port", str(args.metrics_port)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
            return drive(tg, args, rng, url, child.pid)
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(30)
            tg.stop()
            redis_server.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Scraper(threading.Thread):
    """Scrapes the bot's /metrics every second into a JSON lines file until stopped."""

    def __init__(self, port: int, path: str) -> None:
        super().__init__(name="scraper", daemon=True)
        self.url = f"http://127.0.0.1:{port}/metrics"
        self.path = path
        self.halt = threading.Event()

    def run(self) -> None:
        t0 = time.monotonic()
        with open(self.path, "w", encoding="utf-8") as out:
            while not self.halt.is_set():
                with urllib.request.urlopen(self.url, timeout=5) as response:
                    text = response.read().decode()
                out.write(json.dumps({"t": round(time.monotonic() - t0, 3), "text": text}) + "\n")
                self.halt.wait(1.0)


def memory_per_game(redis_url: str, games: int) -> dict[str, float]:
    """MEMORY USAGE of every nardy:* key, summed by kind of key, per game."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        sums: Counter[str] = Counter()
        for key in client.scan_iter(match="nardy:*", count=1000):
            parts = key.split(":")
            kind = ":".join(
                p if not p.lstrip("-").isdigit() and i != 2 else "<id>" for i, p in enumerate(parts)
            )
            sums[kind] += int(client.memory_usage(key, samples=0) or 0)
        return {kind: round(total / games) for kind, total in sorted(sums.items())}
    finally:
        client.close()


def cpu_seconds(bot_pid: int) -> dict[str, float]:
    """CPU seconds used so far by the bot process, its render processes, its computer processes (told
    apart by their name, `nardy-computer`) and this process (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")

    def stat(pid: str) -> tuple[str, int, float]:
        with open(f"/proc/{pid}/stat") as f:
            name, rest = f.read().split(" (", 1)[1].rsplit(")", 1)
        fields = rest.split()
        return name, int(fields[1]), (int(fields[11]) + int(fields[12])) / tick  # comm, ppid, utime + stime

    found = {"bot": 0.0, "render": 0.0, "computer": 0.0, "bench": time.process_time()}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            name, ppid, used = stat(pid)
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not Linux
        if int(pid) == bot_pid:
            found["bot"] += used
        elif ppid == bot_pid:
            found["computer" if name == "nardy-computer" else "render"] += used
    return found


def drive(tg: TimedFake, args: argparse.Namespace, rng: random.Random, redis_url: str, bot_pid: int) -> int:
    players: dict[int, dict[str, SimUser]] = {}
    boards: dict[int, int] = {}
    t0 = time.monotonic()
    against_computer = round(args.games * args.computer_share)
    for i in range(args.games - against_computer):
        chat = -100_000 - i
        white, black = SimUser(tg, 10_000 + 2 * i, f"W{i}"), SimUser(tg, 10_001 + 2 * i, f"B{i}")
        board = start_group_game(tg, chat, white, black, "long" if i % 4 == 3 else "short")
        players[chat] = {u.first_name: u for u in (white, black)}
        boards[chat] = board.message_id
    for i in range(against_computer):  # in the private chat of its player (chat id = user id > 0)
        human = SimUser(tg, 500_000 + i, f"C{i}")
        variant = args.computer_variant if args.computer_variant != "both" else ("short", "long")[i % 2]
        board = start_computer_game(tg, human, variant, args.computer_level.capitalize())
        players[human.id] = {human.first_name: human}
        boards[human.id] = board.message_id
    print(
        f"{args.games} games started in {time.monotonic() - t0:.1f}s "
        f"({against_computer} against the computer at level {args.computer_level})",
        file=sys.stderr,
    )

    moves = 0
    computer_moves = 0  # of them, in games against the computer
    finished = 0

    pressed: dict[int, str] = {}  # chat -> the callback data of its last press

    def press_next(chat: int) -> bool:
        msg = tg.message(chat, boards[chat])
        datas = [str(b.get("callback_data", "")) for b in msg.buttons]
        rematch = [d for d in datas if d.startswith("r:")]
        if rematch:  # the game is over: the next game of the series, on a new board message
            tg.timed_press(next(iter(players[chat].values())), chat, boards[chat], rematch[0])
            pressed[chat] = rematch[0]
            return False
        if chat > 0:  # against the computer: its only human player is on turn
            (user,) = players[chat].values()
        else:
            found = MOVER.search(msg.caption or "")
            assert found, f"chat {chat}: cannot tell whose turn it is from {msg.caption!r}"
            user = players[chat][found["name"]]
        move_buttons = [b for b in msg.buttons if str(b.get("callback_data", "")).startswith(("m:", "p:"))]
        done = [d for d in datas if d.startswith("d:")]
        if done and not move_buttons:
            data = done[0]
        else:
            home = [b for b in move_buttons if "⌂" in b["text"]]
            data = str(rng.choice(home or move_buttons)["callback_data"])
        tg.timed_press(user, chat, boards[chat], data)
        pressed[chat] = data
        return True

    if against_computer and args.computer_turns:  # into the middle game, where the computer thinks longest
        t1 = time.monotonic()
        turns = dict.fromkeys((chat for chat in boards if chat > 0), 0)
        for chat in turns:
            press_next(chat)
        playing = len(turns)
        while playing:
            chat = tg.ready.get(timeout=120)
            tg.refused.discard(chat)
            if chat in tg.new_board:
                boards[chat] = tg.new_board.pop(chat)
            turns[chat] += pressed[chat].startswith("d:")
            if turns[chat] < args.computer_turns:
                press_next(chat)
            else:
                playing -= 1
        print(
            f"the games against the computer played {args.computer_turns} turns in "
            f"{time.monotonic() - t1:.1f}s before the others started",
            file=sys.stderr,
        )

    idle: list[int] = []  # --rate: games whose last press was answered, waiting for their next turn
    if args.rate:
        idle.extend(boards)
    else:
        for chat in boards:
            press_next(chat)
    start = time.monotonic()
    measure_from = start + args.warmup
    end = measure_from + args.seconds
    measured_start_moves = 0
    cpu_start: dict[str, float] = {}
    scraper: Scraper | None = None
    next_press, late = start, 0
    while True:
        now = time.monotonic()
        if not tg.measuring and now >= measure_from:
            tg.measuring = True
            measured_start_moves = moves
            cpu_start = cpu_seconds(bot_pid)
            if args.scrape:
                scraper = Scraper(args.metrics_port, args.scrape)
                scraper.start()
        if now >= end:
            break
        wait = end - now
        if args.rate:  # open loop: one press every 1/rate s, by a random idle game
            while idle and now >= next_press:
                chat = idle.pop(rng.randrange(len(idle)))
                if not press_next(chat):
                    finished += 1
                next_press += 1 / args.rate
            if now - next_press > 1:  # every game busy for a second: the offered rate is not served
                late += int((now - next_press) * args.rate)
                next_press = now
            wait = min(wait, max(0.0, next_press - now)) if idle else wait
        try:
            chat = tg.ready.get(timeout=max(0.001, wait))
        except queue.Empty:
            continue
        if chat in tg.refused:
            tg.refused.discard(chat)
        elif chat in tg.new_board:
            boards[chat] = tg.new_board.pop(chat)
        else:
            moves += 1
            computer_moves += tg.measuring and chat > 0
        if args.rate:
            idle.append(chat)
        elif not press_next(chat):
            finished += 1
    tg.measuring = False
    if scraper is not None:
        scraper.halt.set()
        scraper.join(10)
    cpu = {k: v - cpu_start.get(k, 0.0) for k, v in cpu_seconds(bot_pid).items()}
    measured = moves - measured_start_moves
    lat = [x * 1000 for _, x in tg.latencies]
    group = [x * 1000 for chat, x in tg.latencies if chat < 0]
    computer = [x * 1000 for chat, x in tg.latencies if chat > 0]
    result = {
        "games": args.games,
        "moves": measured,
        "moves_per_s": round(measured / args.seconds, 1),
        "p50_ms": round(statistics.median(lat), 2) if lat else None,
        "p99_ms": round(percentile(lat, 0.99), 2) if lat else None,
        "group_p50_ms": round(statistics.median(group), 2) if group else None,
        "group_p99_ms": round(percentile(group, 0.99), 2) if group else None,
        "computer_games": against_computer,
        "computer_level": args.computer_level if against_computer else None,
        "computer_processes": args.computer_processes if against_computer else None,
        "computer_p50_ms": round(statistics.median(computer), 2) if computer else None,
        "computer_p99_ms": round(percentile(computer, 0.99), 2) if computer else None,
        "metrics": bool(args.metrics),
    }
    per_move = {k: round(1000 * v / max(1, measured), 2) for k, v in cpu.items()}
    if args.rate:
        print(f"offered {args.rate} presses/s; presses not made because every game was busy: {late}")
    print(
        f"CPU ms per move: {per_move} (bot: the event loop's process; render: its render processes; "
        f"computer: its computer processes; bench: the fake Bot API and the players); one core for the "
        f"bot's loop would serve "
        f"{1000 / per_move['bot'] if per_move.get('bot') else float('nan'):.0f} moves/s"
    )
    print(f"Bot API calls: {dict(tg.methods)}")
    print(f"games finished during the run: {finished}; alerts: {len(tg.alerts)} {tg.alerts[:3]}")
    print(
        f"{measured} presses in {args.seconds:.0f}s = {result['moves_per_s']} moves/s; "
        f"press -> board edit p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms"
    )
    if against_computer:
        print(
            f"human (group) games: {measured - computer_moves} presses, press -> board edit "
            f"p50 {result['group_p50_ms']} ms, p99 {result['group_p99_ms']} ms; games against the computer "
            f"({args.computer_level}, its thinking included): {computer_moves} presses, "
            f"p50 {result['computer_p50_ms']} ms, p99 {result['computer_p99_ms']} ms"
        )
    memory = memory_per_game(redis_url, args.games)
    print(f"Redis memory per game (MEMORY USAGE, bytes): {memory}; all keys: {sum(memory.values())}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
