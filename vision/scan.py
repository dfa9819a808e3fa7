"""One frame in, everything on the table out: tiles (identity, zone, position, orientation,
confidence), dice (pips) and obstructions (a hand over the table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vision.artwork import BACK, BLANK, Image
from vision.calibration import Calibration, CalibrationError
from vision.dice import count_pips, die_crop
from vision.finder import find, tile_crops
from vision.identify import Recogniser
from vision.scan_cache import ScanMemory, thumbnail


class FrameError(ValueError):
    """A frame that cannot be scanned (wrong size for the calibration, not an image)."""


@dataclass(frozen=True)
class TileSeen:
    tile: str | None  # a token; None when face down, blank, or not sure
    confidence: float
    x: float  # table mm
    y: float
    angle: float  # direction of the long side, degrees from the table's y axis, [0, 180)
    zone: str | None
    seat: str | None
    sideways: bool  # turned across its seat's usual direction (a claimed tile in an exposure)
    face_down: bool = False
    blank: bool = False
    best: str = ""  # the best guess even when abstaining (diagnostics only)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tile": self.tile,
            "confidence": round(self.confidence, 3),
            "zone": self.zone,
            "seat": self.seat,
            "x_mm": round(self.x, 1),
            "y_mm": round(self.y, 1),
            "orientation": {"angle": round(self.angle, 1), "sideways": self.sideways},
        }
        if self.face_down:
            out["face_down"] = True
        if self.blank:
            out["blank"] = True
        return out


@dataclass(frozen=True)
class DieSeen:
    pips: int | None
    confidence: float
    x: float
    y: float
    zone: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "pips": self.pips,
            "confidence": round(self.confidence, 3),
            "zone": self.zone,
            "x_mm": round(self.x, 1),
            "y_mm": round(self.y, 1),
        }


@dataclass
class ScanResult:
    tiles: list[TileSeen] = field(default_factory=list)
    dice: list[DieSeen] = field(default_factory=list)
    obstructions: list[tuple[float, float]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "tiles": [t.to_json() for t in self.tiles],
            "dice": [d.to_json() for d in self.dice],
            "obstructions": [
                {"x_mm": round(x, 1), "y_mm": round(y, 1)} for x, y in self.obstructions
            ],
        }


# A seat's tiles stand with their long side pointing at the seat: along y for East and West,
# along x for South and North.
_SEAT_LONG_AXIS = {"E": 0.0, "W": 0.0, "S": 90.0, "N": 90.0}


def _sideways(angle: float, seat: str | None) -> bool:
    if seat is None:
        return False
    diff = abs(angle - _SEAT_LONG_AXIS[seat]) % 180.0
    return min(diff, 180.0 - diff) > 45.0


class Scanner:
    """``cache=True`` for a live table (the camera loop): a frame like the last one, and
    tiles whose crops have not changed, are not named again (vision/scan_cache.py)."""

    def __init__(
        self, calibration: Calibration, recogniser: Recogniser, cache: bool = False
    ) -> None:
        self.calibration = calibration
        self.recogniser = recogniser
        self.memory = ScanMemory() if cache else None

    def check_frame(self, frame: Image) -> None:
        if frame is None or getattr(frame, "ndim", 0) != 3 or frame.shape[2] != 3:
            raise FrameError("not a colour image")
        h, w = frame.shape[:2]
        if (w, h) != self.calibration.image_size:
            raise FrameError(
                f"frame is {w}x{h} but the calibration was made for "
                f"{self.calibration.image_size[0]}x{self.calibration.image_size[1]}"
                "; calibrate again for this camera mode"
            )

    def scan(self, frame: Image) -> ScanResult:
        self.check_frame(frame)
        memory = self.memory
        thumb = None
        if memory is not None:
            thumb = thumbnail(frame)
            same = memory.unchanged(thumb, self.recogniser)
            if same is not None:
                return ScanResult(list(same.tiles), list(same.dice), list(same.obstructions))
        geometry = self.calibration.geometry
        found = find(frame, self.calibration)
        tiles = [f for f in found if f.kind == "tile"]
        if memory is None:
            identities = self.recogniser.identify(tile_crops(frame, self.calibration, tiles))
        else:
            identities = memory.identify(frame, self.calibration, tiles, self.recogniser)
        result = ScanResult()
        for spot, ident in zip(tiles, identities, strict=True):
            zone = geometry.zone_at(spot.x, spot.y)
            face_down = ident.label == BACK
            blank = ident.label == BLANK
            tile = None if face_down or blank else ident.label
            result.tiles.append(
                TileSeen(
                    tile,
                    ident.confidence,
                    spot.x,
                    spot.y,
                    spot.angle,
                    zone.name if zone else None,
                    zone.seat if zone else None,
                    _sideways(spot.angle, zone.seat if zone else None),
                    face_down,
                    blank,
                    ident.best,
                )
            )
        for spot in found:
            if spot.kind == "die":
                pips, conf = count_pips(
                    die_crop(frame, self.calibration, spot.x, spot.y, spot.angle)
                )
                zone = geometry.zone_at(spot.x, spot.y)
                result.dice.append(DieSeen(pips, conf, spot.x, spot.y, zone.name if zone else None))
            elif spot.kind == "obstruction":
                result.obstructions.append((spot.x, spot.y))
        if memory is not None and thumb is not None:
            memory.scanned(thumb, result)
        return result


__all__ = ["CalibrationError", "DieSeen", "FrameError", "ScanResult", "Scanner", "TileSeen"]
