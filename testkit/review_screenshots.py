"""The pictures of the review page in docs/: a real finished short game (testkit/review_pages.py: fair dice,
the engine's analysis) at a play that lost equity, the expert's better play drawn as arrows, in the light
and the dark, on a phone and a desktop (`python -m testkit.review_screenshots [FOLDER]`). The review's stub
server in a thread of its own; Chromium driven from this one."""

from __future__ import annotations

import sys
from pathlib import Path

from testkit.browser.launch import DESKTOP, PHONE, launch
from testkit.review_pages import ReviewServer, open_review, review_payload

GAME = "Xk3fQ9pLm2/1"


def screenshots(out: Path) -> list[Path]:
    """docs/webapp-review-{light,dark}-{phone,desktop}.png."""
    from playwright.sync_api import sync_playwright

    data = review_payload("short", seed=3, names=("Alice", "Bob"), game_name=GAME)
    data["title"] = "Short nardy (backgammon) · Alice – Bob"
    assert data["analysis"] is not None
    shown = next(j for j in data["analysis"]["plays"] if j["loss"] >= 0.08 and len(j["best_moves"]) >= 2)
    written = []
    with ReviewServer() as server, sync_playwright() as playwright:
        server.add(data)
        browser = launch(playwright)
        for scheme in ("light", "dark"):
            for device, options in (("phone", PHONE), ("desktop", DESKTOP)):
                context = browser.new_context(color_scheme=scheme, **options)
                page = context.new_page()
                open_review(page, server, GAME, scheme=scheme)
                page.wait_for_selector("#proof-verdict.ok", timeout=15000)
                page.click(f'#plays button[data-frame="{shown["n"]}"]')
                page.evaluate("window.scrollTo(0, 0)")
                path = out / f"webapp-review-{scheme}-{device}.png"
                page.screenshot(path=str(path), full_page=True)
                written.append(path)
                context.close()
        browser.close()
    return written


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for path in screenshots(folder):
        print(path)
