"""The Mini App: one board page in the browser (static/: index.html, board.css, and board/: the page's ES
modules, main.js first) and the JSON it speaks over one WebSocket (protocol.py). The page is served at /app/,
its files at /app/static/..., the socket at /app/ws; every answer carries CONTENT_SECURITY_POLICY (the page
has no inline script or style).

The bot serves it itself (server.py): who is on a page and what their presses do (sockets.py, auth.py), what
a page is sent (states.py), every save reaching every page through Redis (live.py); and with no Telegram at
all, the sandbox (sandbox.py, its start page in static/sandbox/).
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
PAGE = STATIC_DIR / "index.html"  # a game's board
HOME = STATIC_DIR / "home.html"  # the home: the player's games, a new game, their statistics
REVIEW = STATIC_DIR / "review.html"  # a finished game's review: its plays, their analysis, its dice proof
# The page's files by their suffix as served (the board's scripts are ES modules: a browser runs a module
# only if it comes as JavaScript).
CONTENT_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}

# telegram.org: the Mini App script, which the page loads only when Telegram opened it.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'"
)
