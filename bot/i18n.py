"""The message catalog: English message ids in the code, Russian ones in locale/ru/LC_MESSAGES/nardy.po.

The .po file is read with babel and compiled in memory into a gettext catalog, so Russian plural forms
come from the catalog's own Plural-Forms formula. Use `texts(language_code)`:
    t = texts("ru"); t.gettext("Your turn"); t.ngettext("{n} point", "{n} points", 5)
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "nardy"
LANGUAGES = ("en", "ru")


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


@cache
def _catalog(lang: str) -> gettext.NullTranslations:
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def texts(language_code: str | None) -> Texts:
    """The texts for a Telegram language code (or for "en"/"ru")."""
    lang = language_of(language_code)
    return Texts(lang, _catalog(lang))
