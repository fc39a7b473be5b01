"""Configuration from the environment, and a logging filter that keeps the bot token out of the logs."""

from __future__ import annotations

import logging
import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.observe.logs import use_json


class ConfigError(ValueError):
    """The environment does not describe a runnable bot (e.g. BOT_TOKEN is missing)."""


def default_render_processes(cpus: int | None = None) -> int:
    """Render processes when NARDY_RENDER_PROCESSES is unset: one fewer than the CPUs, at most 2.

    Drawn in a thread, a picture's many small Pillow calls each wait for the interpreter lock held by
    the event loop: `python bench/load.py` served 120 moves/s that way and 174 with two processes."""
    count = os.cpu_count() if cpus is None else cpus
    return max(0, min(2, (count or 1) - 1))


@dataclass(frozen=True)
class Config:
    """Everything the bot reads from the environment.

    BOT_TOKEN (required), REDIS_URL (absent: an embedded redis-server in NARDY_DATA_DIR),
    TELEGRAM_API_URL (root URL of a local Bot API server, e.g. http://127.0.0.1:8081), LOG_LEVEL.
    Webhook mode (several workers behind a load balancer) when WEBHOOK_URL is set: the public https URL
    Telegram posts to; WEBHOOK_LISTEN (default 0.0.0.0) and WEBHOOK_PORT (default 8080) where this worker
    listens (the URL's path is served); WEBHOOK_SECRET (required in webhook mode: without it anyone who
    reaches the port could post updates as any user) is checked on every delivery.
    NARDY_CLAIM_AFTER: seconds a player on turn may stay idle before the opponent may claim the game.
    NARDY_SEEK_TIMEOUT: seconds a quick-match search waits for an opponent before it ends (1..86400; 300).
    NARDY_REMIND_AFTER: seconds a player on turn against another person may stay idle before the bot nudges
    them in their private chat (0: no reminders); NARDY_REMINDERS_PER_GAME: at most that many nudges per
    game of a series (0: none).
    NARDY_MEDIA_CHAT_ID: a chat of the bot's (a private channel) where the pictures of inline games' boards
    are uploaded first (an inline message's media can be edited to a file_id only); unset: no inline games.
    NARDY_RENDER_PROCESSES: processes that draw the board pictures (0: a thread of the bot's own process);
    by default one fewer than the CPUs, at most 2, so that the event loop keeps a core to itself.
    NARDY_COMPUTER_PROCESSES: processes that make the computer opponent's decisions (default 1; 0: a
    thread of the bot's own process, whose searches then hold the interpreter lock the loop needs).
    NARDY_REDIS_TIMEOUT: seconds any one wait on Redis may take (a connection, a command's answer) before
    it counts as not answering (default 1; 0.05..10).
    The Mini App (the board page, bot/web/) when NARDY_WEBAPP_URL is set: see WebAppConfig.
    Metrics and health (/metrics, /healthz, /readyz) when NARDY_METRICS_PORT is set: see MetricsConfig.
    NARDY_LOG_FORMAT: "text" (the default) or "json" (one JSON object a line, bot/observe/logs.py)."""

    token: str = field(repr=False)
    redis_url: str | None = None
    api_url: str | None = None
    log_level: str = "INFO"
    data_dir: Path = Path("data")
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8080
    webhook_secret: str | None = field(default=None, repr=False)
    render_processes: int = 0
    computer_processes: int = 1
    analysis_processes: int = 1
    claim_after: float = 24 * 3600.0
    seek_timeout: float = 300.0
    remind_after: float = 600.0
    reminders_per_game: int = 3
    media_chat_id: int | None = None
    redis_timeout: float = 1.0
    webapp: WebAppConfig | None = None  # the board page (Mini App); None: off
    metrics: MetricsConfig | None = None  # /metrics, /healthz, /readyz (bot/observe/server.py); None: off
    log_format: str = "text"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        env = os.environ if environ is None else environ
        token = env.get("BOT_TOKEN", "").strip()
        if not token:
            raise ConfigError("BOT_TOKEN is not set: put the token from @BotFather in the environment")
        level = env.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if not isinstance(logging.getLevelName(level), int):
            raise ConfigError(f"LOG_LEVEL={level!r} is not a logging level (DEBUG, INFO, WARNING, ERROR)")
        webhook_url = env.get("WEBHOOK_URL", "").strip() or None
        if webhook_url is not None and not webhook_url.startswith(("https://", "http://")):
            raise ConfigError(f"WEBHOOK_URL={webhook_url!r} is not an http(s) URL")
        raw_port = env.get("WEBHOOK_PORT", "").strip() or "8080"
        if not raw_port.isdigit() or not 0 < int(raw_port) < 65536:
            raise ConfigError(f"WEBHOOK_PORT={raw_port!r} is not a port number (1..65535)")
        raw_procs = env.get("NARDY_RENDER_PROCESSES", "").strip() or str(default_render_processes())
        if not raw_procs.isdigit() or int(raw_procs) > 64:
            raise ConfigError(f"NARDY_RENDER_PROCESSES={raw_procs!r} is not a number of processes (0..64)")
        raw_computers = env.get("NARDY_COMPUTER_PROCESSES", "").strip() or "1"
        if not (raw_computers.isascii() and raw_computers.isdigit()) or int(raw_computers) > 64:
            raise ConfigError(
                f"NARDY_COMPUTER_PROCESSES={raw_computers!r} is not a number of processes (0..64; "
                "0: the computer decides in a thread of the bot's process)"
            )
        raw_analysts = env.get("NARDY_ANALYSIS_PROCESSES", "").strip() or "1"
        if not (raw_analysts.isascii() and raw_analysts.isdigit()) or int(raw_analysts) > 8:
            raise ConfigError(
                f"NARDY_ANALYSIS_PROCESSES={raw_analysts!r} is not a number of processes (0..8; "
                "0: analyses, hints and replays are worked out in a thread of the bot's process)"
            )
        secret = env.get("WEBHOOK_SECRET", "").strip() or None
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise ConfigError(
                "WEBHOOK_SECRET must be 1-256 characters A-Z, a-z, 0-9, _ and - (Telegram's rule)"
            )
        if webhook_url is not None and secret is None:
            raise ConfigError(
                "WEBHOOK_URL is set but WEBHOOK_SECRET is not: without it anyone who reaches the port can "
                "post updates as any user. Set WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -), the same for every worker"
            )
        claim_after = claim_after_from_env(env)
        seek_timeout = seek_timeout_from_env(env)
        remind_after, reminders_per_game = reminders_from_env(env)
        raw_media = env.get("NARDY_MEDIA_CHAT_ID", "").strip()
        if raw_media and not re.fullmatch(r"-?[0-9]{1,20}", raw_media):
            raise ConfigError(
                f"NARDY_MEDIA_CHAT_ID={raw_media!r} is not a chat id (a number, e.g. -1001234567890 for a channel)"
            )
        return cls(
            metrics=metrics_from_env(env),
            log_format=log_format_from_env(env),
            webapp=webapp_from_env(env),
            redis_timeout=redis_timeout_from_env(env),
            media_chat_id=int(raw_media) if raw_media else None,
            claim_after=claim_after,
            seek_timeout=seek_timeout,
            remind_after=remind_after,
            reminders_per_game=reminders_per_game,
            token=token,
            webhook_url=webhook_url,
            webhook_listen=env.get("WEBHOOK_LISTEN", "").strip() or "0.0.0.0",
            webhook_port=int(raw_port),
            webhook_secret=secret,
            render_processes=int(raw_procs),
            computer_processes=int(raw_computers),
            analysis_processes=int(raw_analysts),
            redis_url=env.get("REDIS_URL", "").strip() or None,
            api_url=env.get("TELEGRAM_API_URL", "").strip() or None,
            log_level=level,
            data_dir=Path(env.get("NARDY_DATA_DIR", "").strip() or "data"),
        )

    @property
    def base_url(self) -> str:
        """The Bot API base URL the token is appended to."""
        return api_base_url(self.api_url)

    @property
    def base_file_url(self) -> str:
        root = (self.api_url or "https://api.telegram.org").rstrip("/")
        root = root.removesuffix("/bot")
        return f"{root}/file/bot"


