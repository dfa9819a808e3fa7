"""The club page's server (aiohttp), beside the hub.

- ``/``: the club page (every table live, the events' standings, clocks and next seating);
  ``/player/<name>``: a player's page; one page (``static/club.html``) whose script shows the
  view its path names;
- ``/api/club``: what the club broker holds now (:class:`hub.web.club_view.ClubView`);
- ``/api/player/<name>``: the player's games, hands won, the hands they made most and their
  results over time, from the club database;
- ``/static/``: the club page's own script and style; ``/table/``: the table page's parts
  (tile drawing and style, ``controller/web/static``), served from where they live, not copied.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.web.server import STATIC as TABLE_STATIC
from hub.db import ClubDB, name_key
from hub.records import GameRecord
from hub.schemes import placement_points
from hub.web.club_view import ClubView

STATIC = Path(__file__).parent / "static"


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
                 port: int = 0) -> None:
        self.view, self.db = view, db
        self.host, self.port = host, port
        self.runner: web.AppRunner | None = None
        self.url = ""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/player/{name}", self._index)
        app.router.add_get("/api/club", self._club)
        app.router.add_get("/api/player/{name}", self._player)
        app.router.add_static("/static/", STATIC, append_version=False)
        app.router.add_static("/table/", TABLE_STATIC, append_version=False)
        return app

    async def start(self) -> str:
        self.runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://{self.host}:{port}"
        return self.url

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "club.html", headers={"Cache-Control": "no-cache"})

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
