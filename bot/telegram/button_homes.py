"""Where each button may be pressed: every message the bot sends with buttons has a home, and a press is
honoured only on a message whose home is the one its data names.

A custom Telegram client can send any callback data for any message it can see: a spectator in a group can
press "the new-game menu's cube switch" on the game's board, or Accept of someone else's inline challenge on
a card of their own. The data alone says what the press wants; the home says where that is allowed. Each
message with buttons is written down in Redis when it is sent (or becomes something else), as the home it
is (bot/storage/users.py `set_home`, key `nardy:home:<chat>:<message>` or `nardy:home:i:<inline message>`):

  board:<game>          a game's board: moves, plays, Undo, Done, the cube, 💡, Rematch, a finished game's
                        📄 Record, 🎞 Replay and 📊 Analysis; on an inline board also its menu (resign,
                        claim, back), which is the board's own keyboard
  menu:<user>           that user's /newgame menu, as it changes: variant, cube switch, opponent, level,
                        quick match (🎲 Find an opponent, Stop searching, Look again)
  lobby:<lobby>         a group's open game: Join, Cancel
  invite:<token>        an invitation link's message: Cancel
  challenge:<token>     an inline challenge card: Accept, Cancel (the card is known from inline feedback)
  resign:<game>:<user>  /resign's question to that user
  claim:<game>:<user>   the Claim win offer to that user
  forget:<user>         /forget's question
  settings:<user>       /settings
  tourney:<id>          a tournament's card in its group: Join, Leave, Start, Cancel (the menu that made it,
                        /tournament's, is its creator's menu:<user>)

A press whose message has another home, or none, is refused with an alert before any handler runs: nothing
is edited or saved. A board's messages are written down by the same script that records the board
(GameStore.new_message); a board drawn before homes existed, or an inline board, is recognised from its game
(the game's messages hash, its inline message) at its first press. Every action bot/telegram/callbacks.py knows must
have a home here (a test checks it), so a new button cannot be added without saying where it lives.
"""

from __future__ import annotations

from bot.telegram.callbacks import Callback

# the actions pressed on a game's board (chats and inline messages alike)
BOARD_ACTIONS = frozenset(
    {"m", "mm", "p", "u", "d", "h", "cr", "cd", "ct", "cp", "r", "im", "ib", "gx", "gr", "ga"}
)
MENU_ACTIONS = frozenset({"v", "vc", "o", "l", "qm", "qs", "tn"})
TOURNEY_ACTIONS = frozenset({"tj", "tl", "ts", "tx"})


def board(game: str) -> str:
    return f"board:{game}"


def menu(user: int) -> str:
    return f"menu:{user}"


def lobby(lobby_id: str) -> str:
    return f"lobby:{lobby_id}"


def invite(token: str) -> str:
    return f"invite:{token}"


def challenge(token: str) -> str:
    return f"challenge:{token}"


def resign(game: str, user: int) -> str:
    return f"resign:{game}:{user}"


def claim(game: str, user: int) -> str:
    return f"claim:{game}:{user}"


def forget(user: int) -> str:
    return f"forget:{user}"


def settings(user: int) -> str:
    return f"settings:{user}"


def tourney(tourney_id: str) -> str:
    return f"tourney:{tourney_id}"


def owner(home: str) -> int | None:
    """The user a home names (a menu's, a question's owner), whose /forget deletes it; None for the homes
    of boards, lobbies, invitations and cards."""
    kind, _, rest = home.partition(":")
    if kind not in ("menu", "resign", "claim", "forget", "settings"):
        return None
    return int(rest.rpartition(":")[2])


def expected(cb: Callback, inline: bool) -> str:
    """The home a message must have for a press of `cb` on it (`inline`: an inline message)."""
    action = cb.action
    if action in BOARD_ACTIONS:
        return board(cb.game)
    if action in ("ry", "rn", "rm"):  # an inline board's menu is the board's keyboard
        return board(cb.game) if inline else resign(cb.game, cb.user)
    if action == "c":
        return board(cb.game) if inline else claim(cb.game, cb.user)
    if action in MENU_ACTIONS:
        return menu(cb.user)
    if action in ("j", "x"):
        return lobby(cb.lobby)
    if action == "xi":
        return invite(cb.token)
    if action in ("ia", "ix"):
        return challenge(cb.token)
    if action in ("fy", "fn"):
        return forget(cb.user)
    if action == "s":
        return settings(cb.user)
    if action in TOURNEY_ACTIONS:
        return tourney(cb.token)
    raise ValueError(f"the button {action!r} has no home: say in bot/telegram/button_homes.py where it lives")
