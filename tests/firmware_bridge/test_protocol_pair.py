"""Board and host protocol state machines, wired together in memory on a simulated clock.

The channel loses, corrupts and cuts frames at random (seeded); whatever it does, every
event reaches the host exactly once and in order, and every command is applied exactly
once and in order. No I/O and no real time: each example runs in milliseconds.
"""

from __future__ import annotations

import functools
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from firmware_bridge import wire
from firmware_bridge.board import BoardProtocol, BoardSpec, Hardware
from firmware_bridge.events import (
    BoardError,
    BoardEvent,
    ButtonEvent,
    EventsDropped,
    LinkState,
    LinkStatus,
    SensorReading,
)
from firmware_bridge.host import HostProtocol, LinkSettings


class RecordingHardware(Hardware):
    def __init__(self) -> None:
        self.configs: list[tuple[int, int]] = []

    def configure(self, key: int, value: int) -> None:
        self.configs.append((key, value))


class Channel:
    def __init__(self, rng: random.Random, drop: float, flip: float, cut: float) -> None:
        self.rng, self.drop, self.flip, self.cut = rng, drop, flip, cut

    def carry(self, data: bytes) -> bytes:
        out = bytearray()
        for f in data.split(b"\x00")[:-1]:
            if self.rng.random() < self.drop:
                continue
            raw = bytearray(f)
            if raw and self.rng.random() < self.flip:
                raw[self.rng.randrange(len(raw))] ^= 1 << self.rng.randrange(8)
            if len(raw) > 1 and self.rng.random() < self.cut:
                del raw[self.rng.randrange(1, len(raw)) :]
            out += raw + b"\x00"
        return bytes(out)


def brightness(value: int, seq: int) -> bytes:
    return wire.encode_config(seq, wire.CFG_BRIGHTNESS, value)


class Table:
    """One board and one host on a simulated clock (µs)."""

    def __init__(self, seed: int, drop: float, flip: float, cut: float, ring: int = 64) -> None:
        rng = random.Random(seed)
        self.now = 0
        self.hw = RecordingHardware()
        self.board = BoardProtocol(BoardSpec(ring_capacity=ring), self.hw, boot_id=seed + 1)
        self.status = LinkStatus()
        self.host = HostProtocol(LinkSettings(), host_id=4242, status=self.status)
        self.to_host = Channel(rng, drop, flip, cut)
        self.to_board = Channel(rng, drop, flip, cut)
        self.delivered: list[BoardEvent] = []
        self.host.connection_made(self.now)

    def step(self, dt_us: int = 1000) -> None:
        self.now += dt_us
        self.board.receive(self.to_board.carry(self.host.take_output()), self.now)
        self.host.data_received(self.to_host.carry(self.board.poll(self.now)), self.now)
        if self.host.tick(self.now) is not None:
            self.host.connection_lost()
            self.host.connection_made(self.now)  # as the link does after a stall
        while self.host.events:
            self.delivered.append(self.host.events.popleft())


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    drop=st.sampled_from([0.0, 0.01, 0.05, 0.2]),
    flip=st.sampled_from([0.0, 0.01, 0.05, 0.2]),
    cut=st.sampled_from([0.0, 0.02]),
)
def test_events_and_commands_arrive_exactly_once_in_order_over_a_lossy_channel(
    seed: int, drop: float, flip: float, cut: float
) -> None:
    t = Table(seed, drop, flip, cut)
    n_events, n_commands = 300, 60
    recorded = queued = 0
    for _ in range(200_000):
        if recorded < n_events and t.board.ring_used() < 60:
            t.board.record_button(recorded % 4, recorded % 3, recorded % 2 == 0, t.now)
            recorded += 1
        if queued < n_commands and t.host.handshaken and t.host.can_queue():
            t.host.queue_command(functools.partial(brightness, queued))
            queued += 1
        t.step()
        buttons = [e for e in t.delivered if isinstance(e, ButtonEvent)]
        if len(buttons) == n_events and len(t.hw.configs) == n_commands:
            break
    buttons = [e for e in t.delivered if isinstance(e, ButtonEvent)]
    assert [(e.seat, e.button, e.pressed) for e in buttons] == [
        (i % 4, i % 3, i % 2 == 0) for i in range(n_events)
    ]
    seqs = [e.seq for e in t.delivered if hasattr(e, "seq")]
    assert seqs == list(range(1, len(seqs) + 1))
    assert t.hw.configs == [(wire.CFG_BRIGHTNESS, v) for v in range(n_commands)]


