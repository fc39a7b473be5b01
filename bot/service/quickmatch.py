"""Quick match as service operations: look for a stranger to play, stop looking, end the searches that waited
too long. Any front calls these (the Telegram front's 🎲 Find an opponent, /cancel, /forget and its sweeper;
the Mini App next); each front hears how a search went through `Services.searched` and shows it its own way.

The search lives in Redis (bot/storage/rooms.py): a sorted set per game format of the users looking, scored by
when they began, and each one's search record (Seeker: format, waiting message, name, language, since, token).
A look pairs in two atomic steps, neither of which can lose anyone:
1. one script (RoomStore.seek, bot/storage/lua/seek.lua) reads the queue, oldest first, dropping entries whose
   search ended and seekers who started another game meanwhile (they are told); the first live seeker is the
   partner, left in the queue; with nobody there the presser is queued in that same step, so of two people
   pressing at once the second always finds the first (a queue never holds two live seekers);
2. the game is created by the one save script (RoomStore.start_from_seek), which consumes the partner's search
   record: Gone when that search ended first (paired with someone else, stopped, timed out), and the presser
   looks again; ChatBusy when one of the two started another game (the presser is refused, or the partner's
   search ends and they are told, and the presser looks again).
Nobody leaves a queue except in the step that ends their search; a player is in one live game at most (the
chat pointers of the save script). The game is an ordinary game of two private chats (mode "match").

Every worker sweeps (end_expired): one script takes each search that waited `Services.seek_timeout` seconds
out of every format's queue (bot/model/game_format.py GameFormat.every), so exactly one worker tells its
player. The queue's scores are join times, so a restart loses no wait and ends none early."""

from __future__ import annotations

from bot.i18n import N_
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Seeker, Table
from bot.service.context import SearchNews, Services, game_seeds
from bot.service.starts import GAME_ON, active_game
from bot.storage import ChatBusy, Gone, VersionConflict
from bot.storage.keys import SEEK_GRACE

MODE = "match"  # a quick match's game mode
MAX_TRIES = 50  # looks of one press: each failed one means another press was paired meanwhile

ALREADY_PAIRED = N_("An opponent has already been found: your game is on.")
ALREADY_SEEKING = N_("You are already looking for an opponent. Wait for one, or press Stop searching.")
SEARCH_OVER = N_("This search is over. Send /newgame to play.")
TOO_MANY = N_("Many players are looking right now. Press again, please.")


async def find_opponent(s: Services, me: Seeker) -> Table | None:
    """Pair `me` with the longest-waiting live seeker of their format: the game is created, both seekers hear
    "found" and the fronts are shown the game (returned); or queue `me` (None). Refused when they have a live
    game or are looking already, or when MAX_TRIES looks all lost their partner to other presses."""
    uid = me.person.user_id
    for _ in range(MAX_TRIES):
        outcome = await s.storage.rooms.seek(me, s.seek_timeout + SEEK_GRACE)
        for dropped in outcome.dropped:
            s.searched(SearchNews("busy", dropped))
        if outcome.kind == "busy":
            raise Refused(GAME_ON)
        if outcome.kind == "seeking":
            raise Refused(ALREADY_SEEKING)
        if outcome.kind == "queued":
            return None
        partner = outcome.other
        assert partner is not None
        table = await flow.start_table(
            flow.new_game_id(),
            MODE,
            me.game,
            partner.person,
            me.person,
            partner.person.lang,
            s.dice,
            s.computer,
            seeds=await game_seeds(s, partner.person, me.person),
        )
        table = s.stamped(table)
        try:
            await s.storage.rooms.start_from_seek(partner, table)
        except (Gone, VersionConflict):  # their search ended first (or, never seen, the id was taken)
            continue
        except ChatBusy:
            if await active_game(s.storage, uid) is not None:
                raise Refused(GAME_ON) from None  # the partner was not touched: they wait on
            if await active_game(s.storage, partner.person.user_id) is not None:
                ended = await s.storage.rooms.stop_seek(partner.person.user_id, partner.token)
                if ended is not None:
                    s.searched(SearchNews("busy", ended))
            continue
        s.searched(SearchNews("found", partner, table))
        s.searched(SearchNews("found", me, table))
        s.changed(table)
        return table
    raise Refused(TOO_MANY)


async def stop(s: Services, user_id: int, token: str) -> Seeker:
    """Stop searching, pressed on the search `token`: it ends and is returned (the front that pressed says so;
    no news is sent). Refused if it ended first: paired (ALREADY_PAIRED) or over (SEARCH_OVER)."""
    ended = await s.storage.rooms.stop_seek(user_id, token)
    if ended is None:
        table = await active_game(s.storage, user_id)
        if table is not None and table.mode == MODE:
            raise Refused(ALREADY_PAIRED)
        raise Refused(SEARCH_OVER)
    return ended


async def stop_any(s: Services, user_id: int) -> bool:
    """/cancel, /forget: the user's search, whichever it is, ends (news "stopped"). True if there was one."""
    ended = await s.storage.rooms.stop_seek(user_id)
    if ended is None:
        return False
    s.searched(SearchNews("stopped", ended))
    return True


async def end_expired(s: Services, limit: int = 100) -> int:
    """End the searches that began `s.seek_timeout` seconds ago or earlier (at most `limit` per format), in
    every format's queue: each one's player hears "timed_out" (or "busy" if they started a game meanwhile)
    from exactly one worker. Returns how many this call ended."""
    expired = await s.storage.rooms.expire_seekers(s.clock() - s.seek_timeout, limit)
    for seeker, game_id in expired:
        s.searched(SearchNews("timed_out" if game_id is None else "busy", seeker))
    return len(expired)
