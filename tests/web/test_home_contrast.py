"""The home's colours, light and dark, read from home.css: every text against what it stands on meets WCAG
2.1's 4.5:1 where Telegram gives no theme of its own (tests/web/test_page_contrast.py's check, on the home)."""

from __future__ import annotations

import pytest

from bot.web import STATIC_DIR
from tests.web.test_page_contrast import TEXT, contrast, themes

CSS = (STATIC_DIR / "home.css").read_text(encoding="utf-8")

# (text colour, background, where): variables of home.css.
PAIRS = [
    ("text", "page-bg", "the title, a select's words"),
    ("text", "panel", "a box's headings and lines, a recent game's link"),
    ("hint", "page-bg", "the note"),
    ("hint", "panel", "the labels, the clocks' words, a chart's grid figures"),
    ("turn", "panel", "your turn, the rating beside a chart"),
    ("button-text", "button", "a button"),
]


THEMES = themes(CSS)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_text_of_the_home_stands_out_from_its_background(theme: str) -> None:
    colours = THEMES[theme]
    low = {
        where: round(contrast(colours[fg], colours[bg]), 2)
        for fg, bg, where in PAIRS
        if contrast(colours[fg], colours[bg]) < TEXT
    }
    assert low == {}, f"{theme}: under {TEXT}:1: {low}"
