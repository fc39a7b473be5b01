"""The bot's record of one game ("table"): the engine's Game plus players, chats, turn-in-progress, version.

A table is an immutable value; every change makes a new one with `version + 1`, and storage accepts
it only if the stored version is the one it was made from (compare-and-set)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from bot.model.clock import Clock
from engine import Game, Match, Move, NardyError, Phase, Side, TurnStep
from engine.fair_dice import FairSeeds

FORMAT = 1
MODES = ("group", "friend", "computer", "inline", "match")  # match: a quick match, two private chats
FORGOTTEN_ID = 0  # the user id of a person who asked the bot to delete their data (no Telegram user has 0)


def new_id(nbytes: int = 7) -> str:
    """A short random id for a game, a lobby or an invite (URL-safe, no ':')."""
    return secrets.token_urlsafe(nbytes)


@dataclass(frozen=True)
class Person:
    """A human (or the computer, user_id 0 with a level) as the bot knows them."""

    user_id: int
    name: str
    lang: str = "en"
    level: str | None = None  # the computer's level; None for people

    @property
    def is_computer(self) -> bool:
        return self.level is not None

    @property
    def forgotten(self) -> bool:
        """A person whose data was deleted on request (/forget): no id, no name, no chat."""
        return self.user_id == FORGOTTEN_ID and self.level is None

    @property
    def reachable(self) -> bool:
        """A person with a private chat the bot writes to (not the computer, not forgotten)."""
        return not self.is_computer and not self.forgotten

    def anonymised(self) -> Person:
        """This person with the id and the name removed (the language of their board is kept)."""
        return Person(FORGOTTEN_ID, "", self.lang)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.user_id, "name": self.name, "lang": self.lang}
        if self.level is not None:
            out["level"] = self.level
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Person:
        return cls(int(d["id"]), str(d["name"]), str(d.get("lang", "en")), d.get("level"))


@dataclass(frozen=True)
class Target:
    """One message that shows the board: a group's shared message, or a player's private board."""

    key: str  # "g" (group), "w"/"b" (a player's private chat), "i" (an inline message, in any chat)
    chat_id: int  # 0 for an inline message (the bot may not be in its chat)
    lang: str
    viewer: Side | None  # None: the side on turn (a group board follows the mover)
    inline_id: str | None = None  # the inline message's id (Telegram's inline_message_id)
    theme: str = "light"  # the picture's colours (render.theme.THEMES): a private board's player's choice


@dataclass(frozen=True)
class TourneyGame:
    """Which tournament a game belongs to: its id, its round (a knockout's, from 1; 0 in an arena), its name for
    the board's caption, and the group card's link (None: the group has no public link)."""

    id: str
    round: int = 0
    name: str = ""
    link: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "round": self.round, "name": self.name, "link": self.link}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TourneyGame:
        return cls(str(d["id"]), int(d.get("round", 0)), str(d.get("name", "")), d.get("link"))


@dataclass(frozen=True)
class Table:
    """One game (and its series of rematches) as the bot stores it."""

    id: str
    mode: str  # "group" | "friend" | "computer"
    game: Game
    players: tuple[Person, Person]  # index = Side (WHITE, BLACK)
    lang: str  # the language of a group's shared message (the starter's)
    chat_id: int | None = None  # the group chat (mode "group")
    title: str | None = None  # the group's title when the game started (turn reminders name the group)
    inline_id: str | None = None  # the inline message the game is played in (mode "inline")
    version: int = 1
    moves: tuple[tuple[int, int], ...] = ()  # (src, die) of the single moves made this turn
    events: tuple[dict[str, Any], ...] = ()  # what happened since the last decision of a person
    number: int = 1  # game number within the series (rematches and a match's games), from 1
    match: Match = field(
        default_factory=Match
    )  # a single game (and its rematches' running score) or a match to N
    moved_at: float | None = None  # unix time of the last change (the bot's clock); None: unknown
    fair: FairSeeds | None = None  # the seeds this game's dice derive from (None: a game from before)
    proof: dict[str, Any] | None = None  # the previous game of the series, verifiable: see fair_proof
    proofs: tuple[dict[str, Any], ...] = ()  # the dice proofs (fair_proof) of this match's earlier games
    clock: Clock | None = None  # a live game's clock (bot/model/clock.py); None: no time control
    tournament: TourneyGame | None = None  # the tournament this game belongs to (bot/model/tournament.py)
    messages: dict[str, int] = field(default_factory=dict, compare=False)  # target key -> message id
    shown: dict[str, int] = field(default_factory=dict, compare=False)  # target key -> version it shows
    rated: tuple[tuple[float, float] | None, tuple[float, float] | None] | None = field(
        default=None, compare=False
    )  # not stored: the ratings (before, after) of white and black, read for a finished rated game's board
    ended: tuple[dict[str, Any], ...] = field(default=(), compare=False)  # games this change ended (not
    # stored: the save records them in players' statistics and ratings, bot/storage/results.py, in the same step)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"table {self.id}: mode {self.mode!r} is not one of {MODES}")

    @property
    def score(self) -> tuple[int, int]:
        """The points (white, black) of the match, or of the series of single games."""
        return self.match.score

    @property
    def match_over(self) -> bool:
        """A match to N that is over (a single game's series never is)."""
        return self.match.over

    # ------------------------------------------------------------------ who and where

    def side_of(self, user_id: int) -> Side | None:
        """The side `user_id` plays, or None for a spectator."""
        for side in (Side.WHITE, Side.BLACK):
            p = self.players[side]
            if p.reachable and p.user_id == user_id:
                return side
        return None

    @property
    def over(self) -> bool:
        return self.game.phase is Phase.OVER

    @property
    def changes_ratings(self) -> bool:
        """Whether this game's match changes ratings when it ends: two different people play it (as
        bot/model/stats.py rates a match). Such a game offers no hint."""
        white, black = self.players
        return white.reachable and black.reachable and white.user_id != black.user_id

    @property
    def chats(self) -> tuple[int, ...]:
        """The chats whose current game this table is (an inline game is nobody's: a player may have several)."""
        if self.mode == "inline":
            return ()
        if self.mode == "group":
            assert self.chat_id is not None
            return (self.chat_id,)
        return tuple(p.user_id for p in self.players if p.reachable)

    def board_of(self, chat_id: int, message_id: int) -> Target | None:
        """The board whose current message is `message_id` in `chat_id`, or None (an older message)."""
        if self.mode == "inline":
            return None
        for target in self.targets:
            if target.chat_id == chat_id and self.messages.get(target.key) == message_id:
                return target
        return None

    @property
    def waiting_for(self) -> Side | None:
        """The side whose person must decide now in a game against another person (both players people
        the bot can reach, whatever the mode), else None: who a turn reminder may nudge."""
        if self.over or self.game.phase not in (Phase.MOVE, Phase.ROLL, Phase.CUBE):
            return None
        if not all(p.reachable for p in self.players):
            return None
        return self.game.deciding

    def behind(self, target: Target) -> bool:
        """Whether `target`'s message may show an older version than this table's (not known shown)."""
        return self.shown.get(target.key, -1) < self.version

    def board_of_inline(self, inline_id: str | None) -> Target | None:
        """The board shown in the inline message `inline_id`, if it is this game's."""
        if inline_id is None or inline_id != self.inline_id:
            return None
        return self.targets[0]

    @property
    def targets(self) -> tuple[Target, ...]:
        if self.mode == "inline":
            assert self.inline_id is not None
            return (Target("i", 0, self.lang, None, self.inline_id),)
        if self.mode == "group":
            assert self.chat_id is not None
            return (Target("g", self.chat_id, self.lang, None),)
        return tuple(
            Target("wb"[side], p.user_id, p.lang, Side(side))
            for side, p in enumerate(self.players)
            if p.reachable
        )

    # ------------------------------------------------------------------ the turn in progress

    def step(self) -> TurnStep:
        """The move picker's state: the engine's TurnStep after the moves made this turn (cached)."""
        try:
            return self.game.turn_step(self.moves)
        except NardyError as err:
            raise ValueError(
                f"table {self.id} v{self.version}: stored moves {list(self.moves)}: {err}"
            ) from err

    def made_moves(self) -> tuple[Move, ...]:
        """The moves made this turn as engine Moves, replayed from their (src, die) pairs."""
        return self.step().moves_made

    def bump(self, **changes: Any) -> Table:
        """The next version of this table with `changes` applied (messages are carried along)."""
        return replace(self, version=self.version + 1, **changes)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "id": self.id,
            "mode": self.mode,
            "version": self.version,
            "game": self.game.to_json(),
            "players": [p.to_json() for p in self.players],
            "lang": self.lang,
            "chat_id": self.chat_id,
            **({"title": self.title} if self.title is not None else {}),
            "inline_id": self.inline_id,
            "moves": [list(m) for m in self.moves],
            "events": list(self.events),
            "number": self.number,
            "score": list(self.score),
            "match": self.match.to_json(),
            "moved_at": self.moved_at,
            **({"fair": self.fair.to_json()} if self.fair is not None else {}),
            **({"proof": self.proof} if self.proof is not None else {}),
            **({"proofs": list(self.proofs)} if self.proofs else {}),
            **({"clock": self.clock.to_json()} if self.clock is not None else {}),
            **({"tournament": self.tournament.to_json()} if self.tournament is not None else {}),
        }

    @classmethod
    def from_json(
        cls, d: dict[str, Any], messages: dict[str, int] | None = None, shown: dict[str, int] | None = None
    ) -> Table:
        if d.get("format") != FORMAT:
            raise ValueError(f"table {d.get('id')!r}: unknown record format {d.get('format')!r}")
        white, black = (Person.from_json(p) for p in d["players"])
        return cls(
            id=str(d["id"]),
            mode=str(d["mode"]),
            game=Game.from_json(d["game"]),
            players=(white, black),
            lang=str(d["lang"]),
            chat_id=d.get("chat_id"),
            title=d.get("title"),
            inline_id=d.get("inline_id"),
            version=int(d["version"]),
            moves=tuple((int(a), int(b)) for a, b in d.get("moves", [])),
            events=tuple(d.get("events", [])),
            number=int(d.get("number", 1)),
            match=Match.from_json(d["match"])
            if d.get("match")
            else Match(score=(int(d["score"][0]), int(d["score"][1])) if "score" in d else (0, 0)),
            moved_at=None if d.get("moved_at") is None else float(d["moved_at"]),
            fair=FairSeeds.from_json(d["fair"]) if d.get("fair") else None,
            proof=d.get("proof"),
            proofs=tuple(d.get("proofs", ())),
            clock=Clock.from_json(d["clock"]) if d.get("clock") else None,
            tournament=TourneyGame.from_json(d["tournament"]) if d.get("tournament") else None,
            messages=dict(messages or {}),
            shown=dict(shown or {}),
        )


@dataclass(frozen=True)
class Lobby:
    """A group's open invitation: the starter waits for someone to press Join."""

    id: str  # becomes the game id
    chat_id: int
    game: str  # "short" | "long"
    starter: Person
    message_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "chat_id": self.chat_id,
            "game": self.game,
            "starter": self.starter.to_json(),
            "message_id": self.message_id,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Lobby:
        return cls(
            str(d["id"]),
            int(d["chat_id"]),
            str(d["game"]),
            Person.from_json(d["starter"]),
            d.get("message_id"),
        )


@dataclass(frozen=True)
class Invite:
    """A private-chat invitation to a friend, redeemed once through t.me/<bot>?start=<token>."""

    token: str
    game: str
    starter: Person
    message_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "game": self.game,
            "starter": self.starter.to_json(),
            "message_id": self.message_id,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Invite:
        return cls(str(d["token"]), str(d["game"]), Person.from_json(d["starter"]), d.get("message_id"))


@dataclass(frozen=True)
class Challenge:
    """A challenge posted from inline mode (`@bot` in any chat): the first other person (or only
    `target`, a username) to press Accept plays it, in that inline message."""

    token: str
    game: str  # "short" | "long"
    challenger: Person
    target: str | None = None  # a username (lower case, no "@") who alone may accept

    def to_json(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "game": self.game,
            "challenger": self.challenger.to_json(),
            "target": self.target,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Challenge:
        return cls(str(d["token"]), str(d["game"]), Person.from_json(d["challenger"]), d.get("target"))


@dataclass(frozen=True)
class Seeker:
    """A player looking for a quick-match opponent (`/newgame` → 🎲 Find an opponent) in their private chat.

    Ratings (the match and ratings issue) are not here yet: when they exist, the player's rating travels in
    this record, and the pairing script (bot/storage/lua/seek.lua) compares it."""

    person: Person
    game: str  # "short" | "long"
    since: float  # unix time the search began (its score in the variant's queue)
    token: str  # this search's id: Stop searching on an older waiting message does not stop a newer search
    message_id: int | None = None  # the waiting message in the player's private chat, edited when it ends

    def to_json(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "game": self.game,
            "person": self.person.to_json(),
            "since": self.since,
            "message_id": self.message_id,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Seeker:
        return cls(
            Person.from_json(d["person"]),
            str(d["game"]),
            float(d["since"]),
            str(d["token"]),
            d.get("message_id"),
        )
