"""Updates on their way to the bot: getUpdates (a long poll), and webhooks. Every setWebhook URL is kept (the
fake plays Telegram and a load balancer in front of several workers); while any is set, updates are POSTed
to them, spread at random, by `max_connections` sender threads, and `duplicate_rate` of them are delivered
twice (to any worker), as Telegram may. A refused or failed delivery is retried on another URL.
deleteWebhook with `url=` forgets one URL, without it all. Telegram keeps the last allowed_updates a bot
gave and delivers only those kinds of updates."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from typing import Any

from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.state import ApiError


class UpdateDelivery(FakeCore):
    """getUpdates and the webhooks."""

    def _api_getUpdates(self, params: dict[str, Any], files: dict[str, bytes]) -> list[dict[str, Any]]:
        self._remember_allowed(params)
        offset = int(params.get("offset") or 0)
        timeout = float(params.get("timeout") or 0)
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                self._state.updates = [u for u in self._state.updates if u["update_id"] >= offset]
                if self._state.updates or time.monotonic() >= deadline or not self._serving:
                    return list(self._state.updates[:100])
                self._lock.wait(max(0.0, deadline - time.monotonic()))

    def _remember_allowed(self, params: dict[str, Any]) -> None:
        """Telegram keeps the last allowed_updates a bot gave (getUpdates or setWebhook) and delivers only
        those kinds of updates from then on."""
        allowed = params.get("allowed_updates")
        if allowed is not None:
            with self._lock:
                self._allowed = set(allowed) or None

    def _api_setWebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        self._remember_allowed(params)
        url = str(params.get("url") or "")
        if not url:
            return self._api_deleteWebhook({}, files)
        if not url.startswith("http://127.0.0.1:"):
            raise ApiError(400, f"Bad Request: the fake delivers to http://127.0.0.1 only, not {url!r}")
        with self._lock:
            self._state.webhooks[url] = str(params.get("secret_token") or "")
            while len(self._senders) < self.max_connections:
                sender = threading.Thread(target=self._send_loop, name="fake-webhook", daemon=True)
                self._senders.append(sender)
                sender.start()
        return True

    def _api_deleteWebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        with self._lock:
            if params.get("url"):  # the fake's extension: a worker that leaves the load balancer
                self._state.webhooks.pop(str(params["url"]), None)
            else:
                self._state.webhooks.clear()
        return True

    def _api_getWebhookInfo(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        with self._lock:
            url = next(iter(self._state.webhooks), "")
            return {"url": url, "has_custom_certificate": False, "pending_update_count": self._outbox.qsize()}

    def webhooks(self) -> list[str]:
        with self._lock:
            return list(self._state.webhooks)

    def wait_delivered(self, timeout: float = 30.0) -> None:
        """Block until every update queued for the webhooks was delivered (duplicates included)."""
        self.wait_for(lambda: self._undelivered == 0, timeout, "the webhook deliveries")

    def _send_loop(self) -> None:
        """One of the fake's outgoing connections: POST each update to a webhook, retry on failure."""
        connections: dict[str, http.client.HTTPConnection] = {}
        while True:
            update = self._outbox.get()
            if update is None:
                break
            with self._lock:
                targets = list(self._state.webhooks.items())
            if not targets:  # the webhooks were deleted: back to getUpdates
                self._queue_update(update, webhook=False)
                with self._lock:
                    self._undelivered -= 1
                continue
            url, secret = self._rng.choice(targets)
            if self._post_update(connections, url, secret, update):
                query = update.get("callback_query")
                if query is not None:
                    with self._lock:
                        self._state.deliveries[str(query["id"])] += 1
                with self._lock:
                    self._undelivered -= 1
                    self._lock.notify_all()
            else:
                time.sleep(0.05)  # as Telegram does, try again a little later (maybe another worker)
                self._outbox.put(update)
        for conn in connections.values():
            conn.close()

    def _post_update(
        self,
        connections: dict[str, http.client.HTTPConnection],
        url: str,
        secret: str,
        update: dict[str, Any],
    ) -> bool:
        parsed = urllib.parse.urlsplit(url)
        body = json.dumps(update).encode()
        headers = {"Content-Type": "application/json"}
        if secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        for _attempt in range(2):  # a kept-alive connection the worker closed: one fresh try
            conn = connections.get(url)
            if conn is None:
                conn = connections[url] = http.client.HTTPConnection(
                    str(parsed.hostname), parsed.port, timeout=10
                )
            try:
                conn.request("POST", parsed.path or "/", body, headers)
                response = conn.getresponse()
                response.read()
                return 200 <= response.status < 300
            except (OSError, http.client.HTTPException):
                conn.close()
                del connections[url]
        return False
