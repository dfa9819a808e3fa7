"""The typed settings of one table, as read from its TOML file.

One file per table (``/etc/mahjong-table/table.toml`` on a Pi). Every section has documented
defaults, so the smallest valid file is ``[table]`` with an ``id``. Unknown keys are refused:
a typo in a key must not silently fall back to a default at a real table.
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine import rulesets
from engine.errors import MalformedInput
from engine.seats import SEAT_NAMES as SEATS

# The call buttons a seat can have: the kind of claim decides priority (Code 1924, Laws 50-52),
# so each kind has its own button.
ClaimButton = Literal["chow", "pung", "kong", "mahjong"]
BUTTONS: tuple[ClaimButton, ...] = ("chow", "pung", "kong", "mahjong")
_TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")

SeatName = Literal["E", "S", "W", "N"]  # a TOML key: the seat tokens of engine.seats
HouseValue = bool | int | float | str | None
# The top face of one tile, width x height in mm: a Chinese set, and an American set (larger).
TILE_SIZES_MM: dict[str, tuple[float, float]] = {"chinese": (22.0, 30.0), "american": (28.0, 38.0)}


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSection(_Section):
    id: str = Field(description="table id, used in MQTT topics: mahjong/v1/<id>/...")
    # Any name of the registry (engine/rulesets.py): a family's ruleset, or a scoring preset,
    # which plays as its family and scores with the preset.
    ruleset: str = "code1924/mixed"
    # What the hands are scored as, if not the ruleset itself: one of its family's presets.
    scoring: str = ""
    # House rules: checked here against the options the ruleset documents (docs/score.md).
    options: dict[str, HouseValue] = Field(default_factory=dict)
    # How many hands make a game where the book defines none (American; docs/face.md).
    hands_per_game: int | None = Field(default=None, ge=1, le=400)
    # The American card: a card file's path; empty for the card bundled with the table.
    card: str = ""

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, value: str) -> str:
        return rulesets.entry(value).name

    @field_validator("scoring")
    @classmethod
    def _known_scoring(cls, value: str) -> str:
        return rulesets.entry(value).name if value else value

    @model_validator(mode="after")
    def _scoring_options_and_card_fit_the_ruleset(self) -> TableSection:
        played = rulesets.entry(self.ruleset)
        if self.scoring and rulesets.entry(self.scoring).plays != played.plays:
            raise ValueError(f"scoring: {self.scoring} does not score {self.ruleset}'s hands; "
                             f"one of {', '.join(self._presets())}")
        if self.card and not played.needs_card:
            raise ValueError(f"card: {self.ruleset} is not played from a card (only american)")
        try:
            if self.options:  # none: nothing to check, and the scorer stays unloaded
                rulesets.validate_options(self.scoring or self.ruleset, self.options)
        except MalformedInput as exc:
            raise ValueError(f"{exc.where}: {exc.message}") from None
        return self

    def _presets(self) -> list[str]:
        plays = rulesets.entry(self.ruleset).plays
        return [n for n in rulesets.names() if rulesets.entry(n).plays == plays]

    @property
    def plays(self) -> str:
        """The ruleset the engine plays the hands under (a preset plays as its family)."""
        return rulesets.entry(self.ruleset).plays

    @property
    def scores(self) -> str:
        """The ruleset the scorer settles the hands with."""
        return self.scoring or rulesets.entry(self.ruleset).scores

    @field_validator("id")
    @classmethod
    def _id_is_a_topic_level(cls, value: str) -> str:
        if not _TABLE_ID.match(value):
            raise ValueError(
                "expected 1-64 letters, digits, '-' or '_' (it becomes an MQTT topic level)"
            )
        return value


class SeatSection(_Section):
    player: str = ""


class AdjudicationSection(_Section):
    # How long after a discard is named the table waits for claims when the rule family closes
    # the window only on the next player's action (Code 1924, Law 53; American C-5).
    courtesy_pause_ms: int = Field(default=1500, ge=0, le=30_000)
    # A press is judged by when its button went down; the window stays open this much longer
    # for a press made in time that is still on its way from the board (a retransmission).
    press_latency_ms: int = Field(default=100, ge=0, le=2_000)
    # Observations below this confidence are not guessed at: the table is asked instead.
    min_confidence: float = Field(default=0.9, gt=0.0, le=1.0)


class BoardSection(_Section):
    # A pyserial URL: a device path (the udev name /dev/mahjong-mcu), or "emulated" for the
    # built-in emulator on a pty. Empty when the table has no microcontroller (GPIO only).
    serial: str = "/dev/mahjong-mcu"
    baudrate: int = Field(default=115200, gt=0)
    # What each of a seat's buttons means, by the board's button index.
    buttons: list[ClaimButton] = Field(
        default_factory=lambda: list(BUTTONS), min_length=1, max_length=8
    )


class GpioSeat(_Section):
    # BCM pin numbers; any button may be absent.
    buttons: dict[Literal["chow", "pung", "kong", "mahjong"], int] = Field(
        default_factory=dict
    )
    led: int | None = None


class GpioSection(_Section):
    enabled: bool = False
    # "auto" lets gpiozero choose (lgpio on a Pi 5, RPi.GPIO where present); "mock" for tests.
    factory: Literal["auto", "lgpio", "rpigpio", "native", "mock"] = "auto"
    bounce_ms: int = Field(default=20, ge=0, le=1000)
    seats: dict[SeatName, GpioSeat] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _pins_are_distinct(self) -> GpioSection:
        seen: dict[int, str] = {}
        for seat, cfg in self.seats.items():
            pins = [(f"seats.{seat}.buttons.{b}", p) for b, p in cfg.buttons.items()]
            if cfg.led is not None:
                pins.append((f"seats.{seat}.led", cfg.led))
            for name, pin in pins:
                if not 0 <= pin <= 27:
                    raise ValueError(f"{name}: GPIO {pin} is not a header pin (0-27)")
                if pin in seen:
                    raise ValueError(f"{name}: GPIO {pin} is already used by {seen[pin]}")
                seen[pin] = name
        return self


class LedSegment(_Section):
    name: str
    start: int = Field(ge=0)
    count: int = Field(gt=0)


class LedSection(_Section):
    # Segments of the LED strip driven by the board, in the board's segment order: one per
    # seat ("seat-E" ...), "centre" (call window, errors) and "wall" (break and dead wall).
    segments: list[LedSegment] = Field(
        default_factory=lambda: [
            *(LedSegment(name=f"seat-{s}", start=i * 18, count=18) for i, s in enumerate(SEATS)),
            LedSegment(name="centre", start=72, count=24),
            LedSegment(name="wall", start=96, count=72),
        ]
    )
    brightness: float = Field(default=0.5, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _segments_do_not_overlap(self) -> LedSection:
        ordered = sorted(self.segments, key=lambda s: s.start)
        for a, b in itertools.pairwise(ordered):
            if a.start + a.count > b.start:
                raise ValueError(f"segment {b.name!r} overlaps segment {a.name!r}")
        return self


class CameraSection(_Section):
    # "none" (no camera), "picamera2", "v4l2:<index>", "file:<path>" for a recorded clip, or
    # "render:<seed>" for the synthetic table of the renderer.
    source: str = "none"
    calibration: str = ""  # empty: calibrate from the corner markers at start
    model: str = ""  # the enrolled tile set (`mjtable vision enroll`); empty: the bundled one
    fps: float = Field(default=5.0, gt=0.0, le=60.0)
    # The frame asked of the camera. More pixels on a tile name it better at no measured cost
    # to the scan, which flattens the table to 1 px/mm whatever the frame (docs/vision.md,
    # "Frame size"); a camera that cannot give it gives what it can, and calibration follows.
    width: int = Field(default=1920, ge=320, le=8192)
    height: int = Field(default=1080, ge=240, le=8192)
    # Around a hand over the table nothing is trusted (its shadow, fingers cut off it): how far
    # (vision/observe.py). 40 mm held every discard beside a hand still (bench_watch.py).
    hidden_margin_mm: float = Field(default=40.0, ge=0.0, le=900.0)
    # The table as the camera sees it (docs/build/mounting.md): the square playing surface, the
    # printed corner markers and their inset from its edge, and the top face of one tile:
    # `tiles` gives a Chinese (22 x 30 mm) or an American set's (28 x 38 mm) unless
    # tile_w_mm and tile_h_mm give one measured with a ruler.
    table_mm: float = Field(default=900.0, ge=500.0, le=1500.0)
    marker_mm: float = Field(default=50.0, ge=20.0, le=150.0)
    marker_inset_mm: float = Field(default=12.0, ge=0.0, le=100.0)
    tiles: Literal["chinese", "american"] = "chinese"
    tile_w_mm: float | None = Field(default=None, ge=15.0, le=45.0)
    tile_h_mm: float | None = Field(default=None, ge=20.0, le=60.0)

    @model_validator(mode="after")
    def _markers_fit_and_tiles_stand_up(self) -> CameraSection:
        if 2 * (self.marker_inset_mm + self.marker_mm) >= self.table_mm / 2:
            raise ValueError("two markers and their insets take half the table: check the sizes")
        width, height = self.tile_size_mm()
        if width >= height:
            raise ValueError(f"a tile's width ({width} mm) must be less than its height")
        return self

    def tile_size_mm(self) -> tuple[float, float]:
        """The top face of one tile (width, height) in mm."""
        width, height = TILE_SIZES_MM[self.tiles]
        return (self.tile_w_mm or width, self.tile_h_mm or height)

    @field_validator("source")
    @classmethod
    def _known_source(cls, value: str) -> str:
        if value in ("none", "picamera2") or value.startswith(("v4l2:", "file:", "render:")):
            return value
        raise ValueError(
            "expected 'none', 'picamera2', 'v4l2:<index>', 'file:<path>' or 'render:<seed>'"
        )


class MqttSection(_Section):
    enabled: bool = True
    host: str = "localhost"
    port: int = Field(default=1883, gt=0, lt=65536)
    username: str = ""
    # The password lives in its own file (mode 0600), never in the table file.
    password_file: str = ""
    tls: bool = False
    # The CA certificate (PEM) to trust for the broker's TLS: a club's or a table's own CA
    # (deploy/make-certs.sh). Empty: the system's CA store.
    ca_file: str = ""
    keepalive: int = Field(default=15, ge=5, le=3600)
    topic_prefix: str = "mahjong/v1"

    @model_validator(mode="after")
    def _ca_file_needs_tls(self) -> MqttSection:
        if self.ca_file and not self.tls:
            raise ValueError("ca_file: a CA is used only over TLS: set mqtt.tls = true "
                             "(and the broker's TLS port, 8883)")
        return self

    @field_validator("topic_prefix")
    @classmethod
    def _plain_prefix(cls, value: str) -> str:
        if not value or any(c in value for c in "#+") or value.startswith("/") or value.endswith(
            "/"
        ):
            raise ValueError("expected topic levels without wildcards or outer '/'")
        return _broker_accepts(value)


def _broker_accepts(topic: str) -> str:
    """Refuse what a broker refuses in a topic name (MQTT 5.0, 4.7.3 and 1.5.4): a NUL or
    another control character, a non-character, a '$' start (reserved for the broker),
    more than 200 bytes (ours: every table topic adds up to 80 more)."""
    for index, char in enumerate(topic):
        code = ord(char)
        if code <= 0x1F or 0x7F <= code <= 0x9F or 0xFDD0 <= code <= 0xFDEF or (
            code & 0xFFFE == 0xFFFE
        ):
            raise ValueError(f"character U+{code:04X} at position {index + 1} is not allowed "
                             "in an MQTT topic")
    if topic.startswith("$"):
        raise ValueError("a topic starting with '$' is reserved for the broker")
    if len(topic.encode("utf-8")) > 200:
        raise ValueError("longer than 200 bytes")
    return topic


class WebSection(_Section):
    """The table's page (docs/face.md): the table view, the scoreboard, the referee's console."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, lt=65536)
    # The referee's password, hashed (`mjtable web passwd FILE`); empty: no console.
    password_file: str = ""
    # TLS with the table's local CA (deploy/): both or neither.
    certificate: str = ""
    key: str = ""
    # A read-only code viewers must give, if set.
    viewer_code: str = ""
    session_minutes: int = Field(default=240, ge=1, le=24 * 60)

    @model_validator(mode="after")
    def _tls_pair(self) -> WebSection:
        if bool(self.certificate) != bool(self.key):
            raise ValueError("web.certificate and web.key go together")
        return self


