"""The events side of ``mjtable hub``: the organiser's desk on the club broker
(:mod:`hub.rounds_mqtt`) and, where asked for, the club page (:mod:`hub.web.server`).

Each keeps its own connection to the club database and to the broker, so the hub's ingest
never waits on a standings computation or a page."""

from __future__ import annotations

import asyncio
import logging
import threading

from hub.db import open_db
from hub.rounds_mqtt import RoundsService
from hub.web.club_view import ClubView
from hub.web.server import ClubPage

log = logging.getLogger("mjtable.hub")


class ClubSide:
    def __init__(self, db: str, host: str, port: int, web: tuple[str, int] | None = None,
                 username: str | None = None, password: str | None = None,
                 hub_id: str = "hub") -> None:
        self.db = open_db(db)
        self.desk = RoundsService(self.db, host, port, username=username, password=password,
                                  client_id=f"mjtable-{hub_id}-desk")
        self.view = ClubView(host, port, username=username, password=password,
                             client_id=f"mjtable-{hub_id}-page") if web else None
        self.page = ClubPage(self.view, self.db, *web) if self.view and web else None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.url = ""

    def start(self) -> None:
        self.desk.start()
        if self.page is None or self.view is None:
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
