"""The committed message catalogue: each nardy.mo is what its .po compiles to now, and the bot reads it
with the standard library alone (babel is a build-time tool)."""

from __future__ import annotations

import gettext
import subprocess
import sys
from pathlib import Path

import pytest

from bot.i18n import COMPILE_COMMAND, DOMAIN, LOCALE_DIR, catalog_path, compile_catalog, texts

SOURCES = sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def test_there_is_a_russian_catalogue() -> None:
    assert catalog_path("ru", ".po") in SOURCES


@pytest.mark.parametrize("po", SOURCES, ids=lambda po: po.parent.parent.name)
def test_the_committed_mo_is_the_compiled_po(po: Path) -> None:
    mo = po.with_suffix(".mo")
    fix = f"run `{COMPILE_COMMAND}` and commit {mo.relative_to(LOCALE_DIR.parent.parent)}"
    assert mo.exists(), f"{mo.name} is missing next to {po}: {fix}"
    assert mo.read_bytes() == compile_catalog(po), f"{mo} is not what {po.name} compiles to: {fix}"


def test_russian_plural_forms_come_from_the_compiled_catalogue() -> None:
    with catalog_path("ru").open("rb") as f:
        catalog = gettext.GNUTranslations(f)
    assert catalog.info()["language"] == "ru"
    ru = texts("ru")
    expected = {0: "очков", 1: "очко", 2: "очка", 4: "очка", 5: "очков", 11: "очков", 14: "очков"}
    expected |= {21: "очко", 22: "очка", 25: "очков", 101: "очко", 111: "очков", 1000: "очков"}
    for n, word in expected.items():
        assert ru.ngettext("{n} point", "{n} points", n) == f"{n} {word}"
    assert texts("en").ngettext("{n} point", "{n} points", 21) == "21 points"


def test_the_catalogue_is_read_without_babel() -> None:
    script = (
        "import sys; sys.modules['babel'] = None\n"  # any import of babel now fails
        "from bot.i18n import texts\n"
        "print(texts('ru').ngettext('{n} point', '{n} points', 3))\n"
        "assert not any(name.startswith('babel') and sys.modules[name] for name in sys.modules)\n"
    )
    root = LOCALE_DIR.parent.parent
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "3 очка"
