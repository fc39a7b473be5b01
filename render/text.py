"""Text on the board: the bundled font, cleaning untrusted names, shortening, and cached glyph masks.

Names come straight from Telegram: any Unicode, maybe thousands of characters, control characters,
bidi overrides or emoji. Text is laid out by Pillow's libraqm layout where it has one (`shapes_right_to_left`):
bidi and Arabic-script shaping, so Persian words come out joined and right to left. `clean_text` strips what must not be drawn, drops characters the font has no
glyph for (most emoji: DejaVu has a few monochrome symbols, which are kept) and `fit_text` shortens to a
pixel width with an ellipsis. FreeType faces are not thread-safe, so every use of a font holds `_LOCK`.
"""

from __future__ import annotations

import io
import struct
import threading
import unicodedata
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

ELLIPSIS = "…"
FALLBACK = "?"
MAX_CODEPOINTS = 300  # a longer input is cut before any measuring (a 10,000-character name stays cheap)
_KEEP_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners shape scripts; other Cf (bidi controls) go
_DROP_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_BREAKS = set("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85")
_MAX_MARKS = 3  # combining marks kept after one base character ("zalgo" text is clipped to this)
_LOCK = threading.RLock()

REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"


@cache
def shapes_right_to_left() -> bool:
    """Whether this Pillow lays text out with libraqm and FriBiDi (right-to-left order, Arabic-script
    joining). Pillow's wheels carry libraqm but load FriBiDi (Debian's libfribidi0) at run time; without it
    Pillow's basic layout draws Persian letters unjoined and left to right."""
    from PIL import features

    return bool(features.check("raqm")) and bool(features.check("fribidi"))


@cache
def _font_bytes(name: str) -> bytes:
    return resources.files("render").joinpath("fonts", name).read_bytes()


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at `size` pixels (loaded once per size)."""
    with _LOCK:
        return ImageFont.truetype(io.BytesIO(_font_bytes(BOLD if bold else REGULAR)), size)


def _cmap_codepoints(data: bytes) -> frozenset[int]:
    """The code points a TrueType font maps to a real glyph (cmap formats 4 and 12)."""
    (num_tables,) = struct.unpack_from(">H", data, 4)
    cmap = None
    for i in range(num_tables):
        tag, _checksum, offset, _length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if tag == b"cmap":
            cmap = offset
    if cmap is None:
        raise ValueError("font has no cmap table")
    (count,) = struct.unpack_from(">H", data, cmap + 2)
    fmt4 = fmt12 = None
    for i in range(count):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        (fmt,) = struct.unpack_from(">H", data, cmap + offset)
        if fmt == 12 and (platform, encoding) in ((3, 10), (0, 4), (0, 6)):
            fmt12 = cmap + offset
        elif fmt == 4 and (platform, encoding) in ((3, 1), (0, 3)):
            fmt4 = cmap + offset
    points: set[int] = set()
    if fmt12 is not None:
        (groups,) = struct.unpack_from(">I", data, fmt12 + 12)
        for g in range(groups):
            start, end, glyph = struct.unpack_from(">III", data, fmt12 + 16 + 12 * g)
            points.update(c for c in range(start, end + 1) if glyph + c - start)
    elif fmt4 is not None:
        (seg_x2,) = struct.unpack_from(">H", data, fmt4 + 6)
        segs = seg_x2 // 2
        ends = fmt4 + 14
        starts = ends + seg_x2 + 2
        deltas = starts + seg_x2
        ranges = deltas + seg_x2
        for s in range(segs):
            (end,) = struct.unpack_from(">H", data, ends + 2 * s)
            (start,) = struct.unpack_from(">H", data, starts + 2 * s)
            (delta,) = struct.unpack_from(">h", data, deltas + 2 * s)
            (range_offset,) = struct.unpack_from(">H", data, ranges + 2 * s)
            for c in range(start, end + 1):
                if c == 0xFFFF:
                    continue
                if range_offset == 0:
                    glyph = (c + delta) & 0xFFFF
                else:
                    (glyph,) = struct.unpack_from(">H", data, ranges + 2 * s + range_offset + 2 * (c - start))
                    glyph = (glyph + delta) & 0xFFFF if glyph else 0
                if glyph:
                    points.add(c)
    return frozenset(points)


@cache
def coverage(bold: bool = False) -> frozenset[int]:
    """Code points the bundled regular (or bold) font can draw."""
    return _cmap_codepoints(_font_bytes(BOLD if bold else REGULAR))


def clean_text(text: str, bold: bool = False) -> str:
    """`text` made safe to draw on one line: no control/format characters, no glyphs the font lacks,
    whitespace collapsed, at most MAX_CODEPOINTS characters (an ellipsis marks a cut)."""
    cut = len(text) > MAX_CODEPOINTS
    text = unicodedata.normalize("NFC", text[:MAX_CODEPOINTS])
    covered = coverage(bold)
    out: list[str] = []
    marks = 0
    for ch in text:
        category = unicodedata.category(ch)
        if ch in _KEEP_FORMAT:
            out.append(ch)
            continue
        if category in _DROP_CATEGORIES:
            if ch in _BREAKS or category in ("Zl", "Zp"):  # line breaks and tabs separate words
                out.append(" ")
            continue
        if category.startswith("Z") or ch.isspace():
            out.append(" ")
            continue
        if ord(ch) not in covered:
            continue
        if category in ("Mn", "Me"):
            marks += 1
            if marks > _MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    result = " ".join("".join(out).split())
    if cut and result:
        result = result.rstrip() + ELLIPSIS
    return result


def _cut_point(text: str, index: int) -> int:
    """Move a cut at `index` back so that it does not split a character from its combining marks."""
    while 0 < index < len(text) and unicodedata.category(text[index]) in ("Mn", "Me"):
        index -= 1  # text[index - 1] would lose its marks: cut before it
    while index > 0 and text[index - 1] in _KEEP_FORMAT:
        index -= 1
    return index


def text_width(text: str, size: int, bold: bool = False) -> int:
    with _LOCK:
        return int(font(size, bold).getlength(text) + 0.999)


def fit_text(text: str, size: int, max_width: int, bold: bool = False) -> str:
    """`text` shortened with an ellipsis so that it is at most `max_width` pixels wide."""
    if text_width(text, size, bold) <= max_width:
        return text
    body = text[:-1] if text.endswith(ELLIPSIS) else text
    low, high = 0, len(body)
    while low < high:  # the longest prefix that fits together with the ellipsis
        middle = (low + high + 1) // 2
        if text_width(body[:middle].rstrip() + ELLIPSIS, size, bold) <= max_width:
            low = middle
        else:
            high = middle - 1
    low = _cut_point(body, low)
    return body[:low].rstrip() + ELLIPSIS if low else ELLIPSIS


@lru_cache(maxsize=2048)
def text_mask(text: str, size: int, bold: bool = False) -> Image.Image:
    """A greyscale mask of `text` one line high: paste a colour through it. Cached."""
    with _LOCK:
        face = font(size, bold)
        ascent, descent = face.getmetrics()
        width = max(1, int(face.getlength(text) + 0.999) + 4)
        mask = Image.new("L", (width, ascent + descent + 4), 0)
        ImageDraw.Draw(mask).text((2, 2), text, font=face, fill=255)
    return mask
