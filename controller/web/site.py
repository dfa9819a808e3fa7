"""What the table's page server (controller/web/server.py) and the club's (hub/web/server.py)
share: the page shell every view is served from, and an aiohttp site's start and stop."""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def shell(page: Path) -> Handler:
    """The one HTML page whose script shows the view its path names; never cached, so a page
    reloaded after an upgrade gets the new script."""

    async def serve(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(page, headers={"Cache-Control": "no-cache"})

    return serve


class Site:
    """An aiohttp application served on ``host``:``port`` (0: a free port)."""

    def __init__(self) -> None:
        self.runner: web.AppRunner | None = None

    async def start(self, app: web.Application, host: str, port: int,
                    context: ssl.SSLContext | None = None) -> int:
        """Serve ``app``; the port bound."""
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self.runner.setup()
        await web.TCPSite(self.runner, host, port, ssl_context=context).start()
        addresses = self.runner.addresses  # the bound (host, port), a free port resolved
        return int(addresses[0][1]) if addresses else port

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
