"""What the camera tells the table: an :class:`Observation` of one thing the table showed.

Vision's watcher (vision/observe.py) reports each change it has seen hold still as an
Observation; the table service takes them in beside the call buttons' presses, and the
referee's corrections arrive in the same shape (``from_json``). This module imports nothing
of the service: the service depends on vision, never the other way round.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from vision.geometry import SEATS


class InputError(ValueError):
    """An input that cannot be understood; names the field."""


class ObservationKind(enum.StrEnum):
    DICE = "dice"  # dice shown after a throw: tiles=(), dice=(a, b[, c])
    DEAL = "deal"  # the hands are drawn (Law 17): tiles=()
    DRAW = "draw"  # a seat took a tile from the wall; face down, so tiles=()
    FLOWER = "flower"  # a flower or season laid aside: tiles=(F2,)
    DISCARD = "discard"  # a discard landed and was named: tiles=(5C,)
    EXPOSURE = "exposure"  # a set laid face up after a won claim: tiles=(5C, 5C, 5C)
    CONCEALED_KONG = "concealed_kong"  # four from the hand laid (Law 41): tiles=(tile,)
    ADDED_KONG = "added_kong"  # a fourth added to a grounded pung (Law 42): tiles=(tile,)
    HAND_SHOWN = "hand_shown"  # the concealed hand shown at Mah Jongg: every tile
    # The American game (docs/rules-american.md): what the camera counts, never the faces.
    PASS = "pass"  # a Charleston pass laid face down: count, zone "blind-N" for a blind pass
    VOTE = "vote"  # the second Charleston: zone "stop" or "go" (CH-4)
    COURTESY_OFFER = "courtesy_offer"  # tiles offered across, 0-3: count (CH-5)
    COURTESY_PASS = "courtesy_pass"  # the courtesy tiles laid across: count
    JOKER_EXCHANGE = "joker_exchange"  # a natural put on an exposure for its Joker: tiles=(tile,),
    #   zone "rack-S" (the exposure's owner) (J-4)


@dataclass(frozen=True, slots=True)
class Observation:
    """One thing the table showed. ``zone`` names where it was seen (``discards``,
    ``rack-S``, ``wall``); ``time_us`` is the table clock when the frame was taken."""

    kind: ObservationKind
    seat: str | None
    tiles: tuple[str, ...] = ()
    confidence: float = 1.0
    time_us: int = 0
    zone: str = ""
    dice: tuple[int, ...] = ()
    source: str = "vision"
    winning: str = ""  # HAND_SHOWN after a win on a draw: the tile drawn last
    id: int = 0  # set by the service when it holds one for confirmation
    count: int = 0  # tiles counted face down (American Charleston and courtesy passes)

    def __post_init__(self) -> None:
        if self.seat is not None and self.seat not in SEATS:
            raise InputError(f"observation.seat: {self.seat!r} is not one of E S W N")
        if not 0.0 <= self.confidence <= 1.0:
            raise InputError(f"observation.confidence: {self.confidence} is not in [0, 1]")
        if self.kind is ObservationKind.DICE and not all(1 <= d <= 6 for d in self.dice):
            raise InputError(f"observation.dice: {self.dice} are not dice faces")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": str(self.kind),
            "seat": self.seat,
            "tiles": list(self.tiles),
            "confidence": round(self.confidence, 3),
            "time_us": self.time_us,
        }
        if self.zone:
            out["zone"] = self.zone
        if self.dice:
            out["dice"] = list(self.dice)
        if self.winning:
            out["winning"] = self.winning
        if self.id:
            out["id"] = self.id
        if self.count:
            out["count"] = self.count
        return out

    @staticmethod
    def from_json(obj: Any, where: str = "observation") -> Observation:
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected an object")
        try:
            kind = ObservationKind(str(obj.get("kind")))
        except ValueError:
            known = ", ".join(k.value for k in ObservationKind)
            raise InputError(f"{where}.kind: {obj.get('kind')!r} is not one of {known}") from None
        tiles = obj.get("tiles", [])
        if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
            raise InputError(f"{where}.tiles: expected a list of tile tokens")
        dice = obj.get("dice", [])
        if not isinstance(dice, list) or not all(isinstance(d, int) for d in dice):
            raise InputError(f"{where}.dice: expected a list of integers")
        confidence = obj.get("confidence", 1.0)
        if not isinstance(confidence, int | float):
            raise InputError(f"{where}.confidence: expected a number")
        count = obj.get("count", 0)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 14:
            raise InputError(f"{where}.count: expected a whole number of tiles, 0-14")
        seat = obj.get("seat")
        if seat is not None and not isinstance(seat, str):
            raise InputError(f"{where}.seat: expected E S W N or null")
        return Observation(
            kind=kind,
            seat=seat.upper() if seat else None,
            tiles=tuple(t.upper() for t in tiles),
            confidence=float(confidence),
            time_us=int(obj.get("time_us", 0)),
            zone=str(obj.get("zone", "")),
            dice=tuple(dice),
            source=str(obj.get("source", "referee")),
            winning=str(obj.get("winning", "")).upper(),
            count=count,
        )
