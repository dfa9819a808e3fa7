"""Signing in and out over HTTP, for every page that has a signed-in role: the table's referee
(controller/web/server.py) and the club's organiser (hub/web/server.py). The password check
and the sessions are :class:`controller.web.auth.Sessions`; this is their aiohttp side."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from controller.web.auth import Sessions


def refuse(status: int, where: str, error: str) -> web.Response:
    """An answer that names what was wrong and where."""
    return web.json_response({"ok": False, "error": error, "where": where}, status=status)


async def json_body(request: web.Request) -> Any:
    """The request's JSON, or None when it is not JSON."""
    try:
        return await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


async def sign_in(request: web.Request, sessions: Sessions, cookie: str,
                  secure: bool = False) -> web.Response:
    """``{"password": ...}`` in, a session cookie out (the scrypt check off the loop)."""
    body = await json_body(request)
    password = body.get("password") if isinstance(body, dict) else None
    if not isinstance(password, str):
        return refuse(400, "password", "send {\"password\": \"...\"}")
    token = await asyncio.to_thread(sessions.sign_in, password)
    if token is None:
        why = sessions.why_not(None) if sessions.hashed is None else "wrong password"
        return refuse(401, "password", why or "wrong password")
    response = web.json_response({"ok": True})
    response.set_cookie(cookie, token, httponly=True, samesite="Strict", secure=secure)
    return response


def sign_out(request: web.Request, sessions: Sessions, cookie: str) -> web.Response:
    sessions.sign_out(request.cookies.get(cookie))
    response = web.json_response({"ok": True})
    response.del_cookie(cookie)
    return response