def test_a_full_ring_drops_new_events_and_reports_how_many() -> None:
    t = Table(seed=1, drop=0.0, flip=0.0, cut=0.0, ring=8)
    for _ in range(5):
        t.step()
    t.board.host_present = False  # the host is away: nothing is acknowledged
    for i in range(20):
        t.board.record_button(0, 0, i % 2 == 0, t.now)
    assert t.board.ring_used() == 8
    assert t.board.dropped == 12
    t.board.host_present = True
    for _ in range(50):
        t.step()
    kinds = [type(e) for e in t.delivered]
    assert kinds[:8] == [ButtonEvent] * 8
    dropped = [e for e in t.delivered if isinstance(e, EventsDropped)]
    assert [e.count for e in dropped] == [12]
    assert t.status.events_dropped_by_board == 12
    seqs = [e.seq for e in t.delivered if hasattr(e, "seq")]
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_silent_board_is_declared_stalled_after_the_heartbeat_timeout() -> None:
    t = Table(seed=2, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(10):
        t.step()
    assert t.status.state is LinkState.UP
    silent_from = t.host.last_rx_us  # the last frame the host heard
    reason = None
    while reason is None:
        t.now += 1000
        t.host.take_output()  # the board hears nothing and says nothing
        reason = t.host.tick(t.now)
    waited_ms = (t.now - silent_from) / 1000
    assert 500 <= waited_ms <= 502
    assert "heartbeat timeout 500 ms" in reason


def test_board_with_another_major_version_is_refused_naming_both() -> None:
    status = LinkStatus()
    host = HostProtocol(LinkSettings(), host_id=9, status=status)
    host.connection_made(0)
    board = BoardProtocol(BoardSpec(protocol=(2, 3)), Hardware(), boot_id=5)
    board.receive(host.take_output(), 10)
    host.data_received(board.poll(20), 30)
    assert status.state is LinkState.REFUSED
    assert "board speaks protocol 2.3, this host speaks 1.0" in status.detail
    assert not host.handshaken


def test_unknown_command_consumes_its_seq_and_is_reported_by_the_board() -> None:
    t = Table(seed=3, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(5):
        t.step()
    t.host.queue_command(lambda seq: wire.command_header(0xB7, seq) + b"future")
    t.host.queue_command(lambda seq: wire.encode_config(seq, wire.CFG_BRIGHTNESS, 9))
    for _ in range(20):
        t.step()
    assert t.hw.configs == [(wire.CFG_BRIGHTNESS, 9)]
    assert t.host.acked_through() == 2
    errors = [e for e in t.delivered if isinstance(e, BoardError)]
    assert [(e.code, e.detail) for e in errors] == [
        (wire.ERR_UNKNOWN_COMMAND, "unknown command type 0xB7")
    ]


def test_unknown_event_type_is_acknowledged_skipped_and_reported_once() -> None:
    t = Table(seed=4, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(5):
        t.step()
    # A newer board's event type: sequenced like any event, unknown to this host.
    for _ in range(2):
        t.board._push(wire.event_header(0x3A, t.board.next_seq, t.now) + b"new")
    t.board.record_button(1, 1, True, t.now)
    for _ in range(10):
        t.step()
    assert [type(e) for e in t.delivered] == [ButtonEvent]
    assert t.delivered[0].seq == 3
    assert t.status.unknown_types == 2
    assert t.status.unknown_type_codes == [0x3A]
    assert t.board.ring_used() == 0


def test_commands_resent_after_a_reconnect_are_not_applied_twice() -> None:
    t = Table(seed=5, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(5):
        t.step()
    t.host.queue_command(lambda seq: wire.encode_dice_cmd(seq, wire.DICE_ROLL, 2, []))
    t.host.flush_commands(t.now)
    t.board.receive(t.host.take_output(), t.now)  # applied, but its CMD_ACK is lost
    t.board.poll(t.now)
    t.host.connection_lost()
    t.host.connection_made(t.now)  # reconnect: same host id, HELLO_REQ again
    for _ in range(10):
        t.step()
    assert t.board.commands_applied == 1
    assert t.host.acked_through() == 1
    assert t.status.reconnects == 1


def test_a_rebooted_board_restarts_the_event_numbering() -> None:
    t = Table(seed=6, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(3):
        t.board.record_button(0, 0, True, t.now)
    for _ in range(5):
        t.step()
    assert len(t.delivered) == 3
    t.board = BoardProtocol(BoardSpec(), t.hw, boot_id=999)  # power cycle
    t.board.record_button(2, 1, True, t.now)
    t.host.connection_lost()
    t.host.connection_made(t.now)
    for _ in range(5):
        t.step()
    last = t.delivered[-1]
    assert isinstance(last, ButtonEvent) and (last.seq, last.seat) == (1, 2)
    assert t.status.detail == "board restarted"
    # A later reconnect to the same boot (a USB cable pulled and put back) is no restart:
    # the board kept its LEDs, nothing needs showing again.
    t.host.connection_lost()
    t.host.connection_made(t.now)
    for _ in range(5):
        t.step()
    assert t.status.state is LinkState.UP and t.status.detail == ""


# Bodies that start with a real type byte reach deeper than random ones.
KNOWN_TYPES = [
    v for k, v in vars(wire).items() if k.isupper() and isinstance(v, int) and 0 < v < 0xC0
]
typed_bodies = st.builds(
    lambda t, rest: bytes([t]) + rest,
    st.one_of(st.sampled_from(KNOWN_TYPES), st.integers(0, 255)),
    st.binary(max_size=40),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(typed_bodies, max_size=12))
def test_host_survives_any_validly_framed_bodies(bodies: list[bytes]) -> None:
    # Frames with a correct CRC but arbitrary content: the worst a broken board can send.
    t = Table(seed=7, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(3):
        t.step()
    for body in bodies:
        t.host.data_received(wire.frame(body), t.now)
        t.host.tick(t.now)
        t.host.take_output()
    t.step()


@settings(max_examples=200, deadline=None)
@given(st.lists(typed_bodies, max_size=12))
def test_board_survives_any_validly_framed_bodies(bodies: list[bytes]) -> None:
    t = Table(seed=8, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(3):
        t.step()
    for body in bodies:
        t.board.receive(wire.frame(body), t.now)
        t.board.poll(t.now)
    t.step()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=700), max_size=8))
def test_host_survives_any_raw_bytes_and_then_still_works(chunks: list[bytes]) -> None:
    t = Table(seed=9, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(3):
        t.step()
    for chunk in chunks:
        t.host.data_received(chunk, t.now)
        t.host.tick(t.now)
        t.host.take_output()
    assert len(t.host.deframer._buf) <= wire.MAX_ENCODED
    # And the link still works afterwards.
    t.host.data_received(b"\x00", t.now)
    t.board.record_button(1, 2, True, t.now)
    for _ in range(5):
        t.step()
    assert any(isinstance(e, ButtonEvent) and e.seat == 1 for e in t.delivered)


def test_an_event_that_does_not_parse_is_waited_for_then_skipped_after_three_tries() -> None:
    t = Table(seed=10, drop=0.0, flip=0.0, cut=0.0)
    for _ in range(3):
        t.step()
    broken = wire.event_header(wire.BUTTON, t.board.next_seq, t.now) + b"\x01"  # too short
    t.board._push(broken)
    t.board.record_button(3, 3, True, t.now)
    for _ in range(200):
        t.step()
    assert [(e.seq, type(e)) for e in t.delivered] == [(2, ButtonEvent)]
    assert t.board.retransmissions >= 2  # the host asked twice for it again
    assert t.status.corrupt_frames == 3


class LinkMachine(RuleBasedStateMachine):
    """Any interleaving of events, commands, lossy stretches, reconnects and board reboots:
    events arrive once and in order, commands are applied once and in order within a boot,
    and once the line is clean again nothing of the current boot is missing. Each event is a
    reading whose value is its recording number, so order and duplicates show directly."""

    def __init__(self) -> None:
        super().__init__()
        self.t = Table(seed=0, drop=0.0, flip=0.0, cut=0.0, ring=256)
        self.boots: list[RecordingHardware] = [self.t.hw]
        self.recorded: dict[int, int] = {}  # recording number -> boot id
        self.queued = 0
        self.boot_id = self.t.board.boot_id
        for _ in range(3):
            self.t.step()

    @rule(count=st.integers(1, 40))
    def readings(self, count: int) -> None:
        for _ in range(count):
            if self.t.board.ring_used() >= 250:
                break
            number = len(self.recorded)
            self.recorded[number] = self.boot_id
            self.t.board.record_sensor(wire.SENSOR_WEIGHT, 0, number, self.t.now)

    @rule(count=st.integers(1, 10))
    def commands(self, count: int) -> None:
        for _ in range(count):
            if not self.t.host.can_queue():
                break
            self.t.host.queue_command(functools.partial(brightness, self.queued))
            self.queued += 1

    @rule(ms=st.integers(1, 300), drop=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
          flip=st.sampled_from([0.0, 0.05, 0.3]))  # fmt: skip
    def time_passes(self, ms: int, drop: float, flip: float) -> None:
        for channel in (self.t.to_host, self.t.to_board):
            channel.drop, channel.flip = drop, flip
        for _ in range(ms):
            self.t.step()
        for channel in (self.t.to_host, self.t.to_board):
            channel.drop = channel.flip = 0.0

    @rule()
    def reconnect(self) -> None:
        self.t.host.connection_lost()
        self.t.host.connection_made(self.t.now)

    @rule()
    def reboot(self) -> None:
        self.boot_id += 1
        self.t.hw = RecordingHardware()
        self.boots.append(self.t.hw)
        self.t.board = BoardProtocol(BoardSpec(ring_capacity=256), self.t.hw, self.boot_id)

    def values(self) -> list[int]:
        return [e.value for e in self.t.delivered if isinstance(e, SensorReading)]

    @invariant()
    def events_once_and_in_order(self) -> None:
        values = self.values()
        assert values == sorted(set(values)), "a duplicate or a step back"

    @invariant()
    def commands_once_and_in_order_within_a_boot(self) -> None:
        for hw in self.boots:
            applied = [v for _, v in hw.configs]
            assert applied == sorted(set(applied))

    def teardown(self) -> None:
        for _ in range(5000):
            self.t.step()
            if not self.t.board.ring_used() and self.t.host.acked_through() == self.queued:
                break
        this_boot = {n for n, boot in self.recorded.items() if boot == self.boot_id}
        assert this_boot <= set(self.values())
        applied = {v for hw in self.boots for _, v in hw.configs}
        assert applied == set(range(self.queued))


LinkMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
test_link_state_machine = LinkMachine.TestCase
