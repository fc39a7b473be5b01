"""What every front answers when a press or command cannot be done, in one place so that the chat and the
board page say the same: the game storage away or slow, the board changed under the press, another press
first, too many presses, the computer busy, something broken (message ids: bot/i18n.py translates them)."""

from __future__ import annotations

from bot.i18n import N_

TRY_AGAIN = N_("The game storage is not available right now. Please try again in a minute.")
TRY_AGAIN_SOON = N_("The game storage is slow to answer right now. Please try again in a moment.")
WENT_WRONG = N_("Something went wrong. Please try again.")
QUICKER = N_("Someone was quicker. Look at the board again.")
BOARD_CHANGED = N_("The board has just changed. Look at it again.")
SLOW_PRESSES = N_("Too many presses at once. Wait a moment, then press again.")
COMPUTER_BUSY = N_("The computer is very busy right now. Press again in a moment.")
