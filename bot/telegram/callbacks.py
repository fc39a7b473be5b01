"""Callback data: short routed strings (<= 64 bytes) carrying the game id and the state version.

  m:<game>:<version>:<src>:<die>   a single move          u:<game>:<version>  undo
  mm:<game>:<version>:<src>:<die>:<then>  one checker moved twice: by <die>, then on from there by <then>
  d:<game>:<version>               done                   r:<game>:<version>  rematch
  ry:<game>:<number>:<user> / rn:  resign yes / no (only the user who asked)
  v:<user>:<variant>               new game: variant      o:<user>:<variant>:c|f  opponent: computer / friend
  l:<user>:<variant>:<level>       computer level         j:<lobby> / x:<lobby>   join / cancel a group lobby
  xi:<token>                       withdraw an invitation
  c:<game>:<version>:<user>        claim the win from an idle opponent (only that user)
  fy:<user> / fn:<user>            delete my data: yes / no (only that user)
  s:<user>:<setting>:<choice>      /settings: lang auto|<i18n.LANGUAGES>, confirm auto|on|off, theme light|dark,
                                   top shown|hidden (only that user)
  qm:<user>:<variant>              quick match: find an opponent (only that user)
  qs:<user>:<token>                quick match: stop searching (only that user; that search only)
  ia:<token> / ix:<token>          accept / withdraw an inline challenge
  im:<game>:<version> / ib:...     an inline board's resign-or-claim menu / back to the board
  gx:<game>:<number> / gr:... / ga:...  a finished game: its record as a file / its replay / its analysis
  h:<game>:<version>               a hint for the player on turn (only that player)
  p:<game>:<version>:<src>.<die>-...  a whole play in one press: its single moves, 1 to 4 (<src>.<die> each)
  cr:<game>:<version> / cd:...     before rolling, with the cube: roll / double
  ct:<game>:<version> / cp:...     a double offered: take / pass
  rm:<game>:<number>:<user>        resign the whole match (only the user who asked)
  vc:<user>:<flags>                the new-game menu with the cube off ("-"), on ("c"), on with Jacoby ("cj"),
                                   and a clock: "l" live, "b" blitz after them ("l", "cb", "cjl")
  tn:<user>:<choice>               /tournament's menu, its choices so far: kind a|k, variant s|l, length 1|3,
                                   clock l|b, an arena's minutes (index 0-4), the start (index 0-4)
  tj:<id> / tl:<id> / ts:<id> / tx:<id>  a tournament's card: join / leave / start (its creator) / cancel
<variant> above is a game format (bot/model/game_format.py): short, long, short.5, short.5c, short.1cj, ...
Anything else is garbage; decode() raises BadCallback and the user gets a short alert."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.i18n import LANGUAGES
from bot.model.game_format import PATTERN as _FORMAT
from bot.model.game_format import BadFormat, GameFormat

MAX_BYTES = 64
_ID = r"[A-Za-z0-9_-]{1,24}"
_PATTERNS: dict[str, re.Pattern[str]] = {
    "m": re.compile(rf"^m:(?P<game>{_ID}):(?P<version>\d{{1,9}}):(?P<src>\d{{1,2}}):(?P<die>[1-6])$"),
    "mm": re.compile(
        rf"^mm:(?P<game>{_ID}):(?P<version>\d{{1,9}}):(?P<src>\d{{1,2}}):(?P<die>[1-6]):(?P<then>[1-6])$"
    ),
    "u": re.compile(rf"^u:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "d": re.compile(rf"^d:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "r": re.compile(rf"^r:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "ry": re.compile(rf"^ry:(?P<game>{_ID}):(?P<number>\d{{1,9}}):(?P<user>\d{{1,20}})$"),
    "rn": re.compile(rf"^rn:(?P<game>{_ID}):(?P<number>\d{{1,9}}):(?P<user>\d{{1,20}})$"),
    "v": re.compile(rf"^v:(?P<user>\d{{1,20}}):(?P<variant>{_FORMAT})$"),
    "vc": re.compile(r"^vc:(?P<user>\d{1,20}):(?P<choice>-|c|cj|l|b|cl|cb|cjl|cjb)$"),
    "o": re.compile(rf"^o:(?P<user>\d{{1,20}}):(?P<variant>{_FORMAT}):(?P<who>[cf])$"),
    "l": re.compile(rf"^l:(?P<user>\d{{1,20}}):(?P<variant>{_FORMAT}):(?P<level>[a-z]{{1,16}})$"),
    "j": re.compile(rf"^j:(?P<lobby>{_ID})$"),
    "x": re.compile(rf"^x:(?P<lobby>{_ID})$"),
    "xi": re.compile(rf"^xi:(?P<token>{_ID})$"),
    "ia": re.compile(rf"^ia:(?P<token>{_ID})$"),
    "ix": re.compile(rf"^ix:(?P<token>{_ID})$"),
    "im": re.compile(rf"^im:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "ib": re.compile(rf"^ib:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "c": re.compile(rf"^c:(?P<game>{_ID}):(?P<version>\d{{1,9}}):(?P<user>\d{{1,20}})$"),
    "fy": re.compile(r"^fy:(?P<user>\d{1,20})$"),
    "fn": re.compile(r"^fn:(?P<user>\d{1,20})$"),
    "s": re.compile(
        r"^s:(?P<user>\d{1,20}):(?P<setting>lang|confirm|theme|top)"
        r":(?P<choice>auto|on|off|light|dark|shown|hidden|" + "|".join(LANGUAGES) + r")$"
    ),
    "gx": re.compile(rf"^gx:(?P<game>{_ID}):(?P<number>\d{{1,9}})$"),
    "gr": re.compile(rf"^gr:(?P<game>{_ID}):(?P<number>\d{{1,9}})$"),
    "ga": re.compile(rf"^ga:(?P<game>{_ID}):(?P<number>\d{{1,9}})$"),
    "p": re.compile(
        rf"^p:(?P<game>{_ID}):(?P<version>\d{{1,9}}):(?P<moves>\d{{1,2}}\.[1-6](?:-\d{{1,2}}\.[1-6]){{0,3}})$"
    ),
    "h": re.compile(rf"^h:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "qm": re.compile(rf"^qm:(?P<user>\d{{1,20}}):(?P<variant>{_FORMAT})$"),
    "cr": re.compile(rf"^cr:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "cd": re.compile(rf"^cd:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "ct": re.compile(rf"^ct:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "cp": re.compile(rf"^cp:(?P<game>{_ID}):(?P<version>\d{{1,9}})$"),
    "rm": re.compile(rf"^rm:(?P<game>{_ID}):(?P<number>\d{{1,9}}):(?P<user>\d{{1,20}})$"),
    "qs": re.compile(rf"^qs:(?P<user>\d{{1,20}}):(?P<token>{_ID})$"),
    "tn": re.compile(r"^tn:(?P<user>\d{1,20}):(?P<choice>[ak](?:[sl](?:[13](?:[lb][0-4]{0,2})?)?)?)$"),
    "tj": re.compile(rf"^tj:(?P<token>{_ID})$"),
    "tl": re.compile(rf"^tl:(?P<token>{_ID})$"),
    "ts": re.compile(rf"^ts:(?P<token>{_ID})$"),
    "tx": re.compile(rf"^tx:(?P<token>{_ID})$"),
}
# the choices each setting of "s:" takes (bot/service/settings.py CHOICES; a test checks they agree)
SETTING_CHOICES: dict[str, tuple[str, ...]] = {
    "lang": ("auto", *LANGUAGES),
    "confirm": ("auto", "on", "off"),
    "theme": ("light", "dark"),
    "top": ("shown", "hidden"),
}
# the routing pattern for CallbackQueryHandler: every action this module knows
ROUTE = re.compile(r"^(" + "|".join(_PATTERNS) + r"):")


class BadCallback(ValueError):
    """Callback data that this bot never sends (forged, truncated, from another bot version)."""


@dataclass(frozen=True)
class Callback:
    action: str
    game: str = ""
    version: int = 0
    number: int = 0
    src: int = 0
    die: int = 0
    then: int = 0  # "mm": the die the same checker goes on with
    user: int = 0
    variant: str = ""
    who: str = ""
    level: str = ""
    lobby: str = ""
    token: str = ""
    setting: str = ""
    choice: str = ""
    moves: str = ""  # "p": the play's single moves, "<src>.<die>" joined by "-"

    @property
    def play_moves(self) -> tuple[tuple[int, int], ...]:
        """ "p": the play's single moves as (src, die) pairs."""
        return tuple((int(src), int(die)) for src, die in (m.split(".") for m in self.moves.split("-")))


