"""The host's side of the link protocol, without I/O (the asyncio transport is in link.py).

Feed it what the port delivers (:meth:`HostProtocol.data_received`), call :meth:`tick` every
few milliseconds, and write out :meth:`take_output`. It delivers each board event once and in
sequence order (duplicates and events past a gap are dropped and NACKed; the board resends),
keeps commands until the board acknowledges them, resends on NACK or timeout with a bounded
number of retries, and declares the link dead when the board falls silent. No byte sequence
makes it raise: bad frames are counted in the status and dropped.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge import wire
from firmware_bridge.events import (
    BoardEvent,
    BoardInfo,
    EventsDropped,
    LinkState,
    LinkStatus,
    event_from_body,
)

log = logging.getLogger("firmware_bridge")


@dataclass(frozen=True, slots=True)
class LinkSettings:
    """Timings and bounds of the link. The defaults suit a Pico on USB."""

    ping_interval_s: float = 0.1  # the host pings, the board answers with a heartbeat
    heartbeat_timeout_s: float = 0.5  # silence after which the board is declared stalled
    retransmit_s: float = 0.04  # unacknowledged commands are resent after this
    max_retries: int = 8  # resends without progress before the link is declared dead
    command_window: int = 16  # commands in flight
    max_pending_commands: int = 256  # queued commands; send_* waits beyond this (backpressure)
    max_pending_events: int = 4096  # events not yet taken; beyond it the board keeps them
    ack_delay_s: float = 0.005  # events are acknowledged together, at most this late ...
    ack_every: int = 8  # ... or as soon as this many wait (0 s / 1: one ack per read)
    hello_retry_s: float = 0.25  # HELLO_REQ resent while no HELLO arrives
    refused_retry_s: float = 5.0  # HELLO_REQ to a refused (incompatible) board
    time_sync_interval_s: float = 5.0
    # After each handshake, this many time-sync samples this far apart: the offset is the
    # sample with the shortest round trip, and one sample taken while the machine is busy can
    # be off by half its round trip (10 ms and more on two loaded cores).
    first_sync_samples: int = 5
    first_sync_spacing_s: float = 0.02
    reconnect_min_s: float = 0.05  # backoff between attempts to reopen the port
    reconnect_max_s: float = 2.0
    # Acknowledge-after-apply: an event is acknowledged to the board only once the consumer
    # confirms it (BoardLink.confirm), so the board's ring keeps it until it is stored.
    ack_after_apply: bool = False


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


class HostProtocol:
    def __init__(self, settings: LinkSettings, host_id: int, status: LinkStatus) -> None:
        self.settings = settings
        self.host_id = host_id
        self.status = status
        self.deframer = wire.Deframer()
        self.events: deque[BoardEvent] = deque()
        self.event_boots: deque[int] = deque()  # the boot id of each queued event, in step
        self._out = bytearray()
        self._field_errors = 0
        # events from the board
        self.boot_id: int | None = None
        self.expected_event: int | None = None
        self._ack_due = False
        self._ack_waiting = 0  # events received in order since the last EVENT_ACK
        self._ack_since_us = 0  # when the oldest of them arrived
        self._ack_now = False  # a resend came: acknowledge without waiting
        self._last_nack = (-1, 0)
        self._unparsable = (-1, 0)  # (seq, times) of an event whose fields did not parse
        self.confirmed = 0  # ack-after-apply: every event through this seq is confirmed
        self._confirmed_ahead: set[int] = set()  # confirmed past a gap (out of order)
        # commands to the board
        self._cmds: dict[int, bytes] = {}  # seq -> frame, until acknowledged
        self.cmd_next_seq = 1
        self.cmd_oldest = 1
        self.cmd_next_send = 1
        self._cmd_progress_us = 0
        self._retries = 0
        self._last_cmd_nack = (-1, 0)
        # liveness and handshake
        self.handshaken = False
        self._handshakes = 0
        self._connected_us = 0
        self.last_rx_us = 0
        self._last_ping_us = 0
        self._last_hello_us = 0
        self._last_sync_us = 0
        self._syncs_since_hello = 0
        self._sync_samples: deque[tuple[int, int]] = deque(maxlen=8)  # (rtt, offset)
        self.board_restarted = False

    # -- connection ------------------------------------------------------------------------
    def connection_made(self, now_us: int) -> None:
        self.deframer.reset()
        self.handshaken = False
        self._connected_us = now_us
        self.last_rx_us = now_us
        self._send_hello(now_us)

    def _send_hello(self, now_us: int) -> None:
        self._out += wire.frame(wire.encode_hello_req(self.host_id, self.cmd_oldest))
        self._last_hello_us = now_us

    def _maybe_ack(self, now_us: int) -> None:
        """Acknowledge what arrived, batching acknowledgements: fewer frames for the board to
        read, and still far inside its retransmission timeout."""
        if not self._ack_due or self.expected_event is None:
            return
        s = self.settings
        if (
            self._ack_now
            or self._ack_waiting >= s.ack_every
            or now_us - self._ack_since_us >= _us(s.ack_delay_s)
        ):
            self._out += wire.frame(wire.encode_event_ack(self.ack_through()))
            self._ack_due = self._ack_now = False
            self._ack_waiting = 0

    def ack_through(self) -> int:
        """The seq the next EVENT_ACK names: what arrived, or (ack-after-apply) what the
        consumer confirmed."""
        assert self.expected_event is not None
        if self.settings.ack_after_apply:
            return self.confirmed
        return self.expected_event - 1

    def confirm(self, boot_id: int, seq: int, now_us: int) -> None:
        """The consumer has durably applied event ``seq`` of boot ``boot_id``. Acknowledged
        to the board once every event before it is confirmed too (acks are cumulative)."""
        if boot_id != self.boot_id or seq <= self.confirmed or self.expected_event is None:
            return  # an earlier boot's event, or already confirmed
        if seq >= self.expected_event:
            return  # never delivered: nonsense
        self._confirmed_ahead.add(seq)
        advanced = False
        while self.confirmed + 1 in self._confirmed_ahead:
            self.confirmed += 1
            self._confirmed_ahead.discard(self.confirmed)
            advanced = True
        if advanced and self.settings.ack_after_apply:
            self._ack_later(now_us)
            self._maybe_ack(now_us)

    def _ack_later(self, now_us: int) -> None:
        if not self._ack_due:
            self._ack_due = True
            self._ack_since_us = now_us
        self._ack_waiting += 1

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out = bytearray()
        return out

    # -- bytes in --------------------------------------------------------------------------
    def data_received(self, data: bytes, now_us: int) -> None:
        for body in self.deframer.feed(data):
            self.last_rx_us = now_us
            try:
                self._dispatch(body, now_us)
            except wire.FrameError as exc:
                self._field_errors += 1
                log.debug("dropped a frame whose fields do not parse: %s", exc)
        self.status.corrupt_frames = self.deframer.corrupt + self._field_errors
        self._maybe_ack(now_us)

    def _dispatch(self, body: bytes, now_us: int) -> None:
        kind = body[0]
        if kind == wire.HELLO:
            self._hello(body, now_us)
            return
        if not self.handshaken:
            return  # leftovers of an earlier connection: the handshake resends what matters
        if wire.EVENT_FIRST <= kind <= wire.EVENT_LAST:
            self._event(body, now_us)
        elif kind == wire.HEARTBEAT:
            _board_us, _ring, corrupt, retrans = wire.decode_heartbeat(body)
            self.status.board_corrupt_frames = corrupt
            self.status.board_retransmissions = retrans
        elif kind == wire.CMD_ACK:
            self._cmd_ack(wire.decode_u32(body, "CMD_ACK"), now_us)
        elif kind == wire.CMD_NACK:
            self._cmd_nack(wire.decode_u32(body, "CMD_NACK"), now_us)
        elif kind == wire.TIME_RESP:
            host_us, board_us = wire.decode_time(body)
            rtt = now_us - host_us
            if 0 <= rtt < 1_000_000:
                self._sync_samples.append((rtt, board_us - (host_us + now_us) // 2))
                best = min(self._sync_samples)
                self.status.rtt_us, self.status.clock_offset_us = best
        else:
            self._unknown(kind)

    def _unknown(self, kind: int) -> None:
        self.status.unknown_types += 1
        if kind not in self.status.unknown_type_codes:
            self.status.unknown_type_codes.append(kind)
            log.warning("board sent a frame of unknown type 0x%02X; skipping such frames", kind)

    def _hello(self, body: bytes, now_us: int) -> None:
        major, minor = wire.decode_hello_version(body)
        if major != wire.PROTOCOL_MAJOR:
            detail = (
                f"board speaks protocol {major}.{minor}, this host speaks "
                f"{wire.PROTOCOL_MAJOR}.{wire.PROTOCOL_MINOR}: major versions must match"
            )
            if self.status.state is not LinkState.REFUSED:
                log.error("refusing the board: %s", detail)
            self.status.state = LinkState.REFUSED
            self.status.detail = detail
            self.handshaken = False
            return
        hello = wire.decode_hello(body)
        if hello["host_id"] != self.host_id:
            return  # an answer to another host's HELLO_REQ
        info = BoardInfo.from_hello(hello)
        oldest = int(hello["oldest_unacked_seq"])
        if self.boot_id != info.boot_id:
            self.board_restarted = self.boot_id is not None
            self.boot_id = info.boot_id
            self.expected_event = oldest
            self.confirmed = oldest - 1
            self._confirmed_ahead.clear()
            self._sync_samples.clear()  # a new boot is a new clock
            self.status.rtt_us = self.status.clock_offset_us = None
        else:
            self.board_restarted = False  # the same boot again: a reconnect, not a restart
            if self.expected_event is not None and oldest > self.expected_event:
                self.expected_event = oldest  # cannot happen with a conforming board
            if oldest - 1 > self.confirmed:
                self.confirmed = oldest - 1  # the board dropped them: nothing to keep
                self._confirmed_ahead = {s for s in self._confirmed_ahead if s > oldest - 1}
        self._cmd_ack(int(hello["last_cmd_seq"]), now_us)
        self.cmd_next_send = self.cmd_oldest
        self._cmd_progress_us = now_us
        self._retries = 0
        if not self.handshaken:
            self._handshakes += 1
            if self._handshakes > 1:
                self.status.reconnects += 1
        self.handshaken = True
        self.status.board = info
        self.status.state = LinkState.UP
        self.status.detail = "board restarted" if self.board_restarted else ""
        self._syncs_since_hello = 0
        self.request_time(now_us)
        self._last_ping_us = now_us

    def _event(self, body: bytes, now_us: int) -> None:
        _kind, seq, _board_us = wire.decode_event_header(body)
        expected = self.expected_event
        assert expected is not None
        if seq < expected:
            self.status.duplicates += 1
            self._ack_later(now_us)
            self._ack_now = True  # the board is resending: tell it at once how far we are
            return
        if seq > expected:
            self.status.out_of_order += 1
            last, when = self._last_nack
            if last != expected or now_us - when > _us(self.settings.retransmit_s) // 2:
                # EVENT_NACK(n) also acknowledges everything before n: in ack-after-apply
                # it may not pass the confirmed events (the board resends the rest; they
                # are duplicates here, dropped).
                nack = self.confirmed + 1 if self.settings.ack_after_apply else expected
                self._out += wire.frame(wire.encode_event_nack(nack))
                self._last_nack = (expected, now_us)
            return
        if len(self.events) >= self.settings.max_pending_events:
            return  # not acknowledged: the board keeps it and resends (backpressure)
        try:
            event = event_from_body(body)
        except wire.FrameError as exc:
            if "unknown" in str(exc):
                self._unknown(body[0])  # a newer board's event: acknowledged and skipped
            else:
                self._field_errors += 1
                bad_seq, tries = self._unparsable
                tries = tries + 1 if bad_seq == seq else 1
                self._unparsable = (seq, tries)
                if tries < 3:
                    return  # not acknowledged: a resend may arrive intact
                log.error("skipping event %d: its fields do not parse, 3 times: %s", seq, exc)
            self.expected_event = seq + 1
            if self.settings.ack_after_apply:
                self.confirm(self.boot_id or 0, seq, now_us)  # never delivered: nothing to apply
            self._ack_later(now_us)
            return
        self.expected_event = seq + 1
        if not self.settings.ack_after_apply:
            self._ack_later(now_us)
        self.events.append(event)
        self.event_boots.append(self.boot_id or 0)
        self.status.events_delivered += 1
        if isinstance(event, EventsDropped):
            self.status.events_dropped_by_board += event.count

    # -- commands --------------------------------------------------------------------------
    def can_queue(self) -> bool:
        return len(self._cmds) < self.settings.max_pending_commands

    def queue_command(self, build: Callable[[int], bytes]) -> int:
        """Number and queue a command; ``build(seq)`` returns its body. Returns the seq."""
        seq = self.cmd_next_seq
        self._cmds[seq] = wire.frame(build(seq))
        self.cmd_next_seq += 1
        self.status.commands_sent += 1
        self.status.commands_pending = len(self._cmds)
        return seq

    def acked_through(self) -> int:
        return self.cmd_oldest - 1

    def _cmd_ack(self, seq: int, now_us: int) -> None:
        if seq < self.cmd_oldest or seq >= self.cmd_next_seq:
            return
        for s in range(self.cmd_oldest, seq + 1):
            del self._cmds[s]
        self.status.commands_acked += seq + 1 - self.cmd_oldest
        self.cmd_oldest = seq + 1
        self.cmd_next_send = max(self.cmd_next_send, self.cmd_oldest)
        self._cmd_progress_us = now_us
        self._retries = 0
        self.status.commands_pending = len(self._cmds)

    def _cmd_nack(self, expected: int, now_us: int) -> None:
        self._cmd_ack(expected - 1, now_us)
        if not (self.cmd_oldest <= expected < self.cmd_next_send):
            return
        last, when = self._last_cmd_nack
        if last == expected and now_us - when < _us(self.settings.retransmit_s) // 2:
            return
        self._last_cmd_nack = (expected, now_us)
        self.status.retransmissions += self.cmd_next_send - expected
        self.cmd_next_send = expected

    def _send_commands(self, now_us: int) -> None:
        limit = min(self.cmd_next_seq, self.cmd_oldest + self.settings.command_window)
        if self.cmd_next_send < limit and self.cmd_next_send == self.cmd_oldest:
            self._cmd_progress_us = now_us
        while self.cmd_next_send < limit:
            self._out += self._cmds[self.cmd_next_send]
            self.cmd_next_send += 1

    # -- time ------------------------------------------------------------------------------
    def tick(self, now_us: int) -> str | None:
        """Timed work. Returns why the link must be dropped and reopened, or None."""
        s = self.settings
        if self.status.state is LinkState.REFUSED:
            if now_us - self._last_hello_us > _us(s.refused_retry_s):
                self._send_hello(now_us)
            return None
        if not self.handshaken:
            if now_us - self._last_hello_us > _us(s.hello_retry_s):
                self._send_hello(now_us)
            if now_us - self._connected_us > 4 * _us(s.heartbeat_timeout_s):
                return f"no HELLO from the board in {(now_us - self._connected_us) / 1e6:.1f} s"
            return None
        silent = now_us - self.last_rx_us
        if silent > _us(s.heartbeat_timeout_s):
            return (
                f"board stalled: no frame for {silent // 1000} ms "
                f"(heartbeat timeout {int(s.heartbeat_timeout_s * 1000)} ms)"
            )
        self._maybe_ack(now_us)
        if now_us - self._last_ping_us >= _us(s.ping_interval_s):
            self._out += wire.frame(wire.encode_ping(now_us))
            self._last_ping_us = now_us
        due = s.time_sync_interval_s
        if self._syncs_since_hello < s.first_sync_samples:
            due = min(due, s.first_sync_spacing_s)
        if now_us - self._last_sync_us >= _us(due):
            self.request_time(now_us)
        if self.cmd_oldest < self.cmd_next_send and now_us - self._cmd_progress_us > _us(
            s.retransmit_s
        ):
            self._retries += 1
            if self._retries > s.max_retries:
                return f"command {self.cmd_oldest} unacknowledged after {s.max_retries} resends"
            self.status.retransmissions += self.cmd_next_send - self.cmd_oldest
            self.cmd_next_send = self.cmd_oldest
            self._cmd_progress_us = now_us
        self._send_commands(now_us)
        return None

    def request_time(self, now_us: int) -> None:
        """A time-sync sample now (TIME_REQ), besides the periodic ones."""
        self._out += wire.frame(wire.encode_time_req(now_us))
        self._last_sync_us = now_us
        self._syncs_since_hello += 1

    def flush_commands(self, now_us: int) -> None:
        """Put newly queued commands on the wire now (not waiting for the next tick)."""
        if self.handshaken:
            self._send_commands(now_us)

    def connection_lost(self) -> None:
        self.handshaken = False
        self.cmd_next_send = self.cmd_oldest