DEFAULT_CLAIM_AFTER = 24 * 3600.0
DEFAULT_WEBAPP_PORT = 8081
DEFAULT_WEBAPP_MAX_AGE = 24 * 3600.0
MAX_WEBAPP_MAX_AGE = 30 * 24 * 3600.0
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # where a Mini App URL may be plain http (tests, sandbox)


@dataclass(frozen=True)
class WebAppConfig:
    """The board page served by the bot itself (bot/web/server.py), on when NARDY_WEBAPP_URL is set.

    NARDY_WEBAPP_URL: the public https URL of the page, /app/ of this server behind a reverse proxy that
    terminates TLS (what @BotFather's /newapp is given); boards in private chats get a web_app button to it.
    NARDY_WEBAPP_LISTEN, NARDY_WEBAPP_PORT: where the server listens (default 0.0.0.0, 8081).
    NARDY_WEBAPP_MAX_AGE: seconds a page's Telegram initData stays good (its auth_date; default a day).
    NARDY_WEBAPP_NAME: the Mini App's short name in @BotFather: group and inline boards get a Direct Link
    (t.me/<bot>/<name>?startapp=<game>), since Telegram allows web_app buttons in private chats only."""

    url: str
    listen: str = "0.0.0.0"
    port: int = DEFAULT_WEBAPP_PORT
    max_age: float = DEFAULT_WEBAPP_MAX_AGE
    name: str | None = None

    @property
    def origin(self) -> str:
        """The page's origin ("https://host[:port]"): a WebSocket from any other one is refused."""
        parts = urllib.parse.urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}".lower()

    def page(self, game_id: str) -> str:
        """The page of one game (a web_app button's URL)."""
        return f"{self.url}?game={urllib.parse.quote(game_id, safe='')}"


