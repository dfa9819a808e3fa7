"""The page's feed: the table's public topics, as MQTT publishes them, fanned out to pages.

One source of truth: the store tells the feed of every message and retained topic once its
transaction committed (``EventStore.listeners``), the very bytes MQTT will publish, so a page
sees nothing the topics do not show (nothing concealed) and a reloaded page is given what a
page that never left has: the retained ``state`` and ``scores`` and the hand's ``log`` (every
message of the hand in play, the last :data:`LOG_KEEP`), which the page folds the same way.

A page that cannot keep up is dropped, never waited for: each has a bounded queue, and a full
queue closes it (it reconnects and starts from the snapshot).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

log = logging.getLogger("mjtable.web")

LOG_KEEP = 400  # messages of the hand in play a page is given when it (re)loads
QUEUE = 512  # messages a page may fall behind before it is dropped
# The topics a viewer is given; commands and their results are the console's own business.
PUBLIC = ("events", "state", "scores", "adjudications", "prompts")
RETAINED = ("state", "scores")


class Page:
    """One open page: its queue of messages to send, and whether it was dropped."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)
        self.dropped = False


class Feed:
    def __init__(self, topic_root: str, settings: Mapping[str, Any] | None = None) -> None:
        self.root = topic_root.rstrip("/") + "/"
        self.settings = dict(settings or {})
        self.retained: dict[str, Any] = {}
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_KEEP)
        self.pages: set[Page] = set()
        self.sent = 0
        self.dropped = 0

    # -- in: the store's listener ------------------------------------------------------------

    def seed(self, retained: Mapping[str, bytes]) -> None:
        """The retained topics as the store keeps them (a page opened after a restart)."""
        for topic, payload in retained.items():
            name = self._name(topic)
            if name in RETAINED:
                self.retained[name] = json.loads(payload)

    def replay(self, messages: Iterable[tuple[str, bytes]]) -> None:
        """The hand in play's messages, derived again from the log (a service starting:
        controller/published.py), so a page opened after a restart draws what a page that
        never left draws."""
        for topic, payload in messages:
            self._take(topic, payload)

    def on_store(self, messages: Sequence[tuple[str, bytes, int | None]],
                 retained: Mapping[str, bytes]) -> None:
        """Called on the service's loop right after each store transaction."""
        out: list[dict[str, Any]] = []
        for topic, payload, _ in messages:
            item = self._take(topic, payload)
            if item is not None:
                out.append(item)
        for topic, payload in retained.items():
            name = self._name(topic)
            if name in RETAINED:
                body = json.loads(payload)
                self.retained[name] = body
                out.append({"topic": name, "body": body})
        if out:
            self._fan_out(json.dumps(out, separators=(",", ":")))

    def _take(self, topic: str, payload: bytes) -> dict[str, Any] | None:
        """A public message into the hand's log (None: not for pages)."""
        name = self._name(topic)
        if name not in PUBLIC:
            return None
        body = json.loads(payload)
        if name == "events" and body.get("type") == "HandStarted":
            self.log.clear()  # the page's log is the hand in play
        item = {"topic": name, "body": body}
        self.log.append(item)
        return item

    def _name(self, topic: str) -> str:
        return topic[len(self.root):] if topic.startswith(self.root) else ""

    def _fan_out(self, data: str) -> None:
        for page in list(self.pages):
            try:
                page.queue.put_nowait(data)
                self.sent += 1
            except asyncio.QueueFull:
                self.drop(page)

    # -- out: pages ----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "state": self.retained.get("state"),
            "scores": self.retained.get("scores"),
            "log": list(self.log),
            "settings": self.settings,
        }

    def open(self) -> Page:
        page = Page()
        self.pages.add(page)
        return page

    def close(self, page: Page) -> None:
        self.pages.discard(page)

    def drop(self, page: Page) -> None:
        """A page that fell behind: told to go (it reloads from the snapshot)."""
        if page.dropped:
            return
        page.dropped = True
        self.dropped += 1
        self.pages.discard(page)
        while not page.queue.empty():
            page.queue.get_nowait()
        page.queue.put_nowait(None)
        log.info("a page fell %d messages behind: dropped", QUEUE)
