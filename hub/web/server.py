"""The club page's server (aiohttp), beside the hub.

- ``/``: the club page (every table live, the events' standings, clocks and next seating);
  ``/player/<name>``: a player's page; one page (``static/club.html``) whose script shows the
  view its path names;
- ``/api/club``: what the club broker holds now (:class:`hub.web.club_view.ClubView`);
- ``/api/player/<name>``: the player's games, hands won, the hands they made most and their
  results over time, from the club database;
- ``/api/desk/login``, ``/api/desk/logout``, ``/api/desk/session``; ``/api/desk/<verb>``: the
  organiser's desk. A signed-in organiser's command goes to the hub's desk
  (:meth:`hub.rounds_mqtt.RoundsService.ask`), the same path as ``mahjong/v1/club/cmd/<verb>``
  on the club broker, and its one answer comes back. Without an organiser's password
  (``--organiser-password-file``) there is no desk: every POST is refused;
- ``/static/``: the club page's own script and style; ``/table/``: the table page's parts
  (tile drawing and style, ``controller/web/static``), served from where they live, not copied.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.web.auth import Sessions
from controller.web.server import STATIC as TABLE_STATIC
from controller.web.signin import refuse, sign_in, sign_out
from controller.web.site import Site, shell
from hub.db import ClubDB, name_key
from hub.records import GameRecord
from hub.schemes import placement_points
from hub.web.club_view import ClubView

STATIC = Path(__file__).parent / "static"
COOKIE = "mjtable_organiser"
NO_DESK = ("this hub has no organiser's password: start `mjtable hub` with "
           "--organiser-password-file FILE (make FILE with `mjtable web passwd FILE`)")
ANSWER_S = 15.0  # the desk answers in well under a second; past this it is stuck
Ask = Callable[[str, bytes], Future[dict[str, Any]]]


def organiser_sessions(hashed: str | None) -> Sessions:
    """The organiser's sign-in: the table console's password mechanism, for the hub."""
    return Sessions(hashed, role="organiser", unset=NO_DESK)


def player_page(games: list[GameRecord], name: str) -> dict[str, Any]:
    """A player's record: every game (finished or running) with the player's total and
    place, hands won, the hands they made most, and the running sum over finished games."""
    key = name_key(name)
    rows: list[dict[str, Any]] = []
    made: Counter[str] = Counter()
    won = 0
    running = 0
    for game in games:
        seated = next((p for p in game.players if name_key(p) == key), None)
        if seated is None:
            continue
        for hand in game.hands:
            if hand.winner == seated:
                won += 1
                made[hand.name or "a hand without a name"] += 1
        total = game.totals.get(seated, 0)
        row: dict[str, Any] = {"table": game.table, "game": game.game, "ruleset": game.ruleset,
                               "total": total, "finished": game.finished,
                               "hands": len(game.hands),
                               "won": sum(1 for h in game.hands if h.winner == seated),
                               "opponents": [p for p in game.players if p != seated]}
        if game.finished:
            running += total
            places = placement_points({p: game.totals.get(p, 0) for p in game.players})
            row["placement_points"] = float(places[seated])
            row["cumulative"] = running
        rows.append(row)
    return {"name": name, "games": rows, "hands_won": won,
            "made_most": [{"hand": h, "times": n} for h, n in made.most_common(5)],
            "over_time": [r["cumulative"] for r in rows if r["finished"]]}


class ClubPage:
    def __init__(self, view: ClubView, db: ClubDB, host: str = "127.0.0.1",
                 port: int = 0, ask: Ask | None = None,
                 sessions: Sessions | None = None) -> None:
        self.view, self.db = view, db
        self.ask = ask
        self.sessions = sessions or organiser_sessions(None)
        self.host, self.port = host, port
        self.site = Site()
        self.url = ""

    def app(self) -> web.Application:
        app = web.Application()
        page = shell(STATIC / "club.html")
        app.router.add_get("/", page)
        app.router.add_get("/player/{name}", page)
        app.router.add_get("/api/club", self._club)
        app.router.add_get("/api/player/{name}", self._player)
        app.router.add_post("/api/desk/login", self._login)
        app.router.add_post("/api/desk/logout", self._logout)
        app.router.add_get("/api/desk/session", self._session)
        app.router.add_post("/api/desk/{verb}", self._command)
        app.router.add_static("/static/", STATIC, append_version=False)
        app.router.add_static("/table/", TABLE_STATIC, append_version=False)
        return app

    async def start(self) -> str:
        port = await self.site.start(self.app(), self.host, self.port)
        self.url = f"http://{self.host}:{port}"
        return self.url

    async def stop(self) -> None:
        await self.site.stop()

    async def _club(self, request: web.Request) -> web.Response:
        return web.json_response(self.view.snapshot())

    async def _player(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        games = await asyncio.to_thread(self.db.games)
        page = player_page(games, name)
        if not page["games"]:
            return web.json_response({"error": f"no games for {name!r}", "where": "name"},
                                     status=404)
        return web.json_response(page)

    # -- the organiser's desk ------------------------------------------------------------------

    def _offered(self) -> bool:
        return self.ask is not None and self.sessions.hashed is not None

    async def _login(self, request: web.Request) -> web.Response:
        if not self._offered():
            return refuse(403, "desk", NO_DESK)
        return await sign_in(request, self.sessions, COOKIE)

    async def _logout(self, request: web.Request) -> web.Response:
        return sign_out(request, self.sessions, COOKIE)

    async def _session(self, request: web.Request) -> web.Response:
        why = self.sessions.why_not(request.cookies.get(COOKIE))
        return web.json_response({"offered": self._offered(), "organiser": why is None})

    async def _command(self, request: web.Request) -> web.Response:
        if not self._offered() or self.ask is None:
            return refuse(403, "desk", NO_DESK)
        why = self.sessions.why_not(request.cookies.get(COOKIE))
        if why is not None:
            return refuse(401, "session", why)
        pending = self.ask(request.match_info["verb"], await request.read())
        try:
            answer = await asyncio.wait_for(asyncio.wrap_future(pending), ANSWER_S)
        except TimeoutError:
            return refuse(504, "desk", f"the hub's desk did not answer in {ANSWER_S:.0f} s")
        except Exception as exc:  # the desk logged it; the organiser hears what failed
            return refuse(500, "desk", f"the hub's desk failed: {exc}")
        return web.json_response(answer)
