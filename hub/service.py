"""`mjtable hub`: the club's tables, from the club broker into the club database.

The hub is an MQTT 5 client with a persistent session (``clean_start`` false, a session that
outlives a week's disconnection), subscribed at QoS 1 to every table's ``events`` and
``status``. Each event is written and folded (:class:`hub.ingest.Folder`) inside the message
callback, before paho acknowledges it: a hub killed between the two gets the message again
from its session, and the database's (table, seq) key drops the copy.

A table id never seen before is registered on its first event: on the club broker only a
table with its own login may publish under its id (deploy/mosquitto/club.acl), so the id is
already vouched for, and a club adds a table by adding its login, not by a second list kept
here. Topics that are not a table id (``club`` is the hub's own tree), payloads that are not
events and events without a whole ``seq`` are refused: logged, counted and named in the hub's
status, nothing else changed. A gap in a table's ``seq`` is recorded and reported in the
status until the missing events arrive (docs/club.md, "Gaps").

The hub publishes its status retained on ``mahjong/v1/club/hub/<id>/status``; its will says
``offline``.
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from hub.db import ClubDB
from hub.ingest import EventError, Folder, Ingested, now

log = logging.getLogger("mjtable.hub")

PREFIX = "mahjong/v1"
SESSION_EXPIRY_S = 7 * 24 * 3600  # a hub machine down over a long weekend still gets all
STATUS_EVERY_S = 10.0
RETRY_S = 5.0  # after the database failed, before the unacknowledged events come again


@dataclass
class HubSettings:
    host: str
    port: int
    db: str
    hub_id: str = "hub"
    share: str | None = None  # MQTT 5 shared subscription group, for several hubs
    tables: tuple[str, ...] = ()  # only these tables (several hubs by partition); () = all
    username: str | None = None
    password: str | None = None
    keepalive: int = 30


@dataclass
class HubCounts:
    events: int = 0
    duplicates: int = 0
    refused: int = 0
    gaps: int = 0
    last_refused: dict[str, str] | None = None
    database_error: str | None = None  # the last failure of the club database
    new_tables: list[str] = field(default_factory=list)


def subscriptions(share: str | None, tables: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """The hub's topic filters (QoS 1): every table's events and status, or only ``tables``'
    (a partition); events through the shared group ``share`` where one is given."""
    out = []
    for table in tables or ("+",):
        events = f"{PREFIX}/{table}/events"
        out += [(f"$share/{share}/{events}" if share else events, 1),
                (f"{PREFIX}/{table}/status", 1)]
    return out


class Hub:
    """The running hub: ``start()``, then ``stop()`` (or :func:`run` until SIGTERM)."""

    def __init__(self, settings: HubSettings, db: ClubDB) -> None:
        self.settings = settings
        self.db = db
        self.folder = Folder(db)
        self.counts = HubCounts()
        self.connected = threading.Event()
        self.on_ingested: Callable[[Ingested], None] | None = None
        self.status_topic = f"{PREFIX}/club/hub/{settings.hub_id}/status"
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        # Acknowledged by hand, once the event is in the database: a message the database
        # could not take stays unacknowledged and comes again on the next connection.
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"mjtable-hub-{settings.hub_id}",
            protocol=MQTTProtocolVersion.MQTTv5, manual_ack=True)
        self._database_failed = threading.Event()
        if settings.username:
            self.client.username_pw_set(settings.username, settings.password or None)
        self.client.will_set(self.status_topic, json.dumps({"state": "offline"}), qos=1,
                             retain=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    # -- lifetime ----------------------------------------------------------------------------

    def start(self) -> None:
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        self.client.connect_async(self.settings.host, self.settings.port,
                                  keepalive=self.settings.keepalive, clean_start=False,
                                  properties=props)
        self.client.loop_start()

    def stop(self) -> None:
        """Say ``offline`` (retained) and disconnect; the session stays on the broker, so
        what arrives meanwhile waits there for the next start."""
        self._stopping.set()
        if self.connected.is_set():
            info = self.client.publish(self.status_topic, json.dumps({"state": "offline"}),
                                       qos=1, retain=True)
            info.wait_for_publish(timeout=2)
        self.client.disconnect()
        self.client.loop_stop()
        self.db.close()
        log.info("stopped; the session stays on the broker")

    def run_until_signalled(self) -> None:
        """Run until SIGTERM or SIGINT, then stop cleanly."""
        done = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: done.set())
        self.start()
        last_status = time.monotonic()
        while not done.wait(1.0):
            if self._database_failed.is_set():
                self.recover(done)
            if time.monotonic() - last_status >= STATUS_EVERY_S:
                self.publish_status()
                last_status = time.monotonic()
        self.stop()

    def recover(self, done: threading.Event | None = None) -> None:
        """The database refused an event: wait, then connect again so the broker sends what
        was not acknowledged (MQTT resends a session's unacknowledged messages on resume)."""
        log.warning("the club database failed: reconnecting in %.0f s to be sent again what "
                    "it did not take", RETRY_S)
        self.client.disconnect()
        self.client.loop_stop()
        if done is not None and done.wait(RETRY_S):
            return
        self._database_failed.clear()
        self.start()

    # -- MQTT --------------------------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: mqtt.ConnectFlags,
                    reason: ReasonCode, properties: Properties | None) -> None:
        if reason.is_failure:
            log.error("the club broker refused the hub: %s", reason)
            return
        log.info("connected to %s:%s (session %s)", self.settings.host, self.settings.port,
                 "resumed" if flags.session_present else "new")
        client.subscribe(subscriptions(self.settings.share, self.settings.tables))

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int,
                      reasons: list[ReasonCode], properties: Properties | None) -> None:
        refused = [r for r in reasons if r.is_failure]
        if refused:  # the club broker's ACL: say so, the status cannot wait for events
            log.error("the club broker refused a subscription: %s", refused[0])
        # Ready (and online) only once the broker holds the subscriptions: from here on
        # nothing the tables publish passes the hub by.
        self.connected.set()
        self.publish_status()

    def _on_disconnect(self, client: mqtt.Client, userdata: object,
                       flags: mqtt.DisconnectFlags, reason: ReasonCode,
                       properties: Properties | None) -> None:
        self.connected.clear()
        if not self._stopping.is_set():
            log.warning("lost the club broker (%s): reconnecting", reason)

    def _on_message(self, client: mqtt.Client, userdata: object,
                    msg: mqtt.MQTTMessage) -> None:
        if self._database_failed.is_set():
            return  # not acknowledged: it comes again once the database is back
        if self._take(msg):
            client.ack(msg.mid, msg.qos)
        else:
            self._database_failed.set()

    def _take(self, msg: mqtt.MQTTMessage) -> bool:
        """Store one message; False only when the database failed (the message must come
        again). Bad input is answered and acknowledged: sending it again would not mend it."""
        parts = msg.topic.split("/")
        if len(parts) != 4 or parts[:2] != PREFIX.split("/"):
            return True
        table, leaf = parts[2], parts[3]
        try:
            payload = json.loads(msg.payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self._refuse(msg.topic, "payload", f"not JSON: {exc}")
            return True
        try:
            if leaf == "status":
                self._table_status(table, payload)
                return True
            done = self.folder.ingest(table, payload)
        except EventError as exc:
            self._refuse(msg.topic, exc.where, str(exc))
            return True
        except Exception as exc:  # the database failed: the message is not lost
            log.error("%s: not stored, the club database failed: %s", msg.topic,
                      str(exc).splitlines()[0])
            with self._lock:
                self.counts.database_error = f"{type(exc).__name__}: {exc}".splitlines()[0]
            return False
        self._count(done)
        return True

    def _count(self, done: Ingested) -> None:
        with self._lock:
            if not done.new:
                self.counts.duplicates += 1
            else:
                self.counts.events += 1
            if done.new_table:
                self.counts.new_tables.append(done.table)
                log.info("table %s registered on its first event (seq %s)", done.table,
                         done.seq)
            if done.gap is not None:
                self.counts.gaps += 1
                log.warning("table %s: seq %s-%s missing before %s; recorded until they "
                            "arrive", done.table, done.gap[0], done.gap[1], done.seq)
        if done.new_table or done.gap is not None:
            self.publish_status()
        if self.on_ingested is not None:
            self.on_ingested(done)

    def _refuse(self, topic: str, where: str, error: str) -> None:
        log.warning("refused %s (%s): %s", topic, where, error)
        with self._lock:
            self.counts.refused += 1
            self.counts.last_refused = {"topic": topic, "where": where, "error": error,
                                        "at": now()}
        self.publish_status()

    def _table_status(self, table: str, payload: Any) -> None:
        state = payload.get("state") if isinstance(payload, dict) else None
        if isinstance(state, str):
            self.db.set_table_status(table, state[:32])

    # -- the hub's own status ----------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        with self._lock:
            counts = self.counts
            out: dict[str, Any] = {
                "state": "online", "hub": self.settings.hub_id, "at": now(),
                "events": counts.events, "duplicates": counts.duplicates,
                "refused": counts.refused, "last_refused": counts.last_refused,
                "share": self.settings.share, "partition": list(self.settings.tables),
                "database_error": counts.database_error,
            }
        tables = self.db.tables()
        out["tables"] = {t.table: {"first_seq": t.first_seq, "last_seq": t.last_seq,
                                   "missing": t.missing, "status": t.status} for t in tables}
        out["gaps"] = [{"table": t, "first": a, "last": b} for t, a, b in self.db.gaps()]
        return out

    def publish_status(self) -> None:
        if not self.connected.is_set():
            return
        try:
            body = json.dumps(self.status(), separators=(",", ":"))
        except Exception as exc:  # the database is away: say so rather than stay silent
            log.error("status not read: %s", str(exc).splitlines()[0])
            with self._lock:
                failure = self.counts.database_error
            body = json.dumps({"state": "online", "hub": self.settings.hub_id, "at": now(),
                               "database_error": failure or "the club database cannot be "
                               "read"})
        self.client.publish(self.status_topic, body, qos=1, retain=True)
