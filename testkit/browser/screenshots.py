"""The pictures of the board page in docs/: a game in its middle of each variant, in the light and the dark,
on a phone and a desktop (`python -m testkit.browser docs`)."""

from __future__ import annotations

import io
from pathlib import Path

from bot.web.protocol import Press
from engine import Side, to_absolute
from testkit.browser.launch import DESKTOP, PHONE, launch
from testkit.browser.page import checker_centre, open_board
from testkit.browser.stub_server import StubServer
from testkit.browser.stub_table import StubTable


def _best(table: StubTable) -> None:
    """The side on turn plays the legal play that hits most (then the engine's first), then Done."""
    plays = table.game.legal_plays()
    play = max(plays, key=lambda p: sum(m.hit for m in p.moves))
    for move in play.moves:
        assert table.apply(Press(table.version, "move", move.src, move.die), table.game.turn) is None
    assert table.apply(Press(table.version, "done"), table.game.turn) is None


def scene(variant: str, lang: str = "en") -> StubTable:
    """A game in its middle for the screenshots: a few turns played, a hit, the cube turned and a match
    score in short nardy; White (Alice) on turn with one move made, its last move marked."""
    names = ("Алиса", "Bob") if lang == "ru" else ("Alice", "Bob")
    if variant == "short":
        table = StubTable.start(
            variant,
            variant,
            (3, 1),
            later=[(6, 4), (5, 2), (4, 2), (6, 3), (3, 3), (6, 2), (5, 1)],
            computer=Side.BLACK,
            names=names,
            lang=lang,
            cube=True,
            match_to=5,
            score=(2, 1),
        )
        _best(table)
        assert table.apply(Press(table.version, "roll"), Side.WHITE) is None
        _best(table)
        assert table.apply(Press(table.version, "double"), Side.WHITE) is None  # Bob takes; White rolls
    else:
        table = StubTable.start(
            variant,
            variant,
            (6, 5),
            later=[(4, 2), (5, 3), (6, 1), (3, 2), (6, 6), (5, 4), (2, 1), (6, 4)],
            computer=Side.BLACK,
            names=names,
            lang=lang,
        )
        for _ in range(3):
            _best(table)
    move = table.step_now().next_moves[0]
    assert table.apply(Press(table.version, "move", move.src, move.die), Side.WHITE) is None
    return table


def screenshots(out: Path) -> list[Path]:
    """docs/webapp-{short,long}-{light,dark}-{phone,desktop}.png: the page with a checker selected (the
    phone in the dark in Russian): `python -m testkit.browser docs`."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    written = []
    with StubServer() as server, sync_playwright() as playwright:
        browser = launch(playwright)
        for variant in ("short", "long"):
            for scheme in ("light", "dark"):
                for device, options in (("phone", PHONE), ("desktop", DESKTOP)):
                    table = server.add(
                        scene(variant, "ru" if scheme == "dark" and device == "phone" else "en")
                    )
                    context = browser.new_context(color_scheme=scheme, **options)
                    page = context.new_page()
                    open_board(page, server, table.id, "white")
                    source = table.step_now().next_moves[-1]
                    start = "bar" if source.src == 25 else to_absolute(variant, Side.WHITE, source.src)
                    if device == "phone":
                        page.touchscreen.tap(*checker_centre(page, start, 0))
                    else:
                        page.mouse.click(*checker_centre(page, start, 0))
                    path = out / f"webapp-{variant}-{scheme}-{device}.png"
                    picture = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
                    # 256 colours: a third of the bytes in git, no visible change on flat colours
                    picture.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
                        path, optimize=True
                    )
                    written.append(path)
                    context.close()
        browser.close()
    return written
