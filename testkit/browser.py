"""The board page (bot/web/static) in a real browser: Debian's Chromium driven by Playwright, and a stub
server that serves the page and speaks its protocol (bot/web/protocol.py) over the real engine.

`StubServer` runs aiohttp on 127.0.0.1 (a free port) in a thread of its own, so a test drives the
browser with Playwright's sync API and scripts the server from the same thread: `add` a `StubTable`
(a game of the engine with a version, the moves made this turn and the dice to come), read the
`hellos` and `presses` the pages sent, `refuse_next` a press, `hold` presses unanswered, `push` a state
to every page of a game, `drop` every socket (a restart), refuse sockets while `down`.

The stub decides as the bot's flow would in outline (the version, the turn, the engine's legal steps),
not in detail: it is the page's test harness, not a second server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from bot.web import CONTENT_SECURITY_POLICY, PAGE, STATIC_DIR
from bot.web.protocol import (
    Hello,
    Press,
    ProtocolError,
    error_message,
    parse_client_message,
    refused_message,
    state_message,
    steps_json,
    view_json,
)
from engine import Dice, Game, Move, NardyError, Phase, Position, Side, to_absolute
from engine.cube import Cube
from render.view import BoardView, MoveMark

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}

STATUS = {
    "en": {
        "move": "{who} to move",
        "roll": "{who} to roll",
        "cube": "{who}: take or pass?",
        "over": "{who} wins {points}",
    },
    "ru": {
        "move": "Ходит {who}",
        "roll": "Бросает {who}",
        "cube": "{who}: принять или отказаться?",
        "over": "Победа: {who}, {points}",
    },
}
NOT_YOUR_TURN = "It is not your turn."
STALE = "The board has changed: look again."
NO_SUCH_MOVE = "That checker cannot move there."


def chromium_path() -> str | None:
    """Debian's Chromium (or NARDY_CHROMIUM), or None where it is not installed."""
    named = os.environ.get("NARDY_CHROMIUM")
    for path in ((named,) if named else ()) + CHROMIUM_PATHS:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    found = shutil.which("chromium")
    return found


def launch(playwright: Playwright) -> Browser:
    """Headless Chromium from the system (Playwright downloads no browser here)."""
    path = chromium_path()
    if path is None:
        raise RuntimeError("no Chromium: apt-get install chromium (or set NARDY_CHROMIUM)")
    return playwright.chromium.launch(executable_path=path, headless=True, args=["--no-sandbox"])


# ---------------------------------------------------------------------------------------------- the games