def webapp_from_env(environ: Mapping[str, str] | None = None) -> WebAppConfig | None:
    """The NARDY_WEBAPP_* settings (WebAppConfig), or None when NARDY_WEBAPP_URL is unset."""
    env = os.environ if environ is None else environ
    url = env.get("NARDY_WEBAPP_URL", "").strip()
    others = ("NARDY_WEBAPP_NAME", "NARDY_WEBAPP_PORT", "NARDY_WEBAPP_LISTEN", "NARDY_WEBAPP_MAX_AGE")
    if not url:
        given = [name for name in others if env.get(name, "").strip()]
        if given:
            raise ConfigError(f"{', '.join(given)} set but NARDY_WEBAPP_URL is not: the board page is off")
        return None
    parts = urllib.parse.urlsplit(url)
    local = parts.scheme == "http" and parts.netloc.rsplit(":", 1)[0] in LOCAL_HOSTS
    if not (parts.scheme == "https" or local) or not parts.netloc:
        raise ConfigError(
            f"NARDY_WEBAPP_URL={url!r} is not an https:// URL (Telegram opens Mini Apps over HTTPS only: put a "
            "reverse proxy with a certificate in front of NARDY_WEBAPP_PORT)"
        )
    if parts.query or parts.fragment or not parts.path.endswith("/"):
        raise ConfigError(
            f"NARDY_WEBAPP_URL={url!r} must be the page's folder, ending in / with no query (e.g. "
            "https://nardy.example.org/app/)"
        )
    raw_port = env.get("NARDY_WEBAPP_PORT", "").strip() or str(DEFAULT_WEBAPP_PORT)
    if not (raw_port.isascii() and raw_port.isdigit()) or not 0 < int(raw_port) < 65536:
        raise ConfigError(f"NARDY_WEBAPP_PORT={raw_port!r} is not a port number (1..65535)")
    raw_age = env.get("NARDY_WEBAPP_MAX_AGE", "").strip()
    max_age = DEFAULT_WEBAPP_MAX_AGE
    if raw_age:
        try:
            max_age = float(raw_age)
        except ValueError:
            raise ConfigError(f"NARDY_WEBAPP_MAX_AGE={raw_age!r} is not a number of seconds") from None
        if not 60 <= max_age <= MAX_WEBAPP_MAX_AGE:
            raise ConfigError(
                f"NARDY_WEBAPP_MAX_AGE={raw_age!r} must be 60 to {MAX_WEBAPP_MAX_AGE:.0f} seconds"
            )
    name = env.get("NARDY_WEBAPP_NAME", "").strip() or None
    if name is not None and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", name):
        raise ConfigError(
            f"NARDY_WEBAPP_NAME={name!r} is not a Mini App's short name (3-30 of A-Z a-z 0-9 _, as @BotFather's "
            "/newapp took it)"
        )
    return WebAppConfig(
        url=url,
        listen=env.get("NARDY_WEBAPP_LISTEN", "").strip() or "0.0.0.0",
        port=int(raw_port),
        max_age=max_age,
        name=name,
    )


