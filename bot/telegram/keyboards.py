"""Inline keyboards: the move picker, menus, lobby, invitation, resign confirmation, rematch."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import quote

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.i18n import LANGUAGE_NAMES, N_, Texts
from bot.model.game_format import GameFormat
from bot.model.table import Table
from bot.model.tournament import STANDINGS_START
from bot.service.hints import hinted as hinted  # the board page offers 💡 where these boards do
from bot.telegram import callbacks
from bot.views.captions import clock_words, level_name, variant_name
from engine import BAR, OFF, Dice, Move, Phase, Position, Rules, Side

if TYPE_CHECKING:
    from bot.service.settings import Settings

ROW = 4
PLAYS_ROW = 2  # whole plays a row (their labels are longer)
WHOLE_PLAYS = 6  # a turn with at most this many legal plays offers each as one button
LEVELS = ("beginner", "intermediate", "expert")


def move_label(t: Texts, move: Move, with_die: bool = False) -> str:
    """`13→7`, `bar→20` / `бар→20`, `6→⌂`, a `*` when it hits; the die in brackets when needed."""
    src = t.gettext("bar") if move.src == BAR else str(move.src)
    dst = "⌂" if move.dst == OFF else str(move.dst)
    text = f"{src}→{dst}{'*' if move.hit else ''}"
    return f"{text} ({move.die})" if with_die else text


LIVE_BOARD = N_("📲 Live board")
REVIEW = N_("📲 Review")  # a finished game's board: its review on the page
OPEN_HOME = N_("📲 Open the Mini App")
PRIVATE_MODES = ("friend", "computer", "match")  # games whose boards are in the players' private chats


@dataclass(frozen=True)
class WebAppLinks:
    """Where a board's 📲 button opens the game's page (the Mini App, bot/web/): a web_app button to `url`
    (NARDY_WEBAPP_URL) in private chats; elsewhere, where Telegram refuses web_app buttons (groups, inline
    messages), a Direct Link t.me/<bot>/<name>?startapp=g<game> if the Mini App has a short `name`."""

    url: str
    bot: str
    name: str | None = None

    def button(self, t: Texts, table: Table) -> InlineKeyboardButton | None:
        """The live board's button; once the game is over, its review's (the page's ?review=GAME/N, a
        Direct Link's startapp r<N>_<GAME>)."""
        if table.over:
            label = t.gettext(REVIEW)
            page, start = f"review={table.id}/{table.number}", f"r{table.number}_{table.id}"
        else:
            label, page, start = t.gettext(LIVE_BOARD), f"game={table.id}", f"g{table.id}"
        if table.mode in PRIVATE_MODES:
            return InlineKeyboardButton(label, web_app=WebAppInfo(f"{self.url}?{page}"))
        if self.name is None:
            return None
        return InlineKeyboardButton(label, url=f"https://t.me/{self.bot}/{self.name}?startapp={start}")

    def home_button(self, t: Texts, private: bool) -> InlineKeyboardButton | None:
        """The button that opens the Mini App's home: a web_app button in a private chat, a Direct Link
        elsewhere (none without a short name)."""
        label = t.gettext(OPEN_HOME)
        if private:
            return InlineKeyboardButton(label, web_app=WebAppInfo(self.url))
        if self.name is None:
            return None
        return InlineKeyboardButton(label, url=f"https://t.me/{self.bot}/{self.name}")

    def standings(self, t: Texts, tourney_id: str) -> InlineKeyboardButton | None:
        """A group card's 📲 Standings: a Direct Link (groups refuse web_app buttons) whose signed start
        parameter lets the page show that tournament (bot/web/tourney_view.py); none without a short `name`."""
        if self.name is None:
            return None
        start = STANDINGS_START + tourney_id
        return InlineKeyboardButton(
            "📲 " + t.gettext("Standings"), url=f"https://t.me/{self.bot}/{self.name}?startapp={start}"
        )


def board_markup(
    t: Texts, table: Table, viewer: Side | None, links: WebAppLinks | None = None
) -> InlineKeyboardMarkup | None:
    """The keyboard under a board for `viewer` (None: a group board, the mover's keyboard), with the button
    that opens the game's page last (`links`: where; None: no page)."""
    markup = game_markup(t, table, viewer)
    button = links.button(t, table) if links is not None else None
    extra = [row for row in (tourney_row(t, table), [button] if button is not None else []) if row]
    if not extra:
        return markup
    return InlineKeyboardMarkup([*(markup.inline_keyboard if markup is not None else ()), *extra])


def tourney_row(t: Texts, table: Table) -> list[InlineKeyboardButton]:
    """A tournament game's link back to its group's card (a supergroup's message link), or nothing."""
    tag = table.tournament
    if tag is None or tag.link is None:
        return []
    return [InlineKeyboardButton("🏆 " + t.gettext("The tournament's standings"), url=tag.link)]


def game_markup(t: Texts, table: Table, viewer: Side | None) -> InlineKeyboardMarkup | None:
    """The game's own buttons under a board for `viewer`: the moves, the cube's choices, rematch."""
    game = table.game
    if game.phase is Phase.OVER:
        again = t.gettext("🔁 New match") if table.match.is_match else t.gettext("🔁 Rematch")
        rematch = [InlineKeyboardButton(again, callback_data=callbacks.rematch(table.id, table.version))]
        return InlineKeyboardMarkup(
            [
                *([rematch] if table.tournament is None else []),  # a tournament pairs its players again
                [
                    InlineKeyboardButton(
                        t.gettext("📄 Record"), callback_data=callbacks.export_record(table.id, table.number)
                    ),
                    InlineKeyboardButton(
                        t.gettext("🎞 Replay"), callback_data=callbacks.replay(table.id, table.number)
                    ),
                    InlineKeyboardButton(
                        t.gettext("📊 Analysis"), callback_data=callbacks.analyse(table.id, table.number)
                    ),
                ],
            ]
        )
    if game.phase in (Phase.ROLL, Phase.CUBE):
        return cube_markup(t, table, viewer)
    if game.phase is not Phase.MOVE or (viewer is not None and viewer is not game.turn):
        return None
    step = table.step()
    whole = whole_play_buttons(t, table)
    if whole:  # few plays: each one a button (a press plays the whole turn)
        rows = [whole[i : i + PLAYS_ROW] for i in range(0, len(whole), PLAYS_ROW)]
        if hinted(table):
            rows.append([InlineKeyboardButton("💡", callback_data=callbacks.hint(table.id, table.version))])
        if table.mode == "inline":
            rows.append(
                [
                    InlineKeyboardButton(
                        t.gettext("⚑ Resign or claim"),
                        callback_data=callbacks.inline_menu(table.id, table.version),
                    )
                ]
            )
        return InlineKeyboardMarkup(rows)
    moves = sorted(step.next_moves, key=lambda m: (-m.src, -m.die))
    labels = [move_label(t, m) for m in moves]
    buttons = [
        InlineKeyboardButton(
            move_label(t, m, with_die=labels.count(label) > 1),
            callback_data=callbacks.move(table.id, table.version, m.src, m.die),
        )
        for m, label in zip(moves, labels)
    ]
    rows = [buttons[i : i + ROW] for i in range(0, len(buttons), ROW)]
    onward = move_on_buttons(t, table)
    rows += [onward[i : i + ROW] for i in range(0, len(onward), ROW)]
    last: list[InlineKeyboardButton] = []
    if table.moves:
        last.append(
            InlineKeyboardButton(t.gettext("↩ Undo"), callback_data=callbacks.undo(table.id, table.version))
        )
    if step.can_finish:
        last.append(
            InlineKeyboardButton(t.gettext("✅ Done"), callback_data=callbacks.done(table.id, table.version))
        )
    elif not table.moves and hinted(table):
        last.append(InlineKeyboardButton("💡", callback_data=callbacks.hint(table.id, table.version)))
    if last:
        rows.append(last)
    if table.mode == "inline":  # no /resign or /claim where the bot may not be: a button instead
        rows.append(
            [
                InlineKeyboardButton(
                    t.gettext("⚑ Resign or claim"),
                    callback_data=callbacks.inline_menu(table.id, table.version),
                )
            ]
        )
    return InlineKeyboardMarkup(rows) if rows else None


def cube_markup(t: Texts, table: Table, viewer: Side | None) -> InlineKeyboardMarkup | None:
    """Before a roll that may be a double: 🎲 Roll or Double; a double offered: Take or Pass. Only for the
    person who decides (on a group board: whoever it is)."""
    game = table.game
    if (viewer is not None and viewer is not game.deciding) or game.cube is None:
        return None
    if table.players[game.deciding].is_computer:
        return None
    gid, version = table.id, table.version
    if game.phase is Phase.CUBE:
        row = [
            InlineKeyboardButton(
                t.gettext("✅ Take ({value})", value=game.cube.value * 2),
                callback_data=callbacks.cube("ct", gid, version),
            ),
            InlineKeyboardButton(t.gettext("✖ Pass"), callback_data=callbacks.cube("cp", gid, version)),
        ]
    elif game.may_double():
        row = [
            InlineKeyboardButton(t.gettext("🎲 Roll"), callback_data=callbacks.cube("cr", gid, version)),
            InlineKeyboardButton(
                t.gettext("⬆ Double to {value}", value=game.cube.value * 2),
                callback_data=callbacks.cube("cd", gid, version),
            ),
        ]
    else:
        return None
    rows = [row]
    if table.mode == "inline":
        rows.append(
            [
                InlineKeyboardButton(
                    t.gettext("⚑ Resign or claim"), callback_data=callbacks.inline_menu(gid, version)
                )
            ]
        )
    return InlineKeyboardMarkup(rows)


def whole_play_buttons(t: Texts, table: Table) -> list[InlineKeyboardButton]:
    """At the start of a turn with at most WHOLE_PLAYS legal plays (two or more): one button per play,
    its single moves in a row (`13→8 13→10`). One press plays the whole turn: fewer taps, and in a group
    one board edit a turn instead of one a die. Empty when the turn has more plays (the single moves, and
    the `13→7→6` buttons, are offered instead) or a move was made already."""
    game = table.game
    if table.moves or game.phase is not Phase.MOVE or game.dice is None:
        return []
    plays = game.rules.turn_plays(game.position, game.dice)
    if not 2 <= len(plays) <= WHOLE_PLAYS:
        return []
    return [
        InlineKeyboardButton(
            " ".join(move_label(t, m) for m in play.moves),
            callback_data=callbacks.whole_play(
                table.id, table.version, tuple((m.src, m.die) for m in play.moves)
            ),
        )
        for play in sorted(plays, key=lambda p: [(-m.src, -m.die) for m in p.moves])
    ]


def move_on_buttons(t: Texts, table: Table) -> list[InlineKeyboardButton]:
    """One checker moved twice in one press: by a die, then on from where it lands by another (`13→7→6`),
    one button per checker and final point, below the single moves (which stay: every route can still be
    taken step by step). Offered when a turn starts; a press, and in a group a board edit, fewer for the
    most common plays."""
    game = table.game
    if table.moves or game.phase is not Phase.MOVE or game.dice is None:
        return []
    return [
        InlineKeyboardButton(
            f"{move_label(t, first)}→{'⌂' if second.dst == OFF else second.dst}{'*' if second.hit else ''}",
            callback_data=callbacks.move_on(table.id, table.version, first.src, first.die, second.die),
        )
        for first, second in moved_twice(game.rules, game.position, game.dice)
    ]


@lru_cache(maxsize=1024)
def moved_twice(rules: Rules, position: Position, dice: Dice) -> tuple[tuple[Move, Move], ...]:
    """The legal starts of a turn in which one checker moves twice: (first move, the same checker on),
    one per checker and final point, for every checker and two-step destination that some legal play
    contains (whichever of its moves the engine lists first: at the start with 2-2, `6→4→2`). Read from
    the move picker's own steps (the engine's memoised TurnStep, the check a press passes), the larger
    die first where both orders are legal. Memoised by content: every board of a turn asks again."""
    found: dict[tuple[int, int], tuple[Move, Move]] = {}
    for first in sorted(rules.turn_step(position, dice).next_moves, key=lambda m: -m.die):
        if first.dst == OFF:
            continue
        for second in rules.turn_step(position, dice, (first,)).next_moves:
            if second.src == first.dst:
                found.setdefault((first.src, second.dst), (first, second))
    return tuple(sorted(found.values(), key=lambda pair: (-pair[0].src, -pair[1].dst)))


def challenge_markup(t: Texts, token: str) -> InlineKeyboardMarkup:
    """Under an inline challenge card: Accept (anyone else, or the named user), Cancel (the challenger)."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(t.gettext("✅ Accept"), callback_data=callbacks.accept_challenge(token)),
                InlineKeyboardButton(t.gettext("Cancel"), callback_data=callbacks.cancel_challenge(token)),
            ]
        ]
    )


def inline_menu_markup(t: Texts, table: Table, user_id: int) -> InlineKeyboardMarkup:
    """An inline board's menu, opened by the player `user_id`: resign (theirs only; in a match: the game or
    the whole match), claim, back."""
    match_row = (
        [
            [
                InlineKeyboardButton(
                    t.gettext("🏳 The whole match"),
                    callback_data=callbacks.resign_match(table.id, table.number, user_id),
                )
            ]
        ]
        if table.match.is_match
        else []
    )
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("🏳 This game") if table.match.is_match else t.gettext("🏳 Resign"),
                    callback_data=callbacks.resign(table.id, table.number, user_id, True),
                ),
                InlineKeyboardButton(
                    t.gettext("🏳 Claim win"), callback_data=callbacks.claim(table.id, table.version, user_id)
                ),
            ],
            *match_row,
            [
                InlineKeyboardButton(
                    t.gettext("↩ Back to the board"),
                    callback_data=callbacks.inline_back(table.id, table.version),
                )
            ],
        ]
    )


def variant_menu(t: Texts, user_id: int, flags: str = "") -> InlineKeyboardMarkup:
    """/newgame's menu: each variant as a single game or a match to 3, 5 or 7 (one press picks both), the
    doubling cube for short nardy (on: `flags` "c"; with the Jacoby rule for single games: "cj") and a clock
    for live play ("l" live, "b" blitz after those: bot/model/clock.py; a game against the computer has none)."""
    cube, jacoby = "c" in flags, "j" in flags
    clock = "live" if "l" in flags else "blitz" if "b" in flags else None
    cube_flags = "c" + ("j" if jacoby else "") if cube else ""
    clock_flag = {None: "", "live": "l", "blitz": "b"}[clock]
    rows: list[list[InlineKeyboardButton]] = []
    for variant in ("short", "long"):
        with_cube = cube and variant == "short"
        single = str(GameFormat(variant, 1, with_cube, with_cube and jacoby, clock))
        rows.append(
            [InlineKeyboardButton(variant_name(t, variant), callback_data=callbacks.variant(user_id, single))]
        )
        rows.append(
            [
                InlineKeyboardButton(
                    t.gettext("to {n}", n=n),
                    callback_data=callbacks.variant(
                        user_id, str(GameFormat(variant, n, with_cube, False, clock))
                    ),
                )
                for n in (3, 5, 7)
            ]
        )
    rows.append(
        [
            InlineKeyboardButton(
                t.gettext("🎲 Doubling cube (short nardy): on")
                if cube
                else t.gettext("🎲 Doubling cube (short nardy): off"),
                callback_data=callbacks.variant_cube(user_id, ("" if cube else "c") + clock_flag),
            )
        ]
    )
    if cube:
        rows.append(
            [
                InlineKeyboardButton(
                    t.gettext("Jacoby rule (single games): on")
                    if jacoby
                    else t.gettext("Jacoby rule (single games): off"),
                    callback_data=callbacks.variant_cube(user_id, ("c" if jacoby else "cj") + clock_flag),
                )
            ]
        )
    following = {None: "l", "live": "b", "blitz": ""}[clock]  # each press: the next time control
    label = t.gettext("⏱ Clock: none") if clock is None else "⏱ " + clock_words(t, clock)
    rows.append(
        [InlineKeyboardButton(label, callback_data=callbacks.variant_cube(user_id, cube_flags + following))]
    )
    return InlineKeyboardMarkup(rows)


def opponent_menu(t: Texts, user_id: int, variant: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("🤖 Computer"), callback_data=callbacks.opponent(user_id, variant, "c")
                )
            ],
            [
                InlineKeyboardButton(
                    t.gettext("👥 A friend"), callback_data=callbacks.opponent(user_id, variant, "f")
                )
            ],
            [
                InlineKeyboardButton(
                    t.gettext("🎲 Find an opponent"), callback_data=callbacks.find_opponent(user_id, variant)
                )
            ],
        ]
    )


def level_menu(t: Texts, user_id: int, variant: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    level_name(t, lv).capitalize(), callback_data=callbacks.level(user_id, variant, lv)
                )
            ]
            for lv in LEVELS
        ]
    )


def seek_markup(t: Texts, user_id: int, token: str) -> InlineKeyboardMarkup:
    """Under a quick-match waiting message: stop this search."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("✖ Stop searching"), callback_data=callbacks.stop_seeking(user_id, token)
                )
            ]
        ]
    )


