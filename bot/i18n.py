"""The message catalogue: English message ids in the code, Russian ones in locale/ru/LC_MESSAGES/nardy.po.

At run time the compiled catalogue (nardy.mo, next to the .po) is loaded with the standard library's
gettext, so Russian plural forms come from the catalogue's own Plural-Forms formula. Use
`texts(language_code)`:
    t = texts("ru"); t.gettext("Your turn"); t.ngettext("{n} point", "{n} points", 5)

The .mo is compiled from the .po with babel (the test extra) at build time, never at run time: after
editing a .po, run `python -m bot.i18n` and commit the .mo with it (tests/bot/test_i18n_catalog.py fails
while they differ). The Docker image compiles it afresh.
"""

from __future__ import annotations

import gettext
import io
import sys
from functools import cache
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "nardy"
LANGUAGES = ("en", "ru")
SOURCE_LANGUAGE = "en"  # the message ids: no catalogue
COMPILE_COMMAND = "python -m bot.i18n"


def language_of(language_code: str | None) -> str:
    """Russian for Telegram language codes starting with "ru", English otherwise."""
    return "ru" if (language_code or "").lower().startswith("ru") else "en"


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
    """The texts for a Telegram language code (or for "en"/"ru")."""
    lang = language_of(language_code)
    return Texts(lang, _catalog(lang))


# ---------------------------------------------------------------------- build time (babel)


def compile_catalog(po_path: Path) -> bytes:
    """The .mo that babel compiles from a .po file (entries marked fuzzy are left out, as by msgfmt)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path.open("rb") as f:
        catalog = read_po(f, locale=po_path.parent.parent.name, domain=po_path.stem)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    return buf.getvalue()


def main() -> int:
    """`python -m bot.i18n`: compile every locale/*/LC_MESSAGES/nardy.po into the nardy.mo beside it."""
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


if __name__ == "__main__":
    sys.exit(main())
