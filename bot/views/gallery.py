"""The gallery's boards in every language the bot speaks: `python -m bot.views.gallery OUT_DIR`.

Writes render/gallery.py's sample boards and, in each language of the bot's catalogues, its
`language_samples` (a short game in a match against the computer, a finished long game) with the words the
bot draws on its pictures. It lives here, above render/, because it reads the bot's texts: render/ is
passed its words and never translates."""

from __future__ import annotations

import sys

from bot.i18n import LANGUAGES, texts
from render.gallery import language_samples, main, samples
from render.view import BoardView


def translated_samples() -> dict[str, BoardView]:
    """`language_samples` in every language of the bot's catalogues, with the words of its pictures."""
    out: dict[str, BoardView] = {}
    for lang in LANGUAGES:
        out.update(language_samples(lang, texts(lang).for_picture().gettext))
    return out


def every_sample() -> dict[str, BoardView]:
    """The sample boards, then the translated ones."""
    return {**samples(), **translated_samples()}


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:], every_sample, "bot.views.gallery"))