DEFAULT_METRICS_LISTEN = "127.0.0.1"


@dataclass(frozen=True)
class MetricsConfig:
    """The worker's metrics and health endpoint (bot/observe/server.py), on when NARDY_METRICS_PORT is set.

    NARDY_METRICS_PORT: the port of /metrics (Prometheus's text format), /healthz and /readyz; each worker
    of several needs its own (several workers are several targets). NARDY_METRICS_LISTEN: the address
    (default 127.0.0.1: only this machine; 0.0.0.0 for a scraper elsewhere). NARDY_METRICS_TOKEN: when set,
    /metrics asks for `Authorization: Bearer <token>` (the health probes never do)."""

    port: int
    listen: str = DEFAULT_METRICS_LISTEN
    token: str | None = field(default=None, repr=False)


def metrics_from_env(environ: Mapping[str, str] | None = None) -> MetricsConfig | None:
    """The NARDY_METRICS_* settings (MetricsConfig), or None when NARDY_METRICS_PORT is unset."""
    env = os.environ if environ is None else environ
    raw_port = env.get("NARDY_METRICS_PORT", "").strip()
    if not raw_port:
        given = [n for n in ("NARDY_METRICS_LISTEN", "NARDY_METRICS_TOKEN") if env.get(n, "").strip()]
        if given:
            raise ConfigError(f"{', '.join(given)} set but NARDY_METRICS_PORT is not: the metrics are off")
        return None
    if not (raw_port.isascii() and raw_port.isdigit()) or not 0 < int(raw_port) < 65536:
        raise ConfigError(f"NARDY_METRICS_PORT={raw_port!r} is not a port number (1..65535)")
    token = env.get("NARDY_METRICS_TOKEN", "").strip() or None
    if token is not None and not re.fullmatch(r"[A-Za-z0-9._~+/=-]{16,256}", token):
        raise ConfigError(
            "NARDY_METRICS_TOKEN must be 16-256 characters of A-Z a-z 0-9 . _ ~ + / = - (a bearer token)"
        )
    return MetricsConfig(
        port=int(raw_port),
        listen=env.get("NARDY_METRICS_LISTEN", "").strip() or DEFAULT_METRICS_LISTEN,
        token=token,
    )


def log_format_from_env(environ: Mapping[str, str] | None = None) -> str:
    """NARDY_LOG_FORMAT: "text" (default) or "json"."""
    env = os.environ if environ is None else environ
    raw = env.get("NARDY_LOG_FORMAT", "").strip().lower() or "text"
    if raw not in ("text", "json"):
        raise ConfigError(f"NARDY_LOG_FORMAT={raw!r} is neither text nor json")
    return raw


def claim_after_from_env(environ: Mapping[str, str] | None = None) -> float:
    """NARDY_CLAIM_AFTER: seconds a player on turn may stay idle before the opponent can claim the game."""
    env = os.environ if environ is None else environ
    raw = env.get("NARDY_CLAIM_AFTER", "").strip()
    if not raw:
        return DEFAULT_CLAIM_AFTER
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"NARDY_CLAIM_AFTER={raw!r} is not a number of seconds") from None
    if not 0 <= value < float("inf"):
        raise ConfigError(f"NARDY_CLAIM_AFTER={raw!r} must be 0 or more seconds")
    return value


DEFAULT_REMIND_AFTER = 600.0
DEFAULT_REMINDERS_PER_GAME = 3
MAX_REMINDERS_PER_GAME = 100