def seek_over_markup(t: Texts, user_id: int, variant: str) -> InlineKeyboardMarkup:
    """A quick-match search that found nobody: the computer at a level (the level menu), or look again."""
    again = InlineKeyboardButton(
        t.gettext("🎲 Look again"), callback_data=callbacks.find_opponent(user_id, variant)
    )
    return InlineKeyboardMarkup([*level_menu(t, user_id, variant).inline_keyboard, [again]])


def lobby_markup(t: Texts, lobby_id: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(t.gettext("Join"), callback_data=callbacks.join(lobby_id)),
                InlineKeyboardButton(t.gettext("Cancel"), callback_data=callbacks.cancel_lobby(lobby_id)),
            ]
        ]
    )


def invite_markup(t: Texts, link: str, token: str) -> InlineKeyboardMarkup:
    share = (
        "https://t.me/share/url?url="
        + quote(link, safe="")
        + "&text="
        + quote(t.gettext("Let's play nardy!"), safe="")
    )
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(t.gettext("📨 Share the invitation"), url=share)],
            [InlineKeyboardButton(t.gettext("Cancel"), callback_data=callbacks.cancel_invite(token))],
        ]
    )


def resign_markup(
    t: Texts, game_id: str, number: int, user_id: int, match: bool = False
) -> InlineKeyboardMarkup:
    """Yes / No; in a match: this game, the whole match, or No."""
    no = InlineKeyboardButton(
        t.gettext("No, play on"), callback_data=callbacks.resign(game_id, number, user_id, False)
    )
    if match:
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t.gettext("🏳 This game"),
                        callback_data=callbacks.resign(game_id, number, user_id, True),
                    ),
                    InlineKeyboardButton(
                        t.gettext("🏳 The whole match"),
                        callback_data=callbacks.resign_match(game_id, number, user_id),
                    ),
                ],
                [no],
            ]
        )
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("Yes, resign"), callback_data=callbacks.resign(game_id, number, user_id, True)
                ),
                no,
            ]
        ]
    )


