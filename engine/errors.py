"""Every error the engine raises is a ValueError subclass whose message says what was wrong and where."""


class NardyError(ValueError):
    """Base class of all engine errors."""


class InvalidPositionError(NardyError):
    """An impossible position: wrong checker counts, both colours on a point, a bar in long nardy, ..."""


class InvalidDiceError(NardyError):
    """Dice out of range or malformed."""


class InvalidMoveError(NardyError):
    """A move or play text that does not parse."""


class AmbiguousMoveError(InvalidMoveError):
    """Play text that more than one legal play fits (e.g. `13/6` when 13/7/6 and 13/12*/6 differ)."""


class IllegalPlayError(NardyError):
    """A play or move that the rules do not allow in this position."""


class GameRecordError(NardyError):
    """A corrupted, inconsistent or future-version game record."""


class WrongPhaseError(NardyError):
    """An action that the game's current phase does not allow (e.g. rolling while a move is pending)."""


class OptionsError(NardyError):
    """An unknown option value."""


class CubeError(NardyError):
    """A cube action the cube's rules do not allow now (no cube, not the owner, the Crawford game, ...)."""
