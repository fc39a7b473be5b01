"""A user's settings (/settings): the language, whether a turn waits for ✅ Done, the board's colours.

Kept in Redis per user (storage: `nardy:user:<id>:settings`, a hash living 365 days after its last read or
change, deleted by /forget) and cached in each bot process for CACHE_SECONDS, so that an update costs no
Redis read for a user seen a moment ago. The worker that saves a change sees it at once; another worker
(webhook mode) sees it within CACHE_SECONDS.

Where they apply:
- language: every text the bot sends that user (the guards in bot/telegram/handlers/common.py choose it for the
  update being handled), and their private boards, whose language is resolved when they are drawn
  (bot/telegram/boards.py), so a change reaches the games in progress;
- confirm: whether the turn of a game waits for ✅ Done after the last die ("auto": it waits in private
  chats, not in groups, where every edit counts against Telegram's 20 messages a minute); read when the
  player on turn presses, so the player's own setting applies to their turn;
- theme: the colours of the player's private boards, resolved when drawn (group boards stay light: the
  board is everyone's);
- seed: the player's own seed for the dice (/seed), taken when a game of theirs starts;
- top: "hidden" leaves the player out of the global leaderboards (/top in private; bot/storage/results.py reads the
  field when it records a result, and stats.set_hidden changes it together with the boards); their groups'
  boards still show them."""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from bot.i18n import LANGUAGES, language_of
from bot.storage import Storage
from engine.fair_dice import CLIENT_SEED, check_client_seed
from render.theme import DEFAULT_THEME, THEMES

log = logging.getLogger(__name__)

CACHE_SECONDS = 60.0  # how long a process trusts the settings it read (another worker's change: this late)
CACHE_SIZE = 50_000  # users' settings kept per process (past it, the expired ones go, then the oldest)

AUTO = "auto"
CHOICES: dict[str, tuple[str, ...]] = {
    "lang": (AUTO, *LANGUAGES),
    "confirm": (AUTO, "on", "off"),
    "theme": THEMES,
    "top": ("shown", "hidden"),
}


@dataclass(frozen=True)
class Settings:
    """One user's choices; the defaults are what a user who never opened /settings gets."""

    lang: str = AUTO  # "auto": Telegram's language of the user, else one of i18n.LANGUAGES
    confirm: str = (
        AUTO  # "on": a turn waits for ✅ Done; "off": it ends with the last die; "auto": see confirms
    )
    theme: str = DEFAULT_THEME  # the colours of the user's private boards (render.theme.THEMES)
    seed: str = ""  # the user's own seed for the dice of their next games (/seed); "": a random one each game
    top: str = (
        "shown"  # "hidden": left out of the global leaderboards (the results' scripts read this field too)
    )

    def language(self, telegram: str | None) -> str:
        """The language to speak to the user: the chosen one, else Telegram's (`telegram`: its code)."""
        return self.lang if self.lang != AUTO else language_of(telegram)

    def confirms(self, mode: str) -> bool:
        """Whether this player's turn in a game of `mode` waits for ✅ Done once every die is played.
        Auto: yes, except in group games (where the Done step would cost the group one more edit)."""
        if self.confirm == AUTO:
            return mode != "group"
        return self.confirm == "on"

    def chosen(self, setting: str, choice: str) -> Settings:
        """These settings with `setting` set to `choice` (ValueError for anything not in CHOICES)."""
        if choice not in CHOICES.get(setting, ()):
            raise ValueError(f"{choice!r} is not a choice of setting {setting!r}")
        return replace(self, **{setting: choice})

    def to_fields(self) -> dict[str, str]:
        return {
            "lang": self.lang,
            "confirm": self.confirm,
            "theme": self.theme,
            "seed": self.seed,
            "top": self.top,
        }

    @classmethod
    def from_fields(cls, fields: dict[str, str]) -> Settings:
        """Settings from a stored hash; a field missing or holding an unknown value has its default."""
        found = cls()
        for setting, choices in CHOICES.items():
            value = fields.get(setting)
            if value in choices:
                found = replace(found, **{setting: value})
        seed = fields.get("seed", "")
        if seed and CLIENT_SEED.fullmatch(seed):
            found = replace(found, seed=seed)
        return found


class SettingsCache:
    """The settings this process read or changed lately, each trusted for `seconds`."""

    def __init__(
        self,
        storage: Storage,
        seconds: float = CACHE_SECONDS,
        size: int = CACHE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.storage = storage
        self.seconds = seconds
        self.size = size
        self._clock = clock
        self._known: dict[int, tuple[Settings, float]] = {}  # user id -> (settings, when read), oldest first
        self.reads = 0  # Redis reads made (tests, benchmarks)

    def peek(self, user_id: int) -> Settings | None:
        """The settings known for `user_id` if still fresh; no Redis read."""
        found = self._known.get(user_id)
        if found is None or self._clock() - found[1] >= self.seconds:
            return None
        return found[0]

    async def get(self, user_id: int) -> Settings:
        """The user's settings: from this process if read in the last `seconds`, else from Redis (which
        keeps them another 365 days). StorageError if Redis cannot be reached."""
        found = self.peek(user_id)
        if found is not None:
            return found
        self.reads += 1
        settings = Settings.from_fields(await self.storage.users.settings(user_id))
        self._remember(user_id, settings)
        return settings

    async def choose(self, user_id: int, setting: str, choice: str) -> Settings:
        """Save one choice (ValueError for an unknown one); this process sees it at once."""
        settings = (await self.get(user_id)).chosen(setting, choice)
        await self.storage.users.set_setting(user_id, setting, choice)
        self._remember(user_id, settings)
        return settings

    async def choose_seed(self, user_id: int, seed: str) -> Settings:
        """Save the user's own dice seed ("": a random one each game; FairDiceError for a malformed one)."""
        if seed:
            check_client_seed(seed)
        settings = replace(await self.get(user_id), seed=seed)
        await self.storage.users.set_setting(user_id, "seed", seed)
        self._remember(user_id, settings)
        return settings

    def forget(self, user_id: int) -> None:
        """Drop what this process knows of the user (their settings were deleted)."""
        self._known.pop(user_id, None)

    def _remember(self, user_id: int, settings: Settings) -> None:
        now = self._clock()
        self._known.pop(user_id, None)  # re-inserted last: the entries stay in the order they were read
        self._known[user_id] = (settings, now)
        if len(self._known) > self.size:
            for uid in [u for u, (_, at) in self._known.items() if now - at >= self.seconds]:
                del self._known[uid]
            while len(self._known) > self.size:
                del self._known[next(iter(self._known))]


# The settings of the user whose update is being handled (set by the guards in bot/telegram/handlers/common.py):
# texts and Persons made for that user while the update is handled use them.
_current: contextvars.ContextVar[tuple[int, Settings] | None] = contextvars.ContextVar(
    "nardy_settings", default=None
)


def current(user_id: int) -> Settings | None:
    """The settings of `user_id` if they are the settings of the update being handled."""
    found = _current.get()
    return found[1] if found is not None and found[0] == user_id else None


@contextlib.contextmanager
def choosing(user_id: int | None, settings: Settings | None) -> Iterator[None]:
    """While handling an update of `user_id`: `current(user_id)` gives `settings` (None: nothing set)."""
    if user_id is None or settings is None:
        yield
        return
    token = _current.set((user_id, settings))
    try:
        yield
    finally:
        _current.reset(token)