def claim_markup(t: Texts, game_id: str, version: int, user_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("🏳 Claim win"), callback_data=callbacks.claim(game_id, version, user_id)
                )
            ]
        ]
    )


def forget_markup(t: Texts, user_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("Yes, delete my data"), callback_data=callbacks.forget(user_id, True)
                ),
                InlineKeyboardButton(
                    t.gettext("No, keep it"), callback_data=callbacks.forget(user_id, False)
                ),
            ]
        ]
    )


def board_link_markup(t: Texts, url: str) -> InlineKeyboardMarkup:
    """Under a turn reminder in a private chat: a link to the game's board in its group."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(t.gettext("Open the board"), url=url)]])


LANGUAGES_A_ROW = 3  # Auto and the eight languages, by their own names: three rows of three


def settings_markup(t: Texts, user_id: int, chosen: Settings) -> InlineKeyboardMarkup:
    """/settings: rows of languages (Auto, then each by its own name), then a row per setting (confirming
    turns with Done, board colours); ✓ marks the current choice. Only `user_id` may press them."""

    def button(label: str, setting: str, choice: str) -> InlineKeyboardButton:
        mark = "✓ " if getattr(chosen, setting) == choice else ""
        return InlineKeyboardButton(mark + label, callback_data=callbacks.setting(user_id, setting, choice))

    languages = [button(t.gettext("🌐 Auto"), "lang", "auto")]
    languages += [button(name, "lang", code) for code, name in LANGUAGE_NAMES.items()]
    return InlineKeyboardMarkup(
        [
            *(languages[i : i + LANGUAGES_A_ROW] for i in range(0, len(languages), LANGUAGES_A_ROW)),
            [
                button(t.gettext("Done: auto"), "confirm", "auto"),
                button(t.gettext("Done: on"), "confirm", "on"),
                button(t.gettext("Done: off"), "confirm", "off"),
            ],
            [button(t.gettext("☀️ Light"), "theme", "light"), button(t.gettext("🌙 Dark"), "theme", "dark")],
        ]
    )
