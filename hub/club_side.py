"""The events side of ``mjtable hub``: the organiser's desk on the club broker
(:mod:`hub.rounds_mqtt`) and, where asked for, the club page (:mod:`hub.web.server`).

Each keeps its own connection to the club database and to the broker, so the hub's ingest
never waits on a standings computation or a page; and it starts only once the hub has
subscribed (:class:`Beside`), so it never delays the tables' events either."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from hub.db import open_db
from hub.rounds_mqtt import RoundsService

log = logging.getLogger("mjtable.hub")


class ClubSide:
    def __init__(self, db: str, host: str, port: int, web: tuple[str, int] | None = None,
                 username: str | None = None, password: str | None = None,
                 hub_id: str = "hub", organiser_password: str | None = None) -> None:
        self.db = open_db(db)
        self.desk = RoundsService(self.db, host, port, username=username, password=password,
                                  client_id=f"mjtable-{hub_id}-desk")
        self.view: Any = None
        self.page: Any = None
        if web is not None:  # aiohttp only where a page is served
            from hub.web.club_view import ClubView
            from hub.web.server import ClubPage, organiser_sessions

            self.view = ClubView(host, port, username=username, password=password,
                                 client_id=f"mjtable-{hub_id}-page")
            # the organiser's desk on the page, where the hub has an organiser's password
            self.page = ClubPage(self.view, self.db, *web, ask=self.desk.ask,
                                 sessions=organiser_sessions(organiser_password))
        self.loop: asyncio.AbstractEventLoop | None = None
        self.url = ""

    def start(self) -> None:
        self.desk.start()
        if self.page is None:
            return
        self.view.start()
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="club-page", daemon=True).start()
        self.url = asyncio.run_coroutine_threadsafe(self.page.start(), self.loop).result(10)
        log.info("the club page: %s", self.url)

    def stop(self) -> None:
        if self.page is not None and self.loop is not None:
            asyncio.run_coroutine_threadsafe(self.page.stop(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self.view is not None:
            self.view.stop()
        self.desk.stop()
        self.db.close()


class Beside:
    """Starts the events side once ``ready`` is set (the hub has subscribed), on a thread of
    its own; :meth:`stop` stops it if it started."""

    def __init__(self, ready: threading.Event, make: Callable[[], ClubSide]) -> None:
        self._ready, self._make = ready, make
        self._lock = threading.Lock()
        self._stopped = False
        self.side: ClubSide | None = None
        threading.Thread(target=self._run, name="club-side", daemon=True).start()

    def _run(self) -> None:
        self._ready.wait()
        with self._lock:
            if self._stopped:
                return
            try:
                self.side = self._make()
                self.side.start()
            except Exception:  # the hub goes on without its desk: say why
                log.exception("the club's desk and page did not start")

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self.side is not None:
                self.side.stop()
