"""A game's records as the service gives them: a game named by its id ("GAME" or "GAME/N", as a board's last
line writes it; a typed id is checked before Redis is asked), who may have a game's record, and the record
as a file (GNU Backgammon's .mat for short nardy, text, JSON: engine/records/). Verifying a game's dice is
the fronts' reading of the same named game (engine/fair_dice.py does the checking)."""

from __future__ import annotations

import re

from bot.i18n import N_, Texts
from bot.model import flow
from bot.model.flow import Refused
from bot.model.table import Table
from bot.service.context import Services
from bot.storage import Storage
from bot.views.captions import names
from engine import Game
from engine.records import match_to_mat, match_to_text, to_json, to_mat, to_text

KINDS = ("mat", "txt", "json")
MAT_SHORT_ONLY = N_("GNU Backgammon's .mat files are for short nardy only: use txt or json.")
PLAYERS_ONLY = N_("This game's record is for its players only.")
UNKNOWN_GAME = N_("I know no game {game}: games are kept 7 days after they end.")


GAME_NAME = re.compile(r"([A-Za-z0-9_-]{1,32})(?:/([1-9][0-9]{0,5}))?")  # a game id (new_id), "/N"


async def named_game(storage: Storage, name: str) -> tuple[Table, int]:
    """The game a command names, "GAME/N" (N: its number in the series) or "GAME" (the series' current
    game), as its board's last line writes it: (table, number). Refused if no such game is kept; a name
    that is no game id (another alphabet, too long: typed, never shown by the bot) is refused before Redis
    is asked."""
    found = GAME_NAME.fullmatch(name)
    table = await storage.games.load(found[1]) if found else None
    if found is None or table is None:
        raise Refused(UNKNOWN_GAME, game=name[:40])
    return table, int(found[2]) if found[2] else table.number


def record_file(t: Texts, table: Table, game: Game, number: int, kind: str) -> tuple[bytes, str]:
    """The game's record as a file: (bytes, file name). `kind`: mat (short nardy), txt or json."""
    white, black = names(t, table)
    if kind in ("mat", "txt") and table.match.is_match and table.over and number == table.number:
        # the last game of a match: the whole match, every game in one file
        if kind == "mat" and game.game != "short":
            raise Refused(MAT_SHORT_ONLY)
        write = match_to_mat if kind == "mat" else match_to_text
        text = write(table.match, None, white=white, black=black)
        return text.encode("utf-8"), f"nardy-{game.game}-{table.id}-match.{kind}"
    if kind == "mat":
        if game.game != "short":
            raise Refused(MAT_SHORT_ONLY)
        text = to_mat(game, white=white, black=black)
    elif kind == "txt":
        text = to_text(game, white=white, black=black)
    else:
        text = to_json(game, white=white, black=black)
    return text.encode("utf-8"), f"nardy-{game.game}-{table.id}-{number}.{kind}"


def default_kind(game: Game) -> str:
    """What the Record button sends: GNU Backgammon's .mat for short nardy, the text record for long."""
    return "mat" if game.game == "short" else "txt"


def may_see(table: Table, user_id: int) -> None:
    """A group's game is the group's: anyone there may have its files. Any other game (two private
    chats, an inline message) is its players' only."""
    if table.mode != "group" and table.side_of(user_id) is None:
        raise Refused(PLAYERS_ONLY)


async def export(
    s: Services, t: Texts, name: str, user_id: int, kind: str | None = None
) -> tuple[Table, Game, int, bytes, str]:
    """The record of the game `name` ("GAME/N") for `user_id` (a game not of a group: its players only),
    as `kind` (by default .mat for short nardy, text for long): (table, game, number, bytes, file name)."""
    table, number = await named_game(s.storage, name)
    game = flow.finished_game(table, number)
    may_see(table, user_id)
    data, filename = record_file(t, table, game, number, kind or default_kind(game))
    return table, game, number, data, filename
