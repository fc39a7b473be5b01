"""Tournaments as plain async functions: create, sign up, leave, start, cancel, and `advance`, the one step
that moves a tournament on (its ended games' results, its start and end on time, new pairings) and starts the
games it paired.

Every change is a compare-and-set of the tournament's record (bot/storage/tournaments.py), tried again on a
conflict. A tournament game's end is pushed onto the tournament's inbox by the game's own save
(lua/save_game.lua); `advance` applies the inbox and saves in one compare-and-set that also drops the entries
it applied, and a result applied twice changes nothing, so any number of workers calling `advance` at once,
or a worker killed half-way, leave the same tournament. A pairing's game is created under the id the pairing
was saved with: a second start of it is refused by the game's save (VersionConflict), so no game starts twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from bot.i18n import N_
from bot.model import flow
from bot.model.flow import Refused
from bot.model.game_format import GameFormat
from bot.model.table import Person, Table, TourneyGame, new_id
from bot.model.tournament import (
    ARENA_MINUTES,
    KINDS,
    NOW_SIGNUP,
    START_IN,
    Entrant,
    Pairing,
    Tournament,
    format_of,
    result_of,
)
from bot.service.context import Services, game_seeds
from bot.service.starts import active_game
from bot.storage import ChatBusy, VersionConflict

log = logging.getLogger(__name__)

TOURNEY_ON = N_("A tournament is already on in this group.")
NO_TOURNEY = N_("This tournament is over or no longer exists.")
ONLY_CREATOR = N_("Only the tournament's creator can do that.")
ONLY_CREATOR_OR_ADMIN = N_("Only the tournament's creator or an administrator can do that.")
BUSY = N_("Too many players pressed at once. Please try again.")

TRIES = 20  # compare-and-set attempts of one change before the user is asked to try again
LOOK_AGAIN = 5.0  # seconds between two looks at a running tournament when nothing else is due
SIGNUP_LOOK = 30.0  # seconds between two looks at a tournament signing up (its card's countdown)


def first_due(t: Tournament, now: float) -> float | None:
    """When the tournament is next due a look (None: never again)."""
    if t.stage == "signup":
        return min(t.starts_at, now + SIGNUP_LOOK)  # the card's countdown moves on
    if t.stage == "running":
        if t.ends_at is not None and now < t.ends_at:
            return min(t.ends_at, now + LOOK_AGAIN)
        return now + LOOK_AGAIN
    return None


async def create(
    s: Services,
    chat_id: int,
    title: str | None,
    creator: Person,
    kind: str,
    fmt: str,
    minutes: int,
    start_in: int,
) -> Tournament:
    """A new tournament signing up in the group (Refused while another is on there)."""
    parsed = GameFormat.parse(fmt)
    if kind not in KINDS or parsed.clock is None or start_in not in START_IN:
        raise ValueError(f"tournament in chat {chat_id}: kind {kind!r}, format {fmt!r}, start in {start_in}")
    if kind == "arena" and minutes not in ARENA_MINUTES:
        raise ValueError(f"tournament in chat {chat_id}: arena of {minutes} minutes")
    now = s.clock()
    t = Tournament(
        id=new_id(),
        chat_id=chat_id,
        kind=kind,
        fmt=fmt,
        creator=creator,
        lang=creator.lang,
        created_at=now,
        starts_at=now + (60 * start_in if start_in else NOW_SIGNUP),
        minutes=minutes if kind == "arena" else 0,
        title=title,
    )
    try:
        await s.storage.tournaments.create(t, first_due(t, now))
    except ChatBusy:
        raise Refused(TOURNEY_ON) from None
    return t


async def change(s: Services, tourney_id: str, how: Callable[[Tournament], Tournament]) -> Tournament:
    """Apply `how` (which may raise Refused) to the stored tournament by compare-and-set, tried again on a
    conflict; returns the saved tournament."""
    for _ in range(TRIES):
        t = await s.storage.tournaments.load(tourney_id)
        if t is None:
            raise Refused(NO_TOURNEY)
        new = how(t)
        if new is t:
            return t
        try:
            await s.storage.tournaments.save(new, t.version, first_due(new, s.clock()))
        except VersionConflict:
            continue
        return new
    raise Refused(BUSY)


async def join(s: Services, tourney_id: str, me: Person) -> Tournament:
    """`me` signs up (with their rating in the tournament's variant), or comes back from a pause."""
    t = await s.storage.tournaments.load(tourney_id, players=False)
    if t is None:
        raise Refused(NO_TOURNEY)
    variant = GameFormat.parse(t.fmt).variant
    rating = (await s.storage.results.stats_of(me.user_id)).of(variant).rating
    entrant = Entrant(me, rating)
    if t.stage != "signup":
        return await change(s, tourney_id, lambda t: t.join(entrant))
    answer = await s.storage.tournaments.sign_up(t, entrant, me.user_id, s.clock())
    if answer == "closed":  # it started meanwhile: a paused player's way back, or the refusal
        return await change(s, tourney_id, lambda t: t.join(entrant))
    return signed_up(answer, t)


async def leave(s: Services, tourney_id: str, user_id: int) -> Tournament:
    t = await s.storage.tournaments.load(tourney_id, players=False)
    if t is None:
        raise Refused(NO_TOURNEY)
    answer = await s.storage.tournaments.sign_up(t, None, user_id, s.clock())
    return signed_up(answer, t)


def signed_up(answer: str, t: Tournament) -> Tournament:
    """The tournament after a sign-up script's `answer`; Refused as the model refuses (its messages)."""
    if answer == "in":
        raise Refused("You are signed up already.")
    if answer == "out":
        raise Refused("You are not signed up.")
    if answer == "full":
        raise Refused("This tournament is full.")
    if answer == "closed":
        raise Refused("This tournament is no longer open for sign-up.")
    return t  # as it was loaded: its card reads the newest sign-ups when it is edited


async def cancel(s: Services, tourney_id: str, user_id: int, admin: bool) -> Tournament:
    """The creator (or an administrator of the group: `admin`) cancels the tournament."""

    def how(t: Tournament) -> Tournament:
        if t.creator.user_id != user_id and not admin:
            raise Refused(ONLY_CREATOR_OR_ADMIN)
        return t.cancel()

    return await change(s, tourney_id, how)


async def start(s: Services, tourney_id: str, user_id: int) -> Tournament:
    """The creator starts the tournament now: its first pairings are saved (their games are started by
    `start_games`, which the front runs after answering, and any worker's next look would too)."""

    def how(t: Tournament) -> Tournament:
        if t.creator.user_id != user_id:
            raise Refused(ONLY_CREATOR)
        return t.start(s.clock(), new_id)

    return await change(s, tourney_id, how)


# ---------------------------------------------------------------------- moving on


async def advance(s: Services, tourney_id: str) -> tuple[Tournament | None, Tournament | None, list[Table]]:
    """One look at the tournament: its inbox's results applied, its start or end when due, new pairings; saved
    in one compare-and-set (tried again on a conflict), then the games it paired started. Returns the
    tournament before and after (None: gone; the same when nothing changed) and the games started."""
    for _ in range(TRIES):
        before = await s.storage.tournaments.load(tourney_id)
        if before is None:
            return None, None, []
        inbox = await s.storage.tournaments.inbox(tourney_id)
        now = s.clock()
        t = before
        for game_id in inbox:
            table = await s.storage.games.load(game_id)
            found = None if table is None else result_of(table)
            if found is not None:
                t = t.record(game_id, *found)
        if t.stage == "signup" and now >= t.starts_at:
            try:
                t = t.start(now, new_id)
            except Refused:
                t = t.cancel()
        t = t.step(now, new_id)
        due = first_due(t, now)
        if t is before:  # saved all the same: its place in the due set moves on
            t = replace(t, version=t.version + 1)
        try:
            await s.storage.tournaments.save(t, before.version, due, applied=len(inbox))
        except VersionConflict:
            continue
        return before, t, await start_games(s, t)
    return None, None, []


async def start_games(s: Services, t: Tournament) -> list[Table]:
    """Start the games of `t`'s running pairings that have no game yet (any worker may: the id is the
    pairing's, so a game starts once). A player busy in another game loses that pairing by walkover."""
    started: list[Table] = []
    if t.stage != "running":
        return started
    for pairing in t.running_games:
        if await s.storage.games.load(pairing.game) is not None:
            continue
        table = await new_game(s, t, pairing)
        try:
            await s.storage.games.create(table)
        except VersionConflict:  # another worker started it
            continue
        except ChatBusy:
            await walkover_busy(s, t, pairing)
            continue
        s.changed(table)
        started.append(table)
    return started


async def new_game(s: Services, t: Tournament, pairing: Pairing) -> Table:
    white, black = (t.entrant(u) for u in pairing.players)
    assert white is not None and black is not None
    table = await flow.start_table(
        pairing.game,
        "match",
        format_of(t, pairing),
        white.person,
        black.person,
        white.person.lang,
        s.dice,
        s.computer,
        seeds=await game_seeds(s, white.person, black.person),
    )
    tag = TourneyGame(t.id, pairing.round, t.title or "", card_link(t))
    return replace(s.stamped(table), tournament=tag, title=t.title)


def card_link(t: Tournament) -> str | None:
    """A link to the group card: https://t.me/c/<id>/<message> for a supergroup (its members can open it)."""
    if t.card is None or not str(t.chat_id).startswith("-100"):
        return None
    return f"https://t.me/c/{str(t.chat_id)[4:]}/{t.card}"


async def walkover_busy(s: Services, t: Tournament, pairing: Pairing) -> None:
    """A pairing whose game could not start because a player has another live game: that player loses it by
    walkover (white, if both are busy)."""
    busy = [u for u in pairing.players if await active_game(s.storage, u) is not None]
    loser = next((u for u in pairing.players if u in busy), pairing.players[0])
    winner = pairing.players[1] if loser == pairing.players[0] else pairing.players[0]
    log.info("tournament %s: game %s not started, %s is busy: walkover", t.id, pairing.game, loser)
    await change(s, t.id, lambda t: t.record(pairing.game, winner, True).step(s.clock(), new_id))
