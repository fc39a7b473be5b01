"""The message catalogue: English message ids in the code, a catalogue per language in
locale/<lang>/LC_MESSAGES/nardy.po (Russian, Ukrainian, Azerbaijani, Armenian, Georgian, Turkish, Persian).

At run time the compiled catalogue (nardy.mo, next to the .po) is loaded with the standard library's
gettext, so plural forms come from each catalogue's own Plural-Forms formula. Use `texts(language_code)`:
    t = texts("ru"); t.gettext("Your turn"); t.ngettext("{n} point", "{n} points", 5)

Build time (babel, the test extra), never at run time:
- `python -m bot.i18n update` extracts the message ids from the code (bot/) into the template
  locale/nardy.pot, merges it into every language's .po (new ids come in untranslated, ids the code no
  longer uses become obsolete `#~` entries), compiles the .mo files and lists, per language, the ids still
  untranslated. Translate those (each msgstr keeps the msgid's {placeholders}), then run it again: it
  exits 1 while anything is left. tests/bot/test_i18n_complete.py fails on the same gaps.
- `python -m bot.i18n` compiles every .po into the .mo beside it; commit the .mo with its .po
  (tests/bot/test_i18n_catalog.py fails while they differ). The Docker image compiles it afresh.

A new language: add it to LANGUAGES and LANGUAGE_NAMES, copy locale/nardy.pot to
locale/<lang>/LC_MESSAGES/nardy.po with its Language and Plural-Forms header, then run `update`.
"""

from __future__ import annotations

import gettext
import io
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "nardy"
LANGUAGES = ("en", "ru", "uk", "az", "hy", "ka", "tr", "fa")
SOURCE_LANGUAGE = "en"  # the message ids: no catalogue
# Each language by its own name (the /settings buttons): never translated.
LANGUAGE_NAMES = {
    "en": "English",
    "ru": "Русский",
    "uk": "Українська",
    "az": "Azərbaycanca",
    "hy": "Հայերեն",
    "ka": "ქართული",
    "tr": "Türkçe",
    "fa": "فارسی",
}
# Telegram language codes the bot has no catalogue for whose players read Russian (Kazakh, Kyrgyz, Uzbek, Tajik,
# Belarusian): Russian is the language of their schools' second tongue and of their phones' menus, where
# English is not.
READ_RUSSIAN = frozenset({"kk", "ky", "uz", "tg", "be"})
RIGHT_TO_LEFT = frozenset({"fa"})  # languages written right to left: the board needs text shaping for them
COMPILE_COMMAND = "python -m bot.i18n"
UPDATE_COMMAND = "python -m bot.i18n update"
# What marks a message id in the code (babel's extraction keywords): Texts' methods, N_ and Refused.
KEYWORDS: dict[str, Any] = {"gettext": None, "ngettext": (1, 2), "N_": None, "Refused": None}


def N_(message: str) -> str:
    """Marks a message id for extraction into the catalogue; translated later with Texts.gettext."""
    return message


def language_of(language_code: str | None) -> str:
    """The catalogue for a Telegram language code (an IETF tag such as "uk", "pt-br", "ru-RU"): its primary
    subtag when the bot speaks it, Russian for the languages of READ_RUSSIAN, English otherwise."""
    primary = (language_code or "").replace("_", "-").split("-")[0].lower()
    if primary in LANGUAGES:
        return primary
    return "ru" if primary in READ_RUSSIAN else SOURCE_LANGUAGE


class Texts:
    """Translated, formatted texts of one language."""

    def __init__(self, lang: str, catalog: gettext.NullTranslations) -> None:
        self.lang = lang
        self._catalog = catalog

    def gettext(self, message: str, **params: Any) -> str:
        text = self._catalog.gettext(message)
        return text.format(**params) if params else text

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        return self._catalog.ngettext(singular, plural, n).format(n=n, **params)

    def for_picture(self) -> Texts:
        """The texts for words drawn on a picture (a board, a replay, a chart): these, or English where this
        language is written right to left and this Pillow cannot shape it (render.text.shapes_right_to_left:
        no libraqm or FriBiDi), since its letters would come out unjoined and in the wrong order."""
        if self.lang in RIGHT_TO_LEFT:
            from render.text import shapes_right_to_left

            if not shapes_right_to_left():
                return texts(SOURCE_LANGUAGE)
        return self


def catalog_path(lang: str, suffix: str = ".mo") -> Path:
    """locale/<lang>/LC_MESSAGES/nardy.mo (or .po)."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


@cache
def _catalog(lang: str) -> gettext.NullTranslations:
    path = catalog_path(lang)
    if not path.exists():
        if lang == SOURCE_LANGUAGE:
            return gettext.NullTranslations()
        raise FileNotFoundError(f"{path} is missing: compile the catalogue with `{COMPILE_COMMAND}`")
    with path.open("rb") as f:
        return gettext.GNUTranslations(f)


def texts(language_code: str | None) -> Texts:
    """The texts for a Telegram language code (or for one of LANGUAGES)."""
    lang = language_of(language_code)
    return Texts(lang, _catalog(lang))


def translate_all(words: Mapping[str, str], lang: str) -> dict[str, str]:
    """Each message id of `words` translated into `lang` (one of LANGUAGES), by its key: a web page's
    words (bot/web/words.py and its neighbours), sent to the page in its person's language."""
    t = texts(lang)
    return {key: t.gettext(message) for key, message in words.items()}


