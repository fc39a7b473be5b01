"""Provably fair dice: every roll of a game derived from a committed secret and the players' seeds.

Pure and deterministic: the bot draws the server seed from the operating system's CSPRNG and passes it in;
nothing here is random. The algorithm (docs/fairness.md; `scripts/verify_dice.py` is the
same thing in plain Python for anyone to run):

- server seed: 32 bytes, written as 64 lower-case hex digits; commitment = SHA-256(server seed bytes), hex.
  It is made of two parts, one per side, each 32 bytes from the CSPRNG: server seed = SHA-256(white's part
  bytes + black's part bytes). A person's part is drawn before their game and its SHA-256 shown to them by
  /seed, so that they can choose their own seed after the bot is bound to its secret.
- client seeds: one per side, white's then black's, each 1-32 characters of `A-Z a-z 0-9 _ -`.
- roll n (0, 1, 2, ... in the order the game rolls: the opening roll and each re-roll of a tie count as
  rolls, its first die white's and its second black's) of game `game` (the bot's game id, "/", the game's
  number in its series): for k = 0, 1, 2, ..., the block HMAC-SHA256(key = server seed bytes,
  message = ASCII "{game}:{n}:{white seed}:{black seed}:{k}"); its 32 bytes are read in order, a byte
  b < 252 gives the die b % 6 + 1 and a byte >= 252 is skipped (252 = 6 x 42: each face then has exactly
  42 of the 252 accepted byte values, so no face is favoured); the first two dice read are the roll.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from collections.abc import Iterator
from dataclasses import dataclass

from engine.game import Game, Phase

SEED_BYTES = 32
ACCEPT_BELOW = 252  # the largest multiple of 6 not above 256: bytes from here up are skipped
CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{1,32}")


class FairDiceError(ValueError):
    """A seed or commitment that is not well formed."""


@functools.lru_cache(maxsize=4096)
def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's bytes, hex: what is shown before the game, to check the seed after."""
    return hashlib.sha256(_seed_bytes(server_seed)).hexdigest()


@functools.lru_cache(maxsize=4096)
def combine(parts: tuple[str, str]) -> str:
    """The server seed made of the two sides' parts: SHA-256 of white's 32 bytes then black's, hex."""
    return hashlib.sha256(_seed_bytes(parts[0]) + _seed_bytes(parts[1])).hexdigest()


def check_client_seed(seed: str) -> str:
    """`seed` if it is a valid client seed, else FairDiceError saying why."""
    if not CLIENT_SEED.fullmatch(seed):
        raise FairDiceError(f"client seed {seed!r} must be 1-32 characters of A-Z, a-z, 0-9, _ and -")
    return seed


def _seed_bytes(server_seed: str) -> bytes:
    if not re.fullmatch(r"[0-9a-f]{64}", server_seed):
        raise FairDiceError(f"server seed must be {SEED_BYTES * 2} lower-case hex digits")
    return bytes.fromhex(server_seed)


def _dice(key: bytes, message: str) -> Iterator[int]:
    for block in range(1_000_000):  # a block yields no die with probability (4/256)^32: never in practice
        digest = hmac.new(key, f"{message}:{block}".encode("ascii"), hashlib.sha256).digest()
        for byte in digest:
            if byte < ACCEPT_BELOW:
                yield byte % 6 + 1
    raise AssertionError("unreachable: a million HMAC blocks without an accepted byte")


def fair_roll(server_seed: str, game: str, n: int, clients: tuple[str, str]) -> tuple[int, int]:
    """Roll number `n` (from 0) of game `game`: two dice, in the order (first, second)."""
    if n < 0:
        raise FairDiceError(f"roll number {n} is negative")
    for seed in clients:
        check_client_seed(seed)
    dice = _dice(_seed_bytes(server_seed), f"{game}:{n}:{clients[0]}:{clients[1]}")
    return next(dice), next(dice)