def _checked(data: str) -> str:
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data {data!r} is longer than {MAX_BYTES} bytes")
    return data


def move(game: str, version: int, src: int, die: int) -> str:
    return _checked(f"m:{game}:{version}:{src}:{die}")


def move_on(game: str, version: int, src: int, die: int, then: int) -> str:
    return _checked(f"mm:{game}:{version}:{src}:{die}:{then}")


def undo(game: str, version: int) -> str:
    return _checked(f"u:{game}:{version}")


def done(game: str, version: int) -> str:
    return _checked(f"d:{game}:{version}")


def rematch(game: str, version: int) -> str:
    return _checked(f"r:{game}:{version}")


def resign(game: str, number: int, user: int, yes: bool) -> str:
    return _checked(f"{'ry' if yes else 'rn'}:{game}:{number}:{user}")


def variant(user: int, name: str) -> str:
    return _checked(f"v:{user}:{name}")


def variant_cube(user: int, flags: str) -> str:
    return _checked(f"vc:{user}:{flags or '-'}")


def cube(action: str, game: str, version: int) -> str:
    """A cube button: "cr" roll, "cd" double, "ct" take, "cp" pass."""
    if action not in ("cr", "cd", "ct", "cp"):
        raise ValueError(f"{action!r} is not a cube button")
    return _checked(f"{action}:{game}:{version}")


