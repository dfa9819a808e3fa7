"""The table's page server (aiohttp), run on the service's own loop beside it.

- ``/`` the table view, ``/score`` the scoreboard, ``/console`` the referee's console: one
  page (``static/index.html``) whose script shows the view its path names;
- ``/feed``: server-sent events, first a snapshot, then every public message as it happens
  (:mod:`controller.web.feed`);
- ``/api/login``, ``/api/logout``; ``/api/cmd/<verb>``: a signed-in referee's command, handed
  to the table through the very path ``cmd/<verb>`` on MQTT takes (one path, one validation);
- ``/export.json``, ``/export.csv``: the games, as `mjtable export` prints them;
- ``/api/crop/<id>``: the camera's crop of a held observation's tile, for a signed-in referee;
- ``/api/game``: the game in play as the export gives it, with its money and tournament points.

Every asset is served from ``static/``: the table has no internet.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.web.auth import Sessions
from controller.web.feed import Feed
from controller.web.signin import refuse, sign_in, sign_out
from controller.web.site import Site, shell

log = logging.getLogger("mjtable.web")
STATIC = Path(__file__).parent / "static"
COOKIE = "mjtable_referee"
VIEWER_COOKIE = "mjtable_viewer"
HEARTBEAT_S = 15.0
VIEWS = ("/", "/score", "/console")

Submit = Callable[[str, bytes], Awaitable[dict[str, Any]]]
Export = Callable[[], list[dict[str, Any]]]
Crop = Callable[[int], bytes | None]  # a held observation's crop (controller/crops.py)
Extras = Callable[[], dict[str, Any] | None]  # the game in play with its money and points


@dataclass
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 0
    certificate: str = ""
    key: str = ""
    viewer_code: str = ""


class FaceServer:
    def __init__(self, feed: Feed, submit: Submit, export: Export, sessions: Sessions,
                 settings: WebSettings, crop: Crop | None = None,
                 extras: Extras | None = None) -> None:
        self.feed = feed
        self.crop = crop
        self.extras = extras
        self.submit = submit
        self.export = export
        self.sessions = sessions
        self.settings = settings
        self.site = Site()
        self.url = ""

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._viewer_code])
        for path in VIEWS:
            app.router.add_get(path, shell(STATIC / "index.html"))
        app.router.add_get("/feed", self._feed)
        app.router.add_get("/api/snapshot", self._snapshot)
        app.router.add_post("/api/login", self._login)
        app.router.add_post("/api/logout", self._logout)
        app.router.add_get("/api/session", self._session)
        app.router.add_post("/api/cmd/{verb}", self._command)
        app.router.add_get("/api/crop/{pending}", self._crop)
        app.router.add_get("/api/game", self._game)
        app.router.add_get("/export.json", self._export_json)
        app.router.add_get("/export.csv", self._export_csv)
        app.router.add_static("/static/", STATIC, append_version=False)
        return app

    async def start(self) -> str:
        context = None
        if self.settings.certificate:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(self.settings.certificate, self.settings.key)
        port = await self.site.start(self.app(), self.settings.host, self.settings.port,
                                     context)
        scheme = "https" if context else "http"
        self.url = f"{scheme}://{self.settings.host}:{port}/"
        return self.url

    async def stop(self) -> None:
        for page in list(self.feed.pages):
            self.feed.drop(page)
        await self.site.stop()

    # -- viewers -------------------------------------------------------------------------------

    @web.middleware
    async def _viewer_code(self, request: web.Request,
                           handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                           ) -> web.StreamResponse:
        code = self.settings.viewer_code
        if not code or request.path.startswith("/static/") or request.path == "/api/login":
            return await handler(request)
        given = request.query.get("code") or request.cookies.get(VIEWER_COOKIE) or ""
        if not hmac.compare_digest(given.encode(), code.encode()):
            return web.Response(status=401, text="this table's page asks for its viewer code: "
                                "add ?code=... to the address")
        response = await handler(request)
        if request.query.get("code") and not response.prepared:
            response.set_cookie(VIEWER_COOKIE, code, httponly=True, samesite="Strict",
                                secure=bool(self.settings.certificate))
        return response

    async def _snapshot(self, request: web.Request) -> web.Response:
        return web.json_response(self.feed.snapshot())

    async def _feed(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        page = self.feed.open()
        try:
            snapshot = json.dumps(self.feed.snapshot(), separators=(",", ":"))
            await response.write(f"event: snapshot\ndata: {snapshot}\n\n".encode())
            while True:
                try:
                    data = await asyncio.wait_for(page.queue.get(), HEARTBEAT_S)
                except TimeoutError:
                    await response.write(b": alive\n\n")
                    continue
                if data is None:  # dropped: the page reconnects from a snapshot
                    await response.write(b"event: reload\ndata: {}\n\n")
                    break
                await response.write(f"data: {data}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.feed.close(page)
        return response

    # -- the referee ---------------------------------------------------------------------------

    async def _login(self, request: web.Request) -> web.Response:
        return await sign_in(request, self.sessions, COOKIE, bool(self.settings.certificate))

    async def _logout(self, request: web.Request) -> web.Response:
        return sign_out(request, self.sessions, COOKIE)

    async def _session(self, request: web.Request) -> web.Response:
        why = self.sessions.why_not(request.cookies.get(COOKIE))
        return web.json_response({"referee": why is None, "why": why})

    async def _command(self, request: web.Request) -> web.Response:
        why = self.sessions.why_not(request.cookies.get(COOKIE))
        if why is not None:
            return refuse(401, "session", why)
        verb = request.match_info["verb"]
        payload = await request.read()
        result = await self.submit(verb, payload)
        return web.json_response(result)

    async def _crop(self, request: web.Request) -> web.Response:
        """The camera's crop of a held observation's tile: the referee's alone."""
        why = self.sessions.why_not(request.cookies.get(COOKIE))
        if why is not None:
            return refuse(401, "session", why)
        pending = request.match_info["pending"]
        png = self.crop(int(pending)) if pending.isdigit() and self.crop else None
        if png is None:  # no crop (entered by hand, or long gone): nothing to show
            return web.Response(status=204, headers={"Cache-Control": "no-store"})
        return web.Response(body=png, content_type="image/png",
                            headers={"Cache-Control": "private, no-store"})

    async def _game(self, request: web.Request) -> web.Response:
        """The game in play as the export gives it, money and tournament points beside."""
        game = self.extras() if self.extras is not None else None
        return web.json_response({"game": game}, headers={"Cache-Control": "no-store"})

    # -- export ----------------------------------------------------------------------------------

    async def _export_json(self, request: web.Request) -> web.Response:
        games = await asyncio.to_thread(self.export)
        return web.json_response({"games": games}, headers={
            "Content-Disposition": "attachment; filename=games.json"})

    async def _export_csv(self, request: web.Request) -> web.Response:
        from controller.commands.export import to_csv

        games = await asyncio.to_thread(self.export)
        return web.Response(text=to_csv(games), content_type="text/csv", headers={
            "Content-Disposition": "attachment; filename=games.csv"})