def _pairs(dice: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    yield from dice
    while True:  # scripted dice ran out: a fixed cycle, so a long game still ends
        for a in range(1, 7):
            for b in range(a, 7):
                yield (7 - a, b)


@dataclass
class StubTable:
    """One game on the stub server: the engine's Game, the moves made this turn, a version per change.

    `players` says who each page is: a hello's initData names a side ("white"/"black"); anything else
    watches. `computer` plays that side at once (the first legal play), `dice` are the rolls to come."""

    id: str
    game: Game
    names: tuple[str, str] = ("Alice", "Bob")
    lang: str = "en"
    version: int = 1
    moves: tuple[Move, ...] = ()
    dice: Iterator[tuple[int, int]] = field(default_factory=lambda: _pairs([]))
    computer: Side | None = None
    score: tuple[int, int] = (0, 0)
    match_to: int = 1
    hint_text: str = ""

    @classmethod
    def at(
        cls,
        game_id: str,
        variant: str,
        x: dict[int, int],
        o: dict[int, int],
        dice: tuple[int, int],
        turn: Side = Side.WHITE,
        **kwargs: Any,
    ) -> StubTable:
        """`turn` to play `dice` in a position given as in RULES.md from its side (x) and the other's (o):
        `{24: 2, 13: 5}`, 25 the bar, missing checkers borne off."""
        game = Game.new(variant, starter=turn)
        game = dataclasses.replace(
            game, phase=Phase.MOVE, position=Position.from_counts(x, o), dice=Dice(*dice)
        )
        return cls(game_id, game, **kwargs)

    @classmethod
    def start(
        cls,
        game_id: str,
        variant: str,
        dice: tuple[int, int] | None = (6, 1),
        first: Side = Side.WHITE,
        later: list[tuple[int, int]] | None = None,
        cube: bool = False,
        **kwargs: Any,
    ) -> StubTable:
        """A new game of `variant` with `first` on turn: rolled `dice` (None: still to roll or double)."""
        game = Game.new(variant, starter=first, cube=Cube() if cube else None)
        if dice is not None:
            game = game.roll(*dice)
        return cls(game_id, game, dice=_pairs(list(later or [])), **kwargs)

    # ---------------------------------------------------------------- what a page sees

    def step_now(self) -> Any:
        return self.game.turn_step(self.moves)

    def view(self, viewer: Side) -> BoardView:
        """As bot/views/board_view.py draws a table: the turn in progress shown."""
        game = self.game
        rules = game.rules
        dice: tuple[int, ...] = ()
        used: tuple[int, ...] = ()
        last_mover, last = game.last_side, tuple(game.last_play.moves) if game.last_play else ()
        if game.phase is Phase.MOVE and game.dice is not None:
            step = self.step_now()
            board = rules.absolute(step.position, game.turn)
            mover, other = rules.pip_counts(step.position)
            pips = (mover, other) if game.turn is Side.WHITE else (other, mover)
            dice, used = (game.dice.a, game.dice.b), tuple(m.die for m in step.moves_made)
            if step.moves_made:
                last_mover, last = game.turn, tuple(step.moves_made)
        else:
            board = game.board()
            pips = game.pip_counts()
        to_move = game.deciding if game.phase in (Phase.MOVE, Phase.ROLL, Phase.CUBE) else None
        winner = game.result.winner if game.phase is Phase.OVER and game.result is not None else None
        marks = tuple(MoveMark(m.src, m.dst, m.hit) for m in last) if last_mover is not None else ()
        return BoardView(
            game=game.game,
            points=tuple(board.points),
            bar=(board.bar[0], board.bar[1]),
            off=(board.off[0], board.off[1]),
            viewer=viewer,
            names=self.names,
            to_move=to_move,
            dice=dice,
            dice_used=used,
            last_mover=last_mover if marks else None,
            last_move=marks,
            pips=(int(pips[0]), int(pips[1])),
            status=self.status(),
            winner=winner,
            cube=game.cube.value if game.cube is not None else None,
            cube_owner=game.cube.owner if game.cube is not None else None,
            cube_offered=game.phase is Phase.CUBE,
        )

    def status(self) -> str:
        """The status line, in the table's language (the stub's own few texts, not the bot's catalogue)."""
        texts = STATUS.get(self.lang, STATUS["en"])
        game = self.game
        if game.phase is Phase.OVER and game.result is not None:
            return texts["over"].format(who=self.names[game.result.winner], points=game.result.points)
        phase = {Phase.CUBE: "cube", Phase.ROLL: "roll"}.get(game.phase, "move")
        return texts[phase].format(who=self.names[game.deciding])

    def actions(self, you: Side) -> list[str]:
        game = self.game
        if game.phase is Phase.OVER:
            return ["rematch"]
        out: list[str] = []
        if game.deciding is you:
            if game.phase is Phase.MOVE:
                step = self.step_now()
                if self.moves:
                    out.append("undo")
                if step.can_finish:
                    out.append("done")
                if not self.moves:
                    out.append("hint")
            elif game.phase is Phase.ROLL:
                out += ["roll", "double"] if game.may_double() else ["roll"]
            elif game.phase is Phase.CUBE:
                out += ["take", "pass"]
        out.append("resign")
        return out

    def state(self, you: Side | None, message: str = "") -> dict[str, Any]:
        viewer = you if you is not None else (self.game.deciding if not self.game.is_over else Side.WHITE)
        steps: list[dict[str, Any]] = []
        game = self.game
        if you is not None and game.phase is Phase.MOVE and game.turn is you:
            steps = steps_json(game.game, you, self.step_now().next_moves)
        view = view_json(self.view(viewer), self.score, self.match_to)
        actions = self.actions(you) if you is not None else []
        return state_message(self.id, self.version, self.lang, you, view, steps, actions, message)

    # ---------------------------------------------------------------- presses

    def apply(self, press: Press, you: Side | None) -> str | None:
        """Apply a press of `you`: None when it changed the game, else the refusal's text."""
        if you is None:
            return "You are watching this game."
        if press.version != self.version:
            return STALE
        game = self.game
        action = press.action
        if action == "resign":
            if game.is_over:
                return "The game is over."
            self.game, self.moves = game.resign(you), ()
        elif action == "rematch":
            if not game.is_over:
                return "The game is not over."
            self.game, self.moves = game.rematch(), ()
            self._auto()
        elif game.is_over or game.deciding is not you:
            return NOT_YOUR_TURN
        elif action == "move":
            if game.phase is not Phase.MOVE or press.src is None or press.die is None:
                return NO_SUCH_MOVE
            move = self.step_now().find(press.src, press.die)
            if move is None:
                return NO_SUCH_MOVE
            self.moves += (move,)
        elif action == "undo":
            if not self.moves:
                return "Nothing to undo."
            self.moves = self.moves[:-1]
        elif action == "done":
            step = self.step_now() if game.phase is Phase.MOVE else None
            if step is None or not step.can_finish or step.play is None:
                return "Finish the turn first."
            self.game, self.moves = game.play(step.play), ()
            self._auto()
        elif action == "hint":
            return None
        else:
            try:
                if action == "roll":
                    self.game = game.roll(*next(self.dice))
                elif action == "double":
                    self.game = game.double()
                elif action == "take":
                    self.game = game.take()
                elif action == "pass":
                    self.game = game.drop()
            except NardyError:
                return f"You cannot {action} now."
            self._auto()
        self.version += 1
        return None

    def _auto(self) -> None:
        """Roll for a side that may not double, pass a turn with no move, and play the computer's turns."""
        for _ in range(1000):
            game = self.game
            if game.is_over:
                return
            if game.phase is Phase.ROLL and (game.turn is self.computer or not game.may_double()):
                self.game = game.roll(*next(self.dice))
            elif game.phase is Phase.CUBE and game.deciding is self.computer:
                self.game = game.take()
            elif game.phase is Phase.MOVE and (game.turn is self.computer or not game.legal_plays()[0].moves):
                self.game, self.moves = game.play(game.legal_plays()[0]), ()
            else:
                return


# ---------------------------------------------------------------------------------------------- the server


@dataclass
class _Client:
    ws: web.WebSocketResponse
    game: str = ""
    you: Side | None = None


class StubServer:
    """The page's server in miniature: /app/ (the page), /app/static/... (its files), /app/ws (the socket)."""

    def __init__(self, static: Path = STATIC_DIR) -> None:
        self.static = static
        self.tables: dict[str, StubTable] = {}
        self.hellos: list[dict[str, Any]] = []
        self.presses: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.refusals: list[str] = []  # the next presses are refused with these texts (no effect)
        self.hold = False  # presses are recorded and left unanswered
        self.down = False  # sockets are refused (the bot is restarting)
        self.fatal_hello: str | None = None  # every hello is answered with this fatal error
        self.guest: Side | None = Side.WHITE  # the side of a page with no initData (outside Telegram)
        self.connections = 0
        self._clients: list[_Client] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ---------------------------------------------------------------- lifecycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/app/"

    def page_url(self, game: str) -> str:
        return f"{self.url}?game={game}"

    def start(self) -> StubServer:
        """Serve from a thread of its own (its own event loop: Playwright's sync API holds this thread's)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        self.port = sock.getsockname()[1]
        ready = threading.Event()
        failed: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                app = web.Application(middlewares=[_security_headers])
                app.router.add_get("/app", _redirect)
                app.router.add_get("/app/", self._page)
                app.router.add_get("/app/ws", self._socket)
                app.router.add_get("/app/static/{name}", self._file)
                runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
                loop.run_until_complete(runner.setup())
                loop.run_until_complete(web.SockSite(runner, sock).start())
                self._loop, self._runner = loop, runner
            except BaseException as error:
                failed.append(error)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=serve, name="stub-page-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed:
            raise failed[0]
        return self

    def stop(self) -> None:
        if self._loop is None or self._runner is None:
            return
        self.drop()
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        self._loop = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, coro_fn: Callable[[], Any]) -> Any:
        assert self._loop is not None, "the stub server is not running"
        return asyncio.run_coroutine_threadsafe(coro_fn(), self._loop).result(10)

    # ---------------------------------------------------------------- scripting (from the test's thread)

    def add(self, table: StubTable) -> StubTable:
        self.tables[table.id] = table
        return table

    def push(self, game: str, message: str = "") -> None:
        """Send game's current state to every page showing it."""
        self._call(lambda: self._broadcast(game, message))

    def send(self, game: str, message: dict[str, Any]) -> None:
        """Send `message` as it is to every page showing `game`."""

        async def go() -> None:
            for client in list(self._clients):
                if client.game == game:
                    await self._send(client, message)

        self._call(go)

    def drop(self) -> None:
        """Close every socket, as a restart of the bot does."""

        async def go() -> None:
            for client in list(self._clients):
                await client.ws.close()

        if self._loop is not None:
            self._call(go)

    def pages(self, game: str) -> int:
        """How many pages are connected to `game` (having said hello)."""
        return sum(1 for c in self._clients if c.game == game and not c.ws.closed)

    def wait_for(self, what: Callable[[], object], timeout: float = 5.0, message: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not what():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {message or what}")
            time.sleep(0.01)

    # ---------------------------------------------------------------- aiohttp handlers

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(self.static / PAGE.name, headers={"Cache-Control": "no-cache"})

    async def _file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = self.static / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            raise web.HTTPServiceUnavailable()
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        self.connections += 1
        client = _Client(ws)
        self._clients.append(client)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                await self._receive(client, msg.data)
        finally:
            self._clients.remove(client)
        return ws

    async def _receive(self, client: _Client, text: str) -> None:
        try:
            message = parse_client_message(text)
        except ProtocolError as error:
            await self._send(client, error_message(str(error), fatal=False))
            return
        if isinstance(message, Hello):
            self.hellos.append({"game": message.game, "initData": message.init_data})
            if self.fatal_hello is not None:
                await self._send(client, error_message(self.fatal_hello, fatal=True))
                await client.ws.close()
                return
            table = self.tables.get(message.game)
            if table is None:
                await self._send(client, error_message(f"No game {message.game!r}.", fatal=True))
                await client.ws.close()
                return
            client.game = message.game
            sides = {"white": Side.WHITE, "black": Side.BLACK, "": self.guest}
            client.you = sides.get(message.init_data)
            await self._send(client, table.state(client.you))
            return
        self.presses.append(json.loads(text))
        table = self.tables.get(client.game)
        if table is None or self.hold:
            return
        if self.refusals:
            await self._send(client, refused_message(self.refusals.pop(0)))
            return
        refusal = table.apply(message, client.you)
        if refusal is not None:
            await self._send(client, refused_message(refusal))
        elif message.action == "hint":
            hint = table.hint_text or f"Best: {table.game.legal_plays()[0]}"
            await self._send(client, table.state(client.you, hint))
        else:
            await self._broadcast(client.game)

    async def _broadcast(self, game: str, message: str = "") -> None:
        table = self.tables[game]
        for client in list(self._clients):
            if client.game == game:
                await self._send(client, table.state(client.you, message))

    async def _send(self, client: _Client, message: dict[str, Any]) -> None:
        if client.ws.closed:
            return
        self.sent.append(message)
        await client.ws.send_str(json.dumps(message, ensure_ascii=False))


@web.middleware
async def _security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response: web.StreamResponse = await handler(request)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


async def _redirect(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/app/" + (f"?{request.query_string}" if request.query_string else ""))


# ---------------------------------------------------------------------------------------------- the page


CSP_WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__csp.push(e.violatedDirective + ' ' + e.blockedURI);
});
"""


# Telegram's WebApp object as far as the page uses it, outside Telegram (its colours: the browser's).
FAKE_TELEGRAM = """
window.Telegram = {WebApp: {initData: INIT_DATA, initDataUnsafe: {}, colorScheme: '', themeParams: {},
  ready: function () {}, expand: function () {}, onEvent: function () {}}};
"""


def open_board(page: Page, server: StubServer, game: str, init_data: str | None = None) -> None:
    """Open `game`'s board on `page` and wait for it drawn. Without `init_data` the page is outside
    Telegram (initData '': the stub's `guest` side); with it, a stand-in Telegram object hands the page
    that initData ("white", "black"; anything else watches) and the page skips telegram.org's script."""
    page.add_init_script(CSP_WATCH)
    if init_data is not None:
        page.add_init_script(FAKE_TELEGRAM.replace("INIT_DATA", json.dumps(init_data)))
    page.goto(server.page_url(game))
    wait_drawn(page)


def wait_drawn(page: Page, version: int | None = None, timeout: float = 15000) -> None:
    """Until the board shows a state (of `version`, if given)."""
    if version is None:
        page.wait_for_selector("#board[data-version]", timeout=timeout)
    else:
        page.wait_for_selector(f'#board[data-version="{version}"]', timeout=timeout)


def centre(page: Page, selector: str) -> tuple[float, float]:
    """The middle of the first element matching `selector`, in the page's CSS pixels."""
    box = page.locator(selector).first.bounding_box()
    if box is None:
        raise AssertionError(f"{selector} is not shown")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def checker_centre(page: Page, point: int | str, side: int) -> tuple[float, float]:
    """The middle of `side`'s top checker on `point` (absolute 1..24, or "bar")."""
    locator = page.locator(f'#board .checker[data-point="{point}"][data-side="{side}"]')
    count = locator.count()
    if not count:
        raise AssertionError(f"no checker of side {side} on {point}")
    box = locator.nth(count - 1).bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def zone_centre(page: Page, point: int | str) -> tuple[float, float]:
    """The middle of the column of `point` (absolute 1..24, "bar" or "off")."""
    return centre(page, f'#board .zone[data-point="{point}"]')


def lit(page: Page) -> set[str]:
    """The lit destinations (their data-point) on the page now."""
    return set(page.eval_on_selector_all("#board .zone.lit", "els => els.map(e => e.dataset.point)"))


def mouse_drag(page: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def touch_drag(page: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
    """A finger put down on `start`, moved to `end` and lifted (Chromium's touch input, through CDP)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [_touch(start)]})
        for k in range(1, steps + 1):
            x = start[0] + (end[0] - start[0]) * k / steps
            y = start[1] + (end[1] - start[1]) * k / steps
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [_touch((x, y))]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def _touch(at: tuple[float, float]) -> dict[str, Any]:
    return {"x": at[0], "y": at[1], "id": 1, "radiusX": 6, "radiusY": 6, "force": 1}


def csp_violations(page: Page) -> list[str]:
    found: list[str] = page.evaluate("window.__csp || []")
    return found


class Problems:
    """What went wrong on a page: script errors, console errors (CSP reports among them), failed requests."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url} {r.failure}"))

    def csp(self) -> list[str]:
        return [e for e in self.errors if "Content Security Policy" in e]


# ---------------------------------------------------------------------------------------------- screenshots


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


if __name__ == "__main__":
    import sys

    for written_path in screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(written_path)
