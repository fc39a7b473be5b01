"""A finished game's review for one person, as the Mini App shows it (bot/web/reviews.py): who may see it,
its frames on the board (render/replay.py's replay with the person's side below), its plays as the chat's
record writes them, its record's files, the proof of its dice, and the expert's analysis.

Who may see a review: the game's players; a group's game also the group's members, asked through the
injected `member_of(chat_id, user_id)` (the Telegram front's getChatMember; without one, players only).

The analysis (engine/ai/analysis.py) is worked out once per game: its turns split into stretches judged at
the same time in the analysis workers (bot/workers/computer.py `think`), with the win chances of every frame
beside them; one computation per game in this process however many ask at once (`Analyses`), and kept in
Redis (bot/storage/reviews.py) while the game is kept. Two workers asked at the same moment may both work it
out: the second write is the same analysis. It holds no names (they are read from the game when shown).
Telegram-free."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.i18n import Texts
from bot.model import flow
from bot.model.flow import Refused, kept_proof
from bot.model.table import Table
from bot.service.context import Services
from bot.service.records import KINDS, PLAYERS_ONLY, named_game, record_file
from bot.storage import Storage, StorageError
from bot.views.board_view import replay_texts
from bot.views.captions import names, variant_name
from bot.workers.computer import ChancesRequest, ComputerBusy, Review, think
from engine import Game, Side
from engine.ai.analysis import Analysis, PlayReview, forced_turns, summarise
from engine.fair_dice import FairSeeds, recorded_rolls
from render.replay import replay_views
from render.view import BoardView

log = logging.getLogger(__name__)

MemberOf = Callable[[int, int], Awaitable[bool]]  # (group chat id, user id) -> is a member of that group

DEPTH = "expert"
STRETCHES_PER_WORKER = 2  # a game's turns are split in this many stretches per analysis worker (balance)
DIGITS = 4  # decimals of every figure sent


@dataclass(frozen=True)
class Seen:
    """A finished game a person may see: the table, the game's number in its series, the game, and the
    person's side in it (None: a member of the game's group watching)."""

    table: Table
    number: int
    game: Game
    you: Side | None

    @property
    def name(self) -> str:
        return f"{self.table.id}/{self.number}"


async def seen_game(storage: Storage, name: str, user_id: int, member_of: MemberOf | None = None) -> Seen:
    """Game `name` ("GAME/N" or "GAME") if it is kept, over, and `user_id` may see it (a player; for a
    group's game a member of the group too); Refused otherwise (StorageError if Redis cannot be read)."""
    table, number = await named_game(storage, name)
    game = flow.finished_game(table, number)
    you = table.side_of(user_id)
    if you is None:
        group = table.chat_id if table.mode == "group" else None
        if group is None or member_of is None or not await member_of(group, user_id):
            raise Refused(PLAYERS_ONLY)
    return Seen(table, number, game, you)


def frames(t: Texts, seen: Seen) -> list[BoardView]:
    """The game's replay (render/replay.py) seen from the person's side (a watching member: white's): the
    start, the position after each play, the result."""
    who = names(t, seen.table)
    return replay_views(seen.game, who, replay_texts(t, seen.table, seen.game), seen.you or Side.WHITE)


def review_json(t: Texts, seen: Seen, analysis: dict[str, Any] | None) -> dict[str, Any]:
    """The review (docs/webapp.md) but for what the page server adds (`lang`, `dir`, `words`, `frames`,
    `downloads`): the title, names, result, the plays, the dice proof, and the analysis if it is worked out
    already (None: the page asks for it). The names are read from the game now, never from the analysis."""
    table, game = seen.table, seen.game
    who = names(t, table)
    words = replay_texts(t, table, game)
    forced = forced_turns(game)
    return {
        "game": seen.name,
        "variant": game.game,
        "title": f"{variant_name(t, game.game)} · {who[0]} – {who[1]}",
        "you": None if seen.you is None else int(seen.you),
        "names": list(who),
        "result": words.result,
        "plays": [
            {
                "n": n,
                "side": int(turn.side),
                "dice": [turn.dice.a, turn.dice.b],
                "text": turn.play,
                "forced": forced[n - 1],
            }
            for n, turn in enumerate(game.history, 1)
        ],
        "analysis": analysis,
        "proof": proof_json(seen),
    }


def proof_json(seen: Seen) -> dict[str, Any] | None:
    """What checks the game's dice (engine/fair_dice.py): the revealed seed, its commitment and parts, the
    players' seeds, the rolls the record shows and how many the bot derived; None for a game without seeds
    (stored before the dice were provable, or no longer kept)."""
    proof = kept_proof(seen.table, seen.number)
    if proof is None or "fair" not in proof:
        return None
    seeds = FairSeeds.from_json(proof["fair"])
    return {
        "game": seeds.game,
        "commitment": seeds.commitment,
        "seed": seeds.server_seed,
        "parts": None if seeds.parts is None else list(seeds.parts),
        "clients": list(seeds.clients),
        "rolls": [list(r) for r in recorded_rolls(seen.game)],
        "made": seeds.rolls,
    }


def download_names(t: Texts, seen: Seen) -> list[tuple[str, str]]:
    """(kind, file name) of each file of the game's record (records.record_file): .mat for short nardy only."""
    kinds = [k for k in KINDS if k != "mat" or seen.game.game == "short"]
    return [(kind, record_file(t, seen.table, seen.game, seen.number, kind)[1]) for kind in kinds]


# ---------------------------------------------------------------------- the analysis


def analysis_json(analysis: Analysis, chances: tuple[float, ...]) -> dict[str, Any]:
    """An engine Analysis and the frames' win chances as kept and sent: no names, figures rounded."""

    def play(r: PlayReview) -> dict[str, Any]:
        return {
            "n": r.turn,
            "side": int(r.side),
            "equity": round(r.equity, DIGITS),
            "best_equity": round(r.best_equity, DIGITS),
            "loss": round(r.loss, DIGITS),
            "mark": r.mark,
            "best": str(r.best),
            "best_moves": [{"src": m.src, "dst": m.dst, "hit": m.hit} for m in r.best.moves],
        }

    return {
        "depth": analysis.depth,
        "plays": [play(r) for r in analysis.plays],
        "sides": [
            {
                "decisions": s.decisions,
                "total_loss": round(s.total_loss, DIGITS),
                "error_rate": round(s.error_rate, DIGITS),
                "doubtful": s.doubtful,
                "errors": s.errors,
                "blunders": s.blunders,
            }
            for s in (analysis.white, analysis.black)
        ],
        "chances": [round(c, DIGITS) for c in chances],
    }


def stretches(turns: int, count: int) -> list[tuple[int, int]]:
    """`turns` split into at most `count` stretches (start, stop) of about equal length, none empty."""
    count = max(1, min(count, turns))
    bounds = [round(turns * i / count) for i in range(count + 1)]
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


async def work_out(s: Services, game: Game) -> dict[str, Any]:
    """The analysis of `game`, its stretches and its win chances worked out at the same time in the
    analysis workers (ComputerBusy when too many requests wait for them)."""
    record = game.to_json()
    workers = s.analysts.workers if s.analysts is not None else 1
    parts = stretches(len(game.history), workers * STRETCHES_PER_WORKER)
    found = await asyncio.gather(
        think(s.analysts, ChancesRequest(record)),
        *(think(s.analysts, Review(record, a, b)) for a, b in parts),
    )
    reviews = [r for part in found[1:] for r in part]
    return analysis_json(summarise(game, reviews, depth=DEPTH), tuple(found[0]))


async def keep_for_review(s: Services, game_id: str, number: int, game: Game, analysis: Analysis) -> None:
    """An analysis worked out elsewhere (the chat's 📊 Analysis: the same expert, the same stretches'
    judgement) kept for the game's review as well, with its win chances, unless one is kept already: the
    review then reads it instead of working it out again. A failure only loses that saving (logged)."""
    try:
        if await s.storage.reviews.analysis(game_id, number) is not None:
            return
        chances = await think(s.analysts, ChancesRequest(game.to_json()))
        await s.storage.reviews.keep_analysis(game_id, number, analysis_json(analysis, tuple(chances)))
    except (ComputerBusy, StorageError) as err:
        log.info("the analysis of %s/%s was not kept for its review: %s", game_id, number, err)


def analysts_idle(s: Services) -> bool:
    """Whether an analysis worker is free now: the workers are there (no thread is spent on a guess) and
    owe fewer requests than they are."""
    pool = s.analysts
    return pool is not None and pool.queued < pool.workers


class Analyses:
    """Finished games' analyses of one process: read from Redis, else worked out once however many ask at
    the same time (the others wait for the same computation), then kept in Redis. `work` (tests count its
    calls) works one out; `idle` says whether a warm-up may start now (analysts_idle)."""

    def __init__(
        self, s: Services, work: Callable[[Services, Game], Awaitable[dict[str, Any]]] = work_out
    ) -> None:
        self.s = s
        self.work = work
        self.idle: Callable[[], bool] = lambda: analysts_idle(s)
        self._running: dict[tuple[str, int], asyncio.Task[dict[str, Any]]] = {}
        self._warming: set[asyncio.Task[None]] = set()

    def warm(self, table: Table, number: int) -> None:
        """Start working out game `number` of `table` in the background, for the review its player is
        likely to open next (read from Redis then): not while the analysis workers are busy, not while it is
        worked out already, not when it is kept. Errors are logged; stop() cancels it."""
        if (table.id, number) in self._running or not self.idle():
            return
        task = asyncio.get_running_loop().create_task(
            self._warm(table, number), name=f"analysis-warm-{table.id}/{number}"
        )
        self._warming.add(task)
        task.add_done_callback(self._warming.discard)

    async def _warm(self, table: Table, number: int) -> None:
        name = f"{table.id}/{number}"
        try:
            seen = Seen(table, number, flow.finished_game(table, number), None)
            await self.get(seen)
        except asyncio.CancelledError:
            raise
        except (Refused, ComputerBusy, StorageError) as err:
            log.info("the analysis of %s was not worked out ahead: %s", name, err)
        except Exception:
            log.exception("the analysis of %s failed to be worked out ahead", name)

    async def stop(self, timeout: float = 1.0) -> None:
        """Cancel the analyses under way (the server stops): a page asks again where it must."""
        tasks = [*self._warming, *self._running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def kept(self, seen: Seen) -> dict[str, Any] | None:
        """The analysis kept in Redis, or None (StorageError if Redis cannot be read)."""
        return await self.s.storage.reviews.analysis(seen.table.id, seen.number)

    async def get(self, seen: Seen) -> dict[str, Any]:
        """The game's analysis: kept, or worked out now (one computation per game in this process)."""
        found = await self.kept(seen)
        if found is not None:
            return found
        key = (seen.table.id, seen.number)
        task = self._running.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._made(seen), name=f"analysis-{seen.name}")
            self._running[key] = task
            task.add_done_callback(
                lambda done: self._running.pop(key, None) if self._running.get(key) is done else None
            )
        return await asyncio.shield(task)

    async def _made(self, seen: Seen) -> dict[str, Any]:
        analysis = await self.work(self.s, seen.game)
        try:
            await self.s.storage.reviews.keep_analysis(seen.table.id, seen.number, analysis)
        except StorageError as err:  # shown all the same; worked out again next time
            log.warning("the analysis of %s could not be kept: %s", seen.name, err)
        return analysis