class StakesSection(_Section):
    """Points to chips or money on the scoreboard and in the export (docs/face.md, Stakes)."""

    # "" plays for points only; "chips", or a currency code such as "USD" or "EUR".
    unit: str = Field(default="", max_length=12)
    # The unit's amount for one point, e.g. 0.01: a cent a point (American "Values and units").
    per_point: Decimal = Field(default=Decimal("0.01"), gt=0, le=1000)
    # "hand": each hand settled as it ends, as every book does; "game": once at the game's end.
    settle: Literal["hand", "game"] = "hand"
    # Places after the point; empty: 0 for chips, 2 for money.
    decimals: int | None = Field(default=None, ge=0, le=6)


class StoreSection(_Section):
    path: str = "/var/lib/mahjong-table/table.sqlite3"
    snapshot_every: int = Field(default=50, gt=0)


class TableConfig(_Section):
    table: TableSection
    seats: dict[SeatName, SeatSection] = Field(default_factory=dict)
    adjudication: AdjudicationSection = AdjudicationSection()
    board: BoardSection = BoardSection()
    gpio: GpioSection = GpioSection()
    leds: LedSection = LedSection()
    camera: CameraSection = CameraSection()
    mqtt: MqttSection = MqttSection()
    store: StoreSection = StoreSection()
    web: WebSection = WebSection()
    stakes: StakesSection = StakesSection()

    @model_validator(mode="after")
    def _some_input(self) -> TableConfig:
        if not self.board.serial and not self.gpio.enabled:
            raise ValueError("no input: set board.serial or enable gpio")
        return self

    def player(self, seat: str) -> str:
        for name, section in self.seats.items():
            if name == seat and section.player:
                return section.player
        return seat
