"""What the host link hands the service: board events, the board's HELLO, the link status."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from firmware_bridge import wire


class SensorKind(enum.IntEnum):
    PRESENCE = wire.SENSOR_PRESENCE  # value 1 = someone in the seat's zone
    RACK = wire.SENSOR_RACK  # value 1 = the seat's rack is in place
    WEIGHT = wire.SENSOR_WEIGHT  # value = grams on the zone's load cell
    TILE_COUNT = wire.SENSOR_TILE_COUNT  # value = tiles counted in the zone


class DiceSource(enum.IntEnum):
    LED = wire.DICE_LED  # the board rolled its LED dice
    ROLLER = wire.DICE_ROLLER  # a mechanical roller fired and its result was sensed
    SENSED = wire.DICE_SENSED  # physical dice read by the board


class DiceKind(enum.IntEnum):
    NONE = wire.DICE_NONE
    LED = wire.DICE_LED
    ROLLER = wire.DICE_ROLLER
    SENSED = wire.DICE_SENSED


class Animation(enum.IntEnum):
    OFF = wire.ANIM_OFF
    SOLID = wire.ANIM_SOLID
    BLINK = wire.ANIM_BLINK
    COUNTDOWN = wire.ANIM_COUNTDOWN  # call window: a bar draining over duration_ms
    POINTER = wire.ANIM_POINTER  # wall-break position, dead-wall boundary
    PULSE = wire.ANIM_PULSE  # claim winner
    FLASH = wire.ANIM_FLASH  # error flash, `repeat` times
    CHASE = wire.ANIM_CHASE  # turn indicator


class DiceAction(enum.IntEnum):
    ROLL = wire.DICE_ROLL
    SHOW = wire.DICE_SHOW
    CLEAR = wire.DICE_CLEAR


class ConfigKey(enum.IntEnum):
    DEBOUNCE_MS = wire.CFG_DEBOUNCE_MS
    HOST_TIMEOUT_MS = wire.CFG_HOST_TIMEOUT_MS
    BRIGHTNESS = wire.CFG_BRIGHTNESS
    SENSOR_INTERVAL_MS = wire.CFG_SENSOR_INTERVAL_MS
    RETRANSMIT_MS = wire.CFG_RETRANSMIT_MS


class BoardErrorCode(enum.IntEnum):
    UNKNOWN_COMMAND = wire.ERR_UNKNOWN_COMMAND
    BAD_COMMAND = wire.ERR_BAD_COMMAND
    HOST_LOST = wire.ERR_HOST_LOST
    HARDWARE = wire.ERR_HARDWARE


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A call button changed state. ``board_us``: the board's clock at the (debounced) edge."""

    seq: int
    board_us: int
    seat: int  # 0-based seat index in wiring order
    button: int  # 0-based button index on that seat
    pressed: bool  # True = pressed, False = released


@dataclass(frozen=True, slots=True)
class SensorReading:
    seq: int
    board_us: int
    kind: SensorKind | int
    zone: int
    value: int


@dataclass(frozen=True, slots=True)
class DiceResult:
    seq: int
    board_us: int
    source: DiceSource | int
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BoardError:
    seq: int
    board_us: int
    code: BoardErrorCode | int
    detail: str


@dataclass(frozen=True, slots=True)
class EventsDropped:
    """The board's ring was full: ``count`` events before this one were lost."""

    seq: int
    board_us: int
    count: int


BoardEvent = ButtonEvent | SensorReading | DiceResult | BoardError | EventsDropped


def _enum_or_int(enum_type: type[enum.IntEnum], value: int) -> int:
    try:
        return enum_type(value)
    except ValueError:
        return value


