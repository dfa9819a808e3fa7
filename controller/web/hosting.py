"""The page server opened beside a running service (``[web]`` in the table's config)."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from controller.game_extras import extend_games, stakes_of, table_limit
from controller.games import export_games
from controller.inbox import CommandIn
from controller.mqtt import Topics
from controller.published import hand_in_play
from controller.web.auth import Sessions, read_password_file
from controller.web.feed import Feed
from controller.web.server import FaceServer, WebSettings

if TYPE_CHECKING:
    from controller.service import Service

log = logging.getLogger("mjtable.web")


async def open_face(service: Service, stack: contextlib.AsyncExitStack,
                    host: str | None = None, port: int | None = None) -> FaceServer:
    """Start the page server on the service's loop; it stops with the ``stack``."""
    cfg = service.cfg
    web_cfg = cfg.web
    topics = Topics(cfg.table.id, cfg.mqtt.topic_prefix)
    feed = Feed(topics.base, {
        "table": cfg.table.id,
        "ruleset": cfg.table.ruleset,
        "pause_ms": cfg.adjudication.courtesy_pause_ms,
    })
    store = service.store
    feed.seed({m.topic: m.payload for m in store.retained_all()})
    # the hand in play's messages from the log: a page opened after a restart draws the same
    try:
        feed.replay(m for r in hand_in_play(store) for m in service.table.published(r))
    except Exception:  # a record this version cannot read: the page, never the table, goes short
        log.exception("the hand's messages could not be rebuilt from the log: pages opened "
                      "now get the retained state and scores only")
        feed.log.clear()
    store.listeners.append(feed.on_store)
    if service.mqtt is None:  # no broker: the page alone takes the topics
        store.listeners.append(lambda messages, retained: store.forget_outbox())
    hashed = read_password_file(web_cfg.password_file) if web_cfg.password_file else None
    sessions = Sessions(hashed, web_cfg.session_minutes)

    async def submit(verb: str, payload: bytes) -> dict[str, Any]:
        # the very path a cmd/<verb> from MQTT takes: the service's inbox, then the table
        result: dict[str, Any] = await service.submit(CommandIn(verb, payload))
        return result

    stakes, limit = stakes_of(cfg.stakes), table_limit(cfg.table.options)

    def export() -> list[dict[str, Any]]:
        games = export_games(store.events(0), cfg.table.ruleset, cfg.table.hands_per_game)
        return extend_games(games, stakes, limit)  # money and tournament points beside

    def game_in_play() -> dict[str, Any] | None:  # the table's own fold: no store read
        game = service.table.games.current
        return None if game is None else extend_games([game.export()], stakes, limit)[0]

    def crop(pending: int) -> bytes | None:  # on the service's loop, as the table is
        held = service.table.pending.get(pending)
        return None if held is None else service.crops.get(held)

    server = FaceServer(feed, submit, export, sessions, WebSettings(
        host=host or web_cfg.host, port=web_cfg.port if port is None else port,
        certificate=web_cfg.certificate, key=web_cfg.key, viewer_code=web_cfg.viewer_code),
        crop=crop, extras=game_in_play)
    await server.start()
    stack.push_async_callback(server.stop)
    stack.callback(lambda: store.listeners.remove(feed.on_store))
    return server
