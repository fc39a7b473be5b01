"""Inline keyboards: the move picker, menus, lobby, invitation, resign confirmation, rematch."""

from __future__ import annotations

from urllib.parse import quote

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.captions import level_name, variant_name
from bot.i18n import Texts
from bot.table import Table
from engine import BAR, OFF, Move, Phase, Side

ROW = 4
LEVELS = ("beginner", "intermediate", "expert")


def move_label(t: Texts, move: Move, with_die: bool = False) -> str:
    """`13→7`, `bar→20` / `бар→20`, `6→⌂`, a `*` when it hits; the die in brackets when needed."""
    src = t.gettext("bar") if move.src == BAR else str(move.src)
    dst = "⌂" if move.dst == OFF else str(move.dst)
    text = f"{src}→{dst}{'*' if move.hit else ''}"
    return f"{text} ({move.die})" if with_die else text


def board_markup(t: Texts, table: Table, viewer: Side | None) -> InlineKeyboardMarkup | None:
    """The keyboard under a board for `viewer` (None: a group board, the mover's keyboard)."""
    game = table.game
    if game.phase is Phase.OVER:
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t.gettext("🔁 Rematch"), callback_data=callbacks.rematch(table.id, table.version)
                    )
                ]
            ]
        )
    if game.phase is not Phase.MOVE or (viewer is not None and viewer is not game.turn):
        return None
    step = table.step()
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
    last: list[InlineKeyboardButton] = []
    if table.moves:
        last.append(
            InlineKeyboardButton(t.gettext("↩ Undo"), callback_data=callbacks.undo(table.id, table.version))
        )
    if step.can_finish:
        last.append(
            InlineKeyboardButton(t.gettext("✅ Done"), callback_data=callbacks.done(table.id, table.version))
        )
    if last:
        rows.append(last)
    return InlineKeyboardMarkup(rows) if rows else None


def variant_menu(t: Texts, user_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    variant_name(t, "short"), callback_data=callbacks.variant(user_id, "short")
                )
            ],
            [InlineKeyboardButton(variant_name(t, "long"), callback_data=callbacks.variant(user_id, "long"))],
        ]
    )


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


def resign_markup(t: Texts, game_id: str, number: int, user_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t.gettext("Yes, resign"), callback_data=callbacks.resign(game_id, number, user_id, True)
                ),
                InlineKeyboardButton(
                    t.gettext("No, play on"), callback_data=callbacks.resign(game_id, number, user_id, False)
                ),
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