@dataclass(frozen=True, slots=True)
class FairSeeds:
    """What a game's dice are derived from: the secret seed (revealed at the end), the players' seeds, the
    game's name in the derivation, and how many rolls were made so far."""

    server_seed: str
    clients: tuple[str, str]  # white's, black's
    game: str  # "<game id>/<number in the series>"
    rolls: int = 0
    parts: tuple[str, str] | None = None  # the secret's parts (white's, black's); None: drawn whole

    def __post_init__(self) -> None:
        _seed_bytes(self.server_seed)
        for seed in self.clients:
            check_client_seed(seed)
        if self.parts is not None and combine(self.parts) != self.server_seed:
            raise FairDiceError("the server seed is not made of its parts")

    def __repr__(self) -> str:  # never print the secret by accident (a log line, a failed assertion)
        return (
            f"FairSeeds(commitment={self.commitment[:16]}…, clients={self.clients}, game={self.game!r}, "
            f"rolls={self.rolls})"
        )

    @classmethod
    def of_parts(cls, parts: tuple[str, str], clients: tuple[str, str], game: str) -> FairSeeds:
        return cls(combine(parts), clients, game, parts=parts)

    @property
    def commitment(self) -> str:
        return commitment(self.server_seed)

    def roll(self, n: int) -> tuple[int, int]:
        return fair_roll(self.server_seed, self.game, n, self.clients)

    def rolled(self) -> list[tuple[int, int]]:
        """Every roll made so far, as the derivation gives them."""
        return [self.roll(n) for n in range(self.rolls)]

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "seed": self.server_seed,
            "clients": list(self.clients),
            "game": self.game,
            "rolls": self.rolls,
        }
        if self.parts is not None:
            found["parts"] = list(self.parts)
        return found

    @classmethod
    def from_json(cls, d: dict[str, object]) -> FairSeeds:
        clients, parts = d["clients"], d.get("parts")
        assert isinstance(clients, list) and len(clients) == 2
        rolls = d.get("rolls", 0)
        assert isinstance(rolls, int)
        pair = (str(parts[0]), str(parts[1])) if isinstance(parts, list) and len(parts) == 2 else None
        return cls(str(d["seed"]), (str(clients[0]), str(clients[1])), str(d["game"]), rolls, pair)


def recorded_rolls(game: Game) -> list[tuple[int, int]]:
    """The rolls a game's record shows, in the order they were made: each opening roll (white's die, then
    black's), then each turn's dice, the turn being played included (without the first turn's when the
    opening dice are its dice). A roll made and not played (the game resigned after it) is not in it."""
    rolls = [(a, b) for a, b in game.opening_rolls]
    turns = [(t.dice.a, t.dice.b) for t in game.history]
    if game.phase is Phase.MOVE and game.dice is not None:
        turns.append((game.dice.a, game.dice.b))
    if game.starter is None and game.rules.opening_dice_are_first_roll and game.opening_rolls and turns:
        turns = turns[1:]
    return rolls + turns


@dataclass(frozen=True, slots=True)
class Verdict:
    """The check of a game's dice against its seeds."""

    commitment_ok: bool  # SHA-256 of the revealed seed is the commitment shown
    rolls: tuple[tuple[int, int], ...]  # the rolls of the record
    derived: tuple[tuple[int, int], ...]  # the rolls the seeds give (as many as the bot made)
    first_mismatch: int | None  # the first roll where the two differ, None if none

    @property
    def ok(self) -> bool:
        return (
            self.commitment_ok
            and self.first_mismatch is None
            and 0 <= len(self.derived) - len(self.rolls) <= 1  # one more: rolled, then resigned or claimed
        )


def verify(
    server_seed: str, shown_commitment: str, seeds: FairSeeds, rolls: list[tuple[int, int]]
) -> Verdict:
    """Check a revealed `server_seed` against the commitment shown and the game's recorded `rolls`."""
    derived = tuple(
        fair_roll(server_seed, seeds.game, n, seeds.clients) for n in range(max(seeds.rolls, len(rolls)))
    )
    mismatch = next((n for n, roll in enumerate(rolls) if derived[n] != roll), None)
    return Verdict(
        commitment(server_seed) == shown_commitment, tuple(rolls), derived[: seeds.rolls], mismatch
    )