def reminders_from_env(environ: Mapping[str, str] | None = None) -> tuple[float, int]:
    """NARDY_REMIND_AFTER (seconds of idleness before a turn reminder; 0: none) and NARDY_REMINDERS_PER_GAME
    (at most that many per game of a series; 0: none)."""
    env = os.environ if environ is None else environ
    raw = env.get("NARDY_REMIND_AFTER", "").strip()
    after = DEFAULT_REMIND_AFTER
    if raw:
        try:
            after = float(raw)
        except ValueError:
            raise ConfigError(
                f"NARDY_REMIND_AFTER={raw!r} is not a number of seconds (0: no turn reminders)"
            ) from None
        if not 0 <= after < float("inf"):
            raise ConfigError(f"NARDY_REMIND_AFTER={raw!r} must be 0 or more seconds (0: no turn reminders)")
    raw_count = env.get("NARDY_REMINDERS_PER_GAME", "").strip()
    count = DEFAULT_REMINDERS_PER_GAME
    if raw_count:
        if not (raw_count.isascii() and raw_count.isdigit()) or int(raw_count) > MAX_REMINDERS_PER_GAME:
            raise ConfigError(
                f"NARDY_REMINDERS_PER_GAME={raw_count!r} is not a number of reminders "
                f"(0..{MAX_REMINDERS_PER_GAME}; 0: no turn reminders)"
            )
        count = int(raw_count)
    return after, count


DEFAULT_SEEK_TIMEOUT = 300.0
MAX_SEEK_TIMEOUT = 24 * 3600.0


def seek_timeout_from_env(environ: Mapping[str, str] | None = None) -> float:
    """NARDY_SEEK_TIMEOUT: seconds a quick-match search waits for an opponent before it ends (with an offer to
    play the computer); 1 second to a day."""
    env = os.environ if environ is None else environ
    raw = env.get("NARDY_SEEK_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_SEEK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"NARDY_SEEK_TIMEOUT={raw!r} is not a number of seconds") from None
    if not 1 <= value <= MAX_SEEK_TIMEOUT:
        raise ConfigError(f"NARDY_SEEK_TIMEOUT={raw!r} must be 1 to {MAX_SEEK_TIMEOUT:.0f} seconds")
    return value


DEFAULT_REDIS_TIMEOUT = 1.0
MIN_REDIS_TIMEOUT = 0.05
MAX_REDIS_TIMEOUT = 10.0


def redis_timeout_from_env(environ: Mapping[str, str] | None = None) -> float:
    """NARDY_REDIS_TIMEOUT: seconds any one wait on Redis may take (a connection, a free connection of the
    pool, a command's answer) before Redis counts as not answering; 0.05 to 10. Whatever it is, an update
    is answered within about 3 s (bot/telegram/handlers/common.py): a press then says "try again in a moment"."""
    env = os.environ if environ is None else environ
    raw = env.get("NARDY_REDIS_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_REDIS_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"NARDY_REDIS_TIMEOUT={raw!r} is not a number of seconds") from None
    if not MIN_REDIS_TIMEOUT <= value <= MAX_REDIS_TIMEOUT:
        raise ConfigError(
            f"NARDY_REDIS_TIMEOUT={raw!r} must be {MIN_REDIS_TIMEOUT:g} to {MAX_REDIS_TIMEOUT:g} seconds"
        )
    return value


def api_base_url(api_url: str | None) -> str:
    """`http://host:port` or `http://host:port/bot` -> `http://host:port/bot` (the default is Telegram's)."""
    root = (api_url or "https://api.telegram.org").rstrip("/")
    return root if root.endswith("/bot") else f"{root}/bot"


class TokenFilter(logging.Filter):
    """Replaces the bot token in every log record with `<BOT_TOKEN>` (httpx logs request URLs)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._token:
            return True
        message = record.getMessage()
        if self._token in message:
            record.msg = message.replace(self._token, "<BOT_TOKEN>")
            record.args = None
        if record.exc_info and record.exc_text is None and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            if self._token in text:
                record.exc_text = text.replace(self._token, "<BOT_TOKEN>")
        return True


def setup_logging(config: Config) -> None:
    """Root logging at config.log_level to stderr, with the token masked on every handler."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=config.log_level)
    token_filter = TokenFilter(config.token)
    for handler in logging.getLogger().handlers:
        handler.addFilter(token_filter)
    if config.log_format == "json":
        use_json(logging.getLogger().handlers)
    logging.getLogger("httpx").setLevel(logging.WARNING)