def event_from_body(body: bytes) -> BoardEvent:
    """The typed event of a sequenced frame body; wire.FrameError if it does not parse."""
    kind, seq, board_us, f = wire.decode_event(body)
    if kind == wire.BUTTON:
        return ButtonEvent(seq, board_us, f[0], f[1], f[2])
    if kind == wire.SENSOR:
        return SensorReading(seq, board_us, _enum_or_int(SensorKind, f[0]), f[1], f[2])
    if kind == wire.DICE:
        return DiceResult(seq, board_us, _enum_or_int(DiceSource, f[0]), tuple(f[1]))
    if kind == wire.BOARD_ERROR:
        return BoardError(seq, board_us, _enum_or_int(BoardErrorCode, f[0]), f[1])
    return EventsDropped(seq, board_us, f[0])


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """The board's HELLO: who it is and what it has."""

    protocol: tuple[int, int]
    firmware: str
    board_id: str
    boot_id: int
    seats: int
    buttons_per_seat: int
    segments: tuple[int, ...]  # LED count of each segment, by segment index
    dice: DiceKind | int
    sensors: frozenset[SensorKind]
    ring_capacity: int
    # The events the board holds at this handshake: seq ``oldest_unacked_seq`` up to
    # ``next_event_seq - 1`` (a new host gets them all again first).
    next_event_seq: int = 0
    oldest_unacked_seq: int = 0

    @classmethod
    def from_hello(cls, hello: dict[str, object]) -> BoardInfo:
        bits = int(str(hello["sensors"]))
        sensors = frozenset(
            kind
            for bit, kind in (
                (wire.SENSE_PRESENCE, SensorKind.PRESENCE),
                (wire.SENSE_RACK, SensorKind.RACK),
                (wire.SENSE_WEIGHT, SensorKind.WEIGHT),
                (wire.SENSE_TILE_COUNT, SensorKind.TILE_COUNT),
            )
            if bits & bit
        )
        segments = hello["segments"]
        assert isinstance(segments, list)
        return cls(
            protocol=(int(str(hello["major"])), int(str(hello["minor"]))),
            firmware=str(hello["firmware"]),
            board_id=str(hello["board_id"]),
            boot_id=int(str(hello["boot_id"])),
            seats=int(str(hello["seats"])),
            buttons_per_seat=int(str(hello["buttons_per_seat"])),
            segments=tuple(int(n) for n in segments),
            dice=_enum_or_int(DiceKind, int(str(hello["dice_kind"]))),
            sensors=sensors,
            ring_capacity=int(str(hello["ring_capacity"])),
            next_event_seq=int(str(hello["next_event_seq"])),
            oldest_unacked_seq=int(str(hello["oldest_unacked_seq"])),
        )


class LinkState(enum.Enum):
    CONNECTING = "connecting"  # opening the port or waiting for HELLO
    UP = "up"  # handshake done, heartbeats arriving
    DOWN = "down"  # port gone, or the board stopped answering; reconnecting
    REFUSED = "refused"  # the board speaks an incompatible protocol version
    CLOSED = "closed"  # the link was closed by its owner


@dataclass(slots=True)
class LinkStatus:
    """Counters and state of the link; a snapshot is safe to publish as metrics."""

    state: LinkState = LinkState.CONNECTING
    detail: str = ""
    board: BoardInfo | None = None
    corrupt_frames: int = 0  # frames dropped for bad COBS, CRC, length or fields
    unknown_types: int = 0  # frames of a type this host does not know (each type logged once)
    duplicates: int = 0  # events received again after delivery (a resend), dropped
    out_of_order: int = 0  # events received past a gap, dropped (the board resends them)
    retransmissions: int = 0  # commands this host sent again
    board_retransmissions: int = 0  # events the board sent again (from its heartbeat)
    board_corrupt_frames: int = 0  # corrupt frames the board saw (from its heartbeat)
    reconnects: int = 0  # handshakes after the first
    events_delivered: int = 0
    events_dropped_by_board: int = 0  # sum of EVENTS_DROPPED counts
    commands_sent: int = 0
    commands_acked: int = 0
    commands_pending: int = 0
    events_pending: int = 0  # delivered to the link's buffer, not yet taken by the service
    rtt_us: int | None = None  # round trip of the best recent time sync
    clock_offset_us: int | None = None  # board_us - host_us (host monotonic clock)
    last_frame_age_s: float | None = None
    unknown_type_codes: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready (for `mjtable status` and MQTT metrics)."""
        out: dict[str, object] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if isinstance(value, LinkState):
                value = value.value
            elif isinstance(value, BoardInfo):
                value = {
                    "protocol": f"{value.protocol[0]}.{value.protocol[1]}",
                    "firmware": value.firmware,
                    "board_id": value.board_id,
                    "seats": value.seats,
                    "buttons_per_seat": value.buttons_per_seat,
                    "segments": list(value.segments),
                    "dice": getattr(value.dice, "name", value.dice),
                    "sensors": sorted(k.name for k in value.sensors),
                }
            out[name] = value
        return out
