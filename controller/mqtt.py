"""The table's MQTT link: paho-mqtt 2.x fed from the durable outbox.

paho keeps unacknowledged messages in RAM only, so the service never hands paho a message
that is not already in the store's outbox. A single pump thread owns all bookkeeping: it hands
outbox rows to paho in order (at most ``WINDOW`` unacknowledged at once, the rest wait on
disk), and deletes a row only when its PUBACK arrives. paho's callbacks only post to a queue:
``on_publish`` runs under paho's own lock and must never block.

After a restart the outbox is sent again from its first unacknowledged row, so a consumer may
see a message twice (the PUBACK was lost in the crash) but never misses one; events carry a
``seq`` to dedupe by. A PUBACK is a delivery only if its MQTT 5 reason code is a success: a
publish the broker refuses (0x87 not authorized: its ACL) stays in the outbox, the link says
why in ``last_error`` and ``refused``, and tries it again every ``REFUSED_RETRY_S`` seconds
(an operator who fixes the ACL loses nothing). Under MQTT 3.1.1 a broker drops a refused
publish and acknowledges it all the same, which is why the table speaks MQTT 5.

Retained topics (status, state, scores) are re-sent on every (re)connect because a broker
without persistence forgets them when it restarts.

The stream keeps its order across a (re)connect. paho marks its connection up, calls
``on_connect``, and only then resends what it held while the broker was away; a message handed
to paho in between would go out first, and a subscriber that keeps what is above the highest
``seq`` would drop the older ones. So the pump hands paho nothing while the link is down, and
counts the link up only at the SUBACK of the commands subscription made in ``on_connect``,
which paho reads after its resending is done.
"""

from __future__ import annotations

import json
import logging
import queue
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.store import EventStore

log = logging.getLogger("mjtable.mqtt")

CommandHandler = Callable[[str, bytes], None]


@dataclass(frozen=True)
class BrokerSettings:
    host: str = "localhost"
    port: int = 1883
    username: str = ""
    password: str = ""
    tls: bool = False
    keepalive: int = 15
    protocol: Literal["5", "3.1.1"] = "5"
    ca_file: str = ""  # the CA to trust for TLS (PEM); empty: the system's store


class Topics:
    """The v1 topic tree of one table (docs/mqtt.md)."""

    def __init__(self, table: str, prefix: str = "mahjong/v1") -> None:
        self.base = f"{prefix}/{table}"
        self.status = f"{self.base}/status"
        self.state = f"{self.base}/state"
        self.events = f"{self.base}/events"
        self.adjudications = f"{self.base}/adjudications"
        self.scores = f"{self.base}/scores"
        self.prompts = f"{self.base}/prompts"
        self.commands = f"{self.base}/cmd/+"

    def cmd(self, verb: str) -> str:
        return f"{self.base}/cmd/{verb}"

    def cmd_result(self, verb: str) -> str:
        return f"{self.base}/cmd/{verb}/result"

    def verb_of(self, topic: str) -> str | None:
        prefix = f"{self.base}/cmd/"
        if topic.startswith(prefix) and "/" not in topic[len(prefix) :]:
            return topic[len(prefix) :]
        return None


ONLINE = json.dumps({"state": "online"}).encode()
OFFLINE = json.dumps({"state": "offline"}).encode()


@dataclass(frozen=True)
class _Ack:
    mid: int
    ok: bool
    reason: str


@dataclass(frozen=True)
class _Connected:
    ok: bool
    reason: str
    max_packet: int = 0  # the broker's Maximum Packet Size (MQTT 5 CONNACK); 0: none said


