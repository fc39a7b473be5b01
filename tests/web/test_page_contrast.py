"""The board page's colours (and the review's, review.css), light and dark, read from the CSS: every text against what it stands on
meets WCAG 2.1's contrast (4.5:1 for text, 3:1 for large bold text such as the board's point numbers), where
Telegram gives no theme of its own (its colours, --tg-*, are Telegram's: the page takes them as they are)."""

from __future__ import annotations

import re

import pytest

from bot.web import STATIC_DIR

CSS = (STATIC_DIR / "board.css").read_text(encoding="utf-8")
TEXT, LARGE = 4.5, 3.0

# (text colour, background, least ratio, where): the page's texts on what they stand on. A name is a
# variable of board.css; a #hex is a colour written in a rule.
PAIRS = [
    ("text", "page-bg", TEXT, "the status, the match line, the dialog"),
    ("text", "panel", TEXT, "a player's panel, the message, the Hint button"),
    ("text", "panel-turn", TEXT, "the panel of the side to move"),
    ("text", "panel-winner", TEXT, "the winner's panel"),
    ("hint", "page-bg", TEXT, "the connection's line"),
    ("hint", "panel", TEXT, "the pips' label"),
    ("hint", "panel-turn", TEXT, "the pips' label of the side to move"),
    ("hint", "panel-winner", TEXT, "the pips' label of the winner"),
    ("text", "page-bg", TEXT, "a clock (on the page's colour, inside a panel)"),
    ("button-text", "button", TEXT, "a button"),
    ("danger", "panel", TEXT, "the Resign button"),
    ("on-danger", "danger", TEXT, "the dialog's Resign button, a clock at 0:00"),
    ("#1f1a0c", "accent", TEXT, "the 'you' badge"),
    ("number", "frame", LARGE, "the board's point numbers (16 px bold in a 814 px board)"),
]


def variables(selector: str, css: str = CSS) -> dict[str, str]:
    """The custom properties a rule of `css` sets, each `var(--tg-x, #fallback)` read as its fallback."""
    start = css.index(selector + " {")
    body = css[start : css.index("}", start)]
    found = {}
    for name, value in re.findall(r"--([\w-]+):\s*([^;]+);", body):
        fallback = re.fullmatch(r"var\(--tg-[\w-]+,\s*(#[0-9a-fA-F]{6})\)", value.strip())
        found[name] = fallback.group(1) if fallback else value.strip()
    return found


def themes(css: str = CSS) -> dict[str, dict[str, str]]:
    """The colours of `css`'s light and dark themes, by variable name."""
    return {
        "light": variables(":root", css),
        "dark": variables(":root", css) | variables(':root[data-theme="dark"]', css),
    }


THEMES = themes()


def luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of a #rrggbb colour."""
    digits = colour.lstrip("#")
    if not re.fullmatch(r"[0-9a-fA-F]{6}", digits):
        raise ValueError(f"not a #rrggbb colour: {colour!r}")

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(digits[i : i + 2], 16) / 255) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_is_computed_as_wcag_says() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#123456", "#123456") == 1.0


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_text_of_the_page_stands_out_from_its_background(theme: str) -> None:
    colours = THEMES[theme]
    low = []
    for text, background, least, where in PAIRS:
        fore = text if text.startswith("#") else colours[text]
        ratio = contrast(fore, colours[background])
        if ratio < least:
            low.append(f"{where}: {text} on {background} is {ratio:.2f}:1, under {least}:1")
    assert low == [], f"{theme}: {low}"


def test_the_pairs_name_the_colours_the_rules_use() -> None:
    """The pairs above are the page's: each background and text variable is used by a rule of board.css."""
    for text, background, _, _ in PAIRS:
        for name in (text, background):
            if not name.startswith("#"):
                assert f"var(--{name})" in CSS, name


# The review page (review.css over board.css): its own colours on the board page's backgrounds.
REVIEW_CSS = (STATIC_DIR / "review.css").read_text(encoding="utf-8")
REVIEW_PAIRS = [
    ("link", "page-bg", TEXT, "the Home link"),
    ("link", "panel", TEXT, "the downloads, the proof's 'verified'"),
    ("danger", "panel", TEXT, "the proof's failed check"),
    ("better", "page-bg", TEXT, "the better play written under the board"),
    ("mark-bad", "panel", TEXT, "a play's mark in the list"),
    ("mark-bad", "panel-turn", TEXT, "the mark of the play shown"),
    ("hint", "panel", TEXT, "a play's loss, the figures' labels"),
    ("text", "panel-turn", TEXT, "the play shown in the list"),
]


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_text_of_the_review_stands_out_from_its_background(theme: str) -> None:
    colours = THEMES[theme] | themes(REVIEW_CSS)[theme]
    low = []
    for text, background, least, where in REVIEW_PAIRS:
        ratio = contrast(colours[text], colours[background])
        if ratio < least:
            low.append(f"{where}: {text} on {background} is {ratio:.2f}:1, under {least}:1")
        assert f"var(--{text})" in REVIEW_CSS + CSS
    assert low == [], f"{theme}: {low}"