def resign_match(game: str, number: int, user: int) -> str:
    return _checked(f"rm:{game}:{number}:{user}")


def opponent(user: int, name: str, who: str) -> str:
    return _checked(f"o:{user}:{name}:{who}")


def level(user: int, name: str, level_name: str) -> str:
    return _checked(f"l:{user}:{name}:{level_name}")


def join(lobby: str) -> str:
    return _checked(f"j:{lobby}")


def cancel_lobby(lobby: str) -> str:
    return _checked(f"x:{lobby}")


def cancel_invite(token: str) -> str:
    return _checked(f"xi:{token}")


def accept_challenge(token: str) -> str:
    return _checked(f"ia:{token}")


def cancel_challenge(token: str) -> str:
    return _checked(f"ix:{token}")


def inline_menu(game: str, version: int) -> str:
    return _checked(f"im:{game}:{version}")


def inline_back(game: str, version: int) -> str:
    return _checked(f"ib:{game}:{version}")


def claim(game: str, version: int, user: int) -> str:
    return _checked(f"c:{game}:{version}:{user}")


def forget(user: int, yes: bool) -> str:
    return _checked(f"{'fy' if yes else 'fn'}:{user}")


def find_opponent(user: int, name: str) -> str:
    return _checked(f"qm:{user}:{name}")


def stop_seeking(user: int, token: str) -> str:
    return _checked(f"qs:{user}:{token}")


def setting(user: int, name: str, choice: str) -> str:
    if choice not in SETTING_CHOICES.get(name, ()):
        raise ValueError(f"{choice!r} is not a choice of setting {name!r}")
    return _checked(f"s:{user}:{name}:{choice}")


def export_record(game: str, number: int) -> str:
    return _checked(f"gx:{game}:{number}")


def replay(game: str, number: int) -> str:
    return _checked(f"gr:{game}:{number}")


def analyse(game: str, number: int) -> str:
    return _checked(f"ga:{game}:{number}")


def whole_play(game: str, version: int, moves: tuple[tuple[int, int], ...]) -> str:
    return _checked(f"p:{game}:{version}:" + "-".join(f"{src}.{die}" for src, die in moves))


def hint(game: str, version: int) -> str:
    return _checked(f"h:{game}:{version}")


def tourney_menu(user: int, choice: str) -> str:
    return _checked(f"tn:{user}:{choice}")


def tourney_card(action: str, tourney_id: str) -> str:
    """A tournament card's button: "tj" join, "tl" leave, "ts" start, "tx" cancel."""
    if action not in ("tj", "tl", "ts", "tx"):
        raise ValueError(f"{action!r} is not a tournament card's button")
    return _checked(f"{action}:{tourney_id}")


def decode(data: str | None) -> Callback:
    """Parse callback data; BadCallback if it is not something this bot sends."""
    if not data or len(data.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise BadCallback(f"callback data {data!r:.80} is empty or too long")
    if not data.isascii():  # the bot sends ASCII only; also keeps \d from matching other scripts' digits
        raise BadCallback(f"callback data {data!r} is not ASCII")
    action = data.split(":", 1)[0]
    pattern = _PATTERNS.get(action)
    match = pattern.fullmatch(data) if pattern else None  # fullmatch: "$" would accept a trailing "\n"
    if match is None:
        raise BadCallback(f"callback data {data!r} is not a known button")
    fields = match.groupdict()
    values: dict[str, Any] = {
        k: int(v) if k in ("version", "number", "src", "die", "then", "user") else v
        for k, v in fields.items()
    }
    if any(str(values[k]) != v for k, v in fields.items() if isinstance(values[k], int)):
        raise BadCallback(f"callback data {data!r}: a number written with a leading zero")  # never sent so
    callback = Callback(action=action, **values)
    if action in ("m", "mm") and not 1 <= callback.src <= 25:
        raise BadCallback(f"callback data {data!r}: point {callback.src} is not 1..25")
    if action == "p" and not all(1 <= src <= 25 for src, _ in callback.play_moves):
        raise BadCallback(f"callback data {data!r}: a point is not 1..25")
    if action == "p" and any(m.split(".")[0] != str(int(m.split(".")[0])) for m in callback.moves.split("-")):
        raise BadCallback(f"callback data {data!r}: a point written with a leading zero")
    if callback.variant:
        try:
            GameFormat.parse(callback.variant)
        except BadFormat as err:
            raise BadCallback(f"callback data {data!r}: {err}") from None
    if action == "s" and callback.choice not in SETTING_CHOICES[callback.setting]:
        raise BadCallback(
            f"callback data {data!r}: {callback.choice!r} is not a choice of {callback.setting}"
        )
    return callback