class MqttLink:
    """Publishes the outbox of ``store`` and receives ``cmd/<verb>`` messages.

    ``on_command(verb, payload)`` is called on paho's thread: hand it to your own loop.
    """

    WINDOW = 100
    REFUSED_RETRY_S = 5.0

    def __init__(
        self,
        settings: BrokerSettings,
        topics: Topics,
        store: EventStore,
        client_id: str,
        on_command: CommandHandler | None = None,
    ) -> None:
        self.settings = settings
        self.topics = topics
        self.store = store
        self.on_command = on_command
        self.connected = False
        self.last_error = ""
        self.delivered_count = 0
        self.on_delivered: Callable[[int | None], None] | None = None
        self._posts: queue.SimpleQueue[_Ack | _Connected | None] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._inflight: dict[int, tuple[int, int | None] | tuple[str, int]] = {}
        self._handed_upto = 0
        # Refused publishes: how many so far, and when the outbox may be tried again.
        self.refused = 0
        self._retry_at: float | None = None
        # The broker closes the connection on a packet over its limit, and paho would send it
        # again on every reconnect: such a message is never handed to paho.
        self._max_packet = 0
        self._oversized: set[tuple[str, int]] = set()  # retained versions not sent for size
        self._pump: threading.Thread | None = None
        self._awaiting: tuple[int, _Connected] | None = None  # the SUBACK that says "up"
        # What the retained status says beside "online" (the board's state): sent on every
        # connect, and again whenever it changes.
        self._status_fields: dict[str, object] = {}
        self._status_due = False
        self._status_lock = threading.Lock()  # "offline" at a stop is the last status sent
        self._stopping = False
        v5 = settings.protocol == "5"
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=MQTTProtocolVersion.MQTTv5 if v5 else MQTTProtocolVersion.MQTTv311,
            clean_session=None if v5 else True,
        )
        if settings.username:
            self.client.username_pw_set(settings.username, settings.password or None)
        if settings.tls:
            # The broker's certificate is checked against the CA and names the host dialled.
            self.client.tls_set(ca_certs=settings.ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
        self.client.will_set(topics.status, OFFLINE, qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    # -- lifetime --------------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background; keeps retrying while the broker is away."""
        self.client.connect_async(
            self.settings.host, self.settings.port, keepalive=self.settings.keepalive
        )
        self.client.loop_start()
        self._pump = threading.Thread(target=self._run_pump, name="mqtt-pump", daemon=True)
        self._pump.start()

    def stop(self, flush_timeout: float = 2.0) -> None:
        """Say ``offline`` (retained), wait a little for the outbox to drain, disconnect."""
        self.wait_idle(flush_timeout)
        with self._status_lock:
            self._stopping = True
        if self.connected:
            info = self.client.publish(self.topics.status, OFFLINE, qos=1, retain=True)
            deadline = time.monotonic() + 1.0
            while not info.is_published() and time.monotonic() < deadline:
                time.sleep(0.01)
        self._stop.set()
        self._wake.set()
        if self._pump is not None:
            self._pump.join(timeout=2.0)
        self.client.disconnect()
        self.client.loop_stop()

    def set_status(self, **fields: object) -> None:
        """Fields of the retained ``status`` beside ``"state": "online"`` (thread-safe); sent
        now if connected, else on the next connect."""
        self._status_fields = {**self._status_fields, **fields}
        self._status_due = True
        self._wake.set()

    def status_payload(self) -> bytes:
        return json.dumps({"state": "online", **self._status_fields}).encode()

    def kick(self) -> None:
        """New rows are in the outbox: send them now."""
        self._wake.set()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until everything in the outbox has been acknowledged."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (
                self.connected
                and not self._inflight
                and self.store.outbox_size() == 0
                and not self.store.retained_pending()
            ):
                return True
            time.sleep(0.02)
        return False

    # -- paho callbacks: post and return -------------------------------------------------------

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        max_packet = int(getattr(properties, "MaximumPacketSize", 0) or 0)
        connected = _Connected(not reason.is_failure, str(reason), max_packet)
        if connected.ok:
            # Up once paho has resent what it held: at this subscription's SUBACK.
            rc, mid = client.subscribe(self.topics.commands, qos=1)
            if rc == MQTTErrorCode.MQTT_ERR_SUCCESS and mid is not None:
                self._awaiting = (mid, connected)
                return
        self._posts.put(connected)
        self._wake.set()

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int,
                      reason_codes: list[ReasonCode], properties: Properties | None) -> None:
        awaiting = self._awaiting
        if awaiting is not None and awaiting[0] == mid:
            self._awaiting = None
            self._posts.put(awaiting[1])
            self._wake.set()

    def _on_connect_fail(self, client: mqtt.Client, userdata: object) -> None:
        s = self.settings
        how = "" if not s.tls else f" over TLS (trusting {s.ca_file or 'the system CA store'})"
        self.last_error = f"cannot connect to {s.host}:{s.port}{how}; trying again"

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        self.connected = False
        self.last_error = f"disconnected: {reason}"

    def _on_publish(
        self,
        client: mqtt.Client,
        userdata: object,
        mid: int,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        self._posts.put(_Ack(mid, not reason.is_failure, str(reason)))
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        verb = self.topics.verb_of(msg.topic)
        if verb is not None and self.on_command is not None:
            self.on_command(verb, bytes(msg.payload))

    # -- the pump ------------------------------------------------------------------------------

    def _run_pump(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=0.5)
            self._wake.clear()
            try:
                self._drain_posts()
                self._send()
            except Exception:  # the pump must outlive any one bad row or a closed store
                log.exception("mqtt pump")
                time.sleep(0.2)

    def _drain_posts(self) -> None:
        while True:
            try:
                post = self._posts.get_nowait()
            except queue.Empty:
                return
            if isinstance(post, _Connected):
                self._connected(post)
            elif isinstance(post, _Ack):
                self._acked(post)

    def _connected(self, post: _Connected) -> None:
        if not post.ok:
            self.last_error = f"broker refused the connection: {post.reason}"
            log.warning(self.last_error)
            return
        self.connected = True
        self.last_error = ""
        self._max_packet = post.max_packet
        self._oversized.clear()  # another broker, or the same with another limit
        self._publish_status()
        # A restarted broker may have lost the last events it acknowledged (it saves after
        # it acknowledges): they go again, in their places; subscribers dedupe by seq.
        again = self.store.resend_recent()
        if again:
            log.info("sending the last %d acknowledged events again", again)
            self._handed_upto = 0
        # A restarted broker may have forgotten retained topics: send them all again.
        for message in self.store.retained_all():
            if self._fits(message.topic, message.payload, message.version):
                info = self.client.publish(message.topic, message.payload, qos=1, retain=True)
                self._inflight[info.mid] = (message.topic, message.version)

    def _acked(self, ack: _Ack) -> None:
        entry = self._inflight.pop(ack.mid, None)
        if entry is None:
            return
        if not ack.ok:
            self._refused(entry, ack.reason)
            return
        if self._retry_at is None and self.last_error.startswith("broker refused"):
            self.last_error = ""  # the refused message went through after all
        if isinstance(entry[0], str):
            self.store.retained_delivered(entry[0], int(entry[1] or 0))
        else:
            self.store.delivered(entry[0])
            self.delivered_count += 1
            if self.on_delivered is not None:
                self.on_delivered(entry[1])

    def _refused(self, entry: tuple[int, int | None] | tuple[str, int], reason: str) -> None:
        """The broker would not take a message: it is not delivered. Keep it, stop sending,
        and start again from the first row not yet delivered once a pause has passed."""
        self.refused += 1
        topic = entry[0] if isinstance(entry[0], str) else f"outbox row {entry[0]}"
        self.last_error = f"broker refused {topic}: {reason}"
        log.warning(self.last_error)
        self._retry_at = time.monotonic() + self.REFUSED_RETRY_S

    def _fits(self, topic: str, payload: bytes, version: int | None = None) -> bool:
        """Whether the broker can take this message at all. One it cannot is not sent: an
        outbox row stays (the stream waits, ``last_error`` says why); a retained version is
        skipped (the next version replaces it), said once in ``last_error``."""
        size = len(payload) + len(topic.encode()) + 64  # fixed header, packet id, properties
        if not self._max_packet or size <= self._max_packet:
            return True
        self.last_error = (f"a message on {topic} of {len(payload)} bytes is over the broker's "
                           f"limit of {self._max_packet}; not sent")
        if version is None or (topic, version) not in self._oversized:
            log.warning(self.last_error)
        if version is not None:
            self._oversized.add((topic, version))
        return False

    def _paused(self) -> bool:
        """After a refusal: send nothing until the pause is over and nothing is in flight,
        then send again from the oldest row still in the outbox (order kept)."""
        if self._retry_at is None:
            return False
        if time.monotonic() < self._retry_at or self._inflight:
            return True  # the pump wakes at least every 0.5 s to look again
        self._retry_at = None
        self._handed_upto = 0
        return False

    def _publish_status(self) -> None:
        self._status_due = False
        with self._status_lock:
            if not self._stopping:
                self.client.publish(self.topics.status, self.status_payload(), qos=1,
                                    retain=True)

    def _send(self) -> None:
        if self._status_due and self.connected:
            self._publish_status()
        if not self.connected or self._paused():
            return  # the outbox keeps it: paho would send it ahead of what it holds
        room = self.WINDOW - len(self._inflight)
        if room > 0:
            handed = {e[0] for e in self._inflight.values() if isinstance(e[0], int)}
            for message in self.store.pending(after_id=self._handed_upto, limit=room):
                if message.id in handed:  # paho sends it again itself
                    self._handed_upto = message.id
                    continue
                if not self._fits(message.topic, message.payload):
                    break  # stays in the outbox, and the stream behind it waits
                props = None
                if self.settings.protocol == "5" and message.seq is not None:
                    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
                    props.UserProperty = [("seq", str(message.seq))]
                    props.ContentType = "application/json"
                try:
                    info = self.client.publish(
                        message.topic, message.payload, qos=1, properties=props
                    )
                except (ValueError, TypeError) as exc:
                    # A row paho will never accept (a bad topic) must not block all others.
                    log.error("dropping unpublishable message %s: %s", message.topic, exc)
                    self.store.delivered(message.id)
                    self._handed_upto = message.id
                    continue
                if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
                    log.warning("publish of %s failed: %s", message.topic, info.rc)
                    break  # stays in the outbox; tried again on the next wake
                self._inflight[info.mid] = (message.id, message.seq)
                self._handed_upto = message.id
        sending = {e[0] for e in self._inflight.values() if isinstance(e[0], str)}
        for retained in self.store.retained_pending():
            if (retained.topic, retained.version) in self._oversized:
                continue
            if retained.topic not in sending and self._fits(
                retained.topic, retained.payload, retained.version
            ):
                info = self.client.publish(
                    retained.topic, retained.payload, qos=1, retain=True
                )
                self._inflight[info.mid] = (retained.topic, retained.version)