# ---------------------------------------------------------------------- build time (babel)


def compile_catalog(po_path: Path) -> bytes:
    """The .mo that babel compiles from a .po file (entries marked fuzzy are left out, as by msgfmt)."""
    from babel.messages.mofile import write_mo

    buf = io.BytesIO()
    write_mo(buf, read_catalog(po_path))
    return buf.getvalue()


TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
SOURCE_DIR = LOCALE_DIR.parent  # bot/: where the message ids are extracted from


def extract_template() -> Any:
    """The message ids the code uses (bot/, KEYWORDS), as a babel Catalog: the template of every .po."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(project="nardy", version="0.1.0", domain=DOMAIN, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(SOURCE_DIR), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
    ):
        template.add(message, None, [(f"bot/{filename}", lineno)], auto_comments=comments, context=context)
    return template


def read_catalog(po_path: Path) -> Any:
    from babel.messages.pofile import read_po

    with po_path.open("rb") as f:
        return read_po(f, locale=po_path.parent.parent.name, domain=po_path.stem)


def untranslated(catalog: Any, template: Any) -> list[str]:
    """The template's message ids that `catalog` leaves untranslated (missing, empty or fuzzy), in order."""
    gaps = []
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id)
        strings = found.string if found is not None else None
        if isinstance(strings, str):
            strings = (strings,)
        if found is None or found.fuzzy or not strings or not all(strings):
            gaps.append(message.id if isinstance(message.id, str) else message.id[0])
    return gaps


_DATES = (b'"POT-Creation-Date:', b'"PO-Revision-Date:')


def write_catalog(catalog: Any, path: Path) -> bool:
    """Write a .po (or the .pot) without line numbers, and only when more than its dates changed, so that
    a file changes only when its texts do. Whether it was written."""
    from babel.messages.pofile import write_po

    out = io.BytesIO()
    write_po(out, catalog, width=110, include_lineno=False, sort_output=False)
    data = out.getvalue()

    def texts_of(raw: bytes) -> list[bytes]:
        return [line for line in raw.splitlines() if not line.startswith(_DATES)]

    if path.exists() and texts_of(path.read_bytes()) == texts_of(data):
        return False
    path.write_bytes(data)
    return True


def update() -> int:
    """`python -m bot.i18n update`: the template from the code, merged into every .po, then compiled; lists
    what each language still lacks (exit 1 while anything does)."""
    template = extract_template()
    write_catalog(template, TEMPLATE)
    print(f"{TEMPLATE}: {sum(1 for m in template if m.id)} message ids")
    missing = 0
    for lang in LANGUAGES:
        if lang == SOURCE_LANGUAGE:
            continue
        po = catalog_path(lang, ".po")
        if not po.exists():
            print(f"{lang}: no catalogue at {po}", file=sys.stderr)
            missing += 1
            continue
        catalog = read_catalog(po)
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalog.obsolete.clear()  # ids the code no longer uses: dropped (git keeps their history)
        write_catalog(catalog, po)
        gaps = untranslated(catalog, template)
        missing += len(gaps)
        print(f"{lang}: {len(gaps)} untranslated" + "".join(f"\n    {gap!r}" for gap in gaps))
    status = compile_all()
    return 1 if missing or status else 0


def compile_all() -> int:
    """Compile every locale/*/LC_MESSAGES/nardy.po into the nardy.mo beside it."""
    sources = sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    if not sources:
        print(f"no {DOMAIN}.po under {LOCALE_DIR}", file=sys.stderr)
        return 1
    for po in sources:
        mo = po.with_suffix(".mo")
        try:
            data = compile_catalog(po)
        except ModuleNotFoundError as err:
            print(f"{err}: compiling needs babel (pip install babel, or nardy's test extra)", file=sys.stderr)
            return 1
        if mo.exists() and mo.read_bytes() == data:
            print(f"{mo}: up to date")
        else:
            mo.write_bytes(data)
            print(f"{mo}: compiled from {po.name}")
    return 0


def main(argv: list[str]) -> int:
    """`python -m bot.i18n`: compile the catalogues; `python -m bot.i18n update`: see the module's doc."""
    if argv == ["update"]:
        try:
            return update()
        except ModuleNotFoundError as err:
            print(f"{err}: updating needs babel (pip install babel, or nardy's test extra)", file=sys.stderr)
            return 1
    if argv:
        print(f"usage: {COMPILE_COMMAND} [update]", file=sys.stderr)
        return 2
    return compile_all()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
