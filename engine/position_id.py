"""Compact text ids for positions.

Short nardy uses the GNU Backgammon Position ID: for the side NOT to move, then the side to move,
each of its 25 slots (own points 1..24, then the bar) is written as that many 1-bits and a 0-bit;
the 80 bits are packed least-significant bit first into 10 bytes and base64-encoded without the
padding (14 characters; `4HPwATDgc/ABMA` is the start).

Long nardy id (ours, documented here): the same unary code for the side to move, then the other
side, over own points 1..24 only (no bar; borne-off checkers implied), then three flag bits:
x_first_turn, o_first_turn, and whether an opening roll follows; if it does, two 3-bit fields
(die - 1) of the first player's first roll. Packed and base64-encoded the same way, then the
padding dropped and '/' and '+' replaced by '_' and '-' (URL-safe). The long start is
`L` + that code, e.g. `L` + 15 chars; the `L` prefix keeps the two kinds apart.
"""

from __future__ import annotations

import base64
import binascii

from engine.errors import InvalidPositionError
from engine.position import Position


def _pack(bits: list[int]) -> bytes:
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def _unpack(data: bytes) -> list[int]:
    return [(byte >> i) & 1 for byte in data for i in range(8)]


def _unary(counts: tuple[int, ...], slots: range) -> list[int]:
    bits: list[int] = []
    for p in slots:
        bits.extend([1] * counts[p])
        bits.append(0)
    return bits


def _read_unary(bits: list[int], start: int, n_slots: int, text: str) -> tuple[list[int], int]:
    counts: list[int] = []
    i = start
    for _ in range(n_slots):
        n = 0
        while i < len(bits) and bits[i]:
            n += 1
            i += 1
        if i >= len(bits):
            raise InvalidPositionError(f"position id {text!r} is truncated")
        counts.append(n)
        i += 1
    return counts, i


def _b64decode(text: str, altchars: bytes | None) -> bytes:
    padded = text + "=" * (-len(text) % 4)
    try:
        return base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidPositionError(f"position id {text!r} is not base64") from None


def gnubg_position_id(position: Position) -> str:
    bits = _unary(position.o, range(1, 26)) + _unary(position.x, range(1, 26))
    if len(bits) > 80:
        raise InvalidPositionError(f"too many checkers for a position id: {position.describe()}")
    bits += [0] * (80 - len(bits))
    return base64.b64encode(_pack(bits)).decode()[:14]


def gnubg_position_from_id(text: str) -> Position:
    if len(text) != 14:
        raise InvalidPositionError(f"position id {text!r} must have 14 characters")
    bits = _unpack(_b64decode(text, None))
    o_slots, i = _read_unary(bits, 0, 25, text)
    x_slots, _ = _read_unary(bits, i, 25, text)
    x = tuple([15 - sum(x_slots)] + x_slots)
    o = tuple([15 - sum(o_slots)] + o_slots)
    if x[0] < 0 or o[0] < 0:
        raise InvalidPositionError(f"position id {text!r} holds more than 15 checkers a side")
    return Position(x, o)


def long_position_id(position: Position) -> str:
    bits = _unary(position.x, range(1, 25)) + _unary(position.o, range(1, 25))
    bits += [int(position.x_first_turn), int(position.o_first_turn), int(position.opening_roll is not None)]
    if position.opening_roll is not None:
        for die in position.opening_roll:
            bits += [((die - 1) >> k) & 1 for k in range(3)]
    return "L" + base64.b64encode(_pack(bits), altchars=b"-_").decode().rstrip("=")


def long_position_from_id(text: str) -> Position:
    if not text.startswith("L") or len(text) < 2:
        raise InvalidPositionError(f"long-nardy position id {text!r} must start with 'L'")
    bits = _unpack(_b64decode(text[1:], b"-_"))
    x_slots, i = _read_unary(bits, 0, 24, text)
    o_slots, i = _read_unary(bits, i, 24, text)
    if i + 3 > len(bits):
        raise InvalidPositionError(f"position id {text!r} is truncated")
    x_first, o_first, has_roll = bits[i], bits[i + 1], bits[i + 2]
    opening: tuple[int, int] | None = None
    if has_roll:
        if i + 9 > len(bits):
            raise InvalidPositionError(f"position id {text!r} is truncated")
        a = 1 + sum(bits[i + 3 + k] << k for k in range(3))
        b = 1 + sum(bits[i + 6 + k] << k for k in range(3))
        opening = (a, b)
    x = tuple([15 - sum(x_slots)] + x_slots + [0])
    o = tuple([15 - sum(o_slots)] + o_slots + [0])
    if x[0] < 0 or o[0] < 0:
        raise InvalidPositionError(f"position id {text!r} holds more than 15 checkers a side")
    return Position(x, o, bool(x_first), bool(o_first), opening)
