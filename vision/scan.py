"""One frame in, everything on the table out: tiles (identity, zone, position, orientation,
confidence), dice (pips) and obstructions (a hand over the table)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.blas import one_blas_thread
from vision.calibration import Calibration, CalibrationError
from vision.dice import count_pips, die_crop
from vision.embed_ahead import EmbedAhead
from vision.finder import (
    PX_PER_MM,
    Box,
    Cloth,
    Flattened,
    Found,
    find,
    find_changed,
    flatten_on_cloth,
    set_body,
    tile_crops,
)
from vision.identify import Identity, Recogniser
from vision.image import Image
from vision.labels import BACK, BLANK
from vision.scan_cache import ScanMemory, thumbnail
from vision.table_text import TextMemory
from vision.threads import SCAN_THREADS, ScanThreads


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


@dataclass(frozen=True)
class ObstructionSeen:
    """Something over the table that is neither tiles nor dice (a hand, a sleeve): the
    smallest rectangle around it, in table mm, ``angle`` as a tile's (its long side ``h``)."""

    x: float
    y: float
    angle: float = 0.0
    w: float = 0.0
    h: float = 0.0

    @classmethod
    def of(cls, spot: Found) -> ObstructionSeen:
        """The finder's obstruction (``kind == "obstruction"``) as the scan reports it."""
        return cls(spot.x, spot.y, spot.angle, spot.w, spot.h)

    def covers(self, x: float, y: float, margin_mm: float = 0.0) -> bool:
        """Whether the point lies under it, or within ``margin_mm`` of it."""
        t = math.radians(self.angle)
        dx, dy = x - self.x, y - self.y
        across = abs(dx * math.cos(t) + dy * math.sin(t))  # along the short side
        along = abs(-dx * math.sin(t) + dy * math.cos(t))  # along the long side
        return across <= self.w / 2 + margin_mm and along <= self.h / 2 + margin_mm

    def bounds(self) -> tuple[float, float, float, float]:
        """The smallest box along the table's axes holding it: x0, y0, x1, y1 in mm."""
        t = math.radians(self.angle)
        half_x = abs(self.w / 2 * math.cos(t)) + abs(self.h / 2 * math.sin(t))
        half_y = abs(self.w / 2 * math.sin(t)) + abs(self.h / 2 * math.cos(t))
        return self.x - half_x, self.y - half_y, self.x + half_x, self.y + half_y

    def to_json(self) -> dict[str, Any]:
        return {
            "x_mm": round(self.x, 1),
            "y_mm": round(self.y, 1),
            "w_mm": round(self.w, 1),
            "h_mm": round(self.h, 1),
            "angle": round(self.angle, 1),
        }


@dataclass
class ScanResult:
    tiles: list[TileSeen] = field(default_factory=list)
    dice: list[DieSeen] = field(default_factory=list)
    obstructions: list[ObstructionSeen] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "tiles": [t.to_json() for t in self.tiles],
            "dice": [d.to_json() for d in self.dice],
            "obstructions": [o.to_json() for o in self.obstructions],
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
    """``cache=True`` for a live table (the camera loop): a frame like the last one is not
    scanned again, a frame changed in one place is looked at only there, and tiles whose
    crops have not changed are not named again (vision/scan_cache.py). ``read_text`` (with
    the cache): a tile the bonus gate leaves to the text recogniser is read once, on a
    background thread at low priority, and the reading remembered while the tile lies
    unchanged (vision/table_text.py); an uncached scan never reads the scanner's cuts.

    ``ahead=True``: a second thread runs the network beside the scan's. Without the cache,
    a frame has its tiles embedded there while the finder goes on (vision/embed_ahead.py);
    with it (whose scans name only the tiles whose crops changed), half of those tiles and
    of any second look are. The same result, sooner on two cores. The thread is started on
    first use; :meth:`close` ends it.

    ``away=True`` (with ``ahead``; by default ``threads.network_process``): the network runs
    in a process of its own where ONNX Runtime runs it (vision/embed_process.py), started
    with the scanner and shared by every scanner of the same recogniser; the runs go to the
    second thread until it is ready.
    ``owns_recogniser``: :meth:`close` ends that process too (:func:`load_scanner`'s
    scanners, whose recogniser is theirs alone).

    ``threads``: OpenCV's threads and the like (vision/threads.py), applied to the process
    when the scanner is made; the service's and the benchmarks' are :data:`SCAN_THREADS`."""

    def __init__(
        self,
        calibration: Calibration,
        recogniser: Recogniser,
        cache: bool = False,
        ahead: bool = True,
        threads: ScanThreads = SCAN_THREADS,
        away: bool | None = None,
        owns_recogniser: bool = False,
        read_text: bool = True,
    ) -> None:
        threads.apply()
        self.threads = threads
        self.calibration = calibration
        self.recogniser = recogniser
        # The text reader only with the cache: the one-shot scan never reads the cuts.
        self.memory = ScanMemory(text=TextMemory() if read_text else None) if cache else None
        self.ahead = ahead
        self.owns_recogniser = owns_recogniser
        self._worker: ThreadPoolExecutor | None = None
        away = threads.network_process if away is None else away
        self._process = recogniser.embedder.network_process() if ahead and away else None

    def close(self) -> None:
        """End the embedding thread, if one was started (a later scan starts another), and
        the network's process if the recogniser is this scanner's own."""
        if self._worker is not None:
            self._worker.shutdown()
            self._worker = None
        if self.memory is not None:
            self.memory.close()
        if self.owns_recogniser:
            self.recogniser.embedder.close()
            self._process = None

    def wait_ready(self, timeout_s: float = 60.0) -> bool:
        """Whether the network's process is ready, waiting up to ``timeout_s`` for it to
        load (benchmarks time the scan as it runs once started; False: no such process)."""
        return self._process is not None and self._process.ready(timeout_s)

    def network_cpu_s(self) -> float:
        """CPU seconds the network's process has spent so far (0 without one)."""
        return 0.0 if self._process is None else self._process.cpu_s()

    def __enter__(self) -> Scanner:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

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
        # Every product with the prototypes on one BLAS thread, the limit set once a scan.
        with one_blas_thread():
            return self._scan(frame)

    def _scan(self, frame: Image) -> ScanResult:
        memory = self.memory
        if memory is None:
            return self._whole(frame)[0]
        thumb = thumbnail(frame)
        changed = memory.changes(thumb, self.recogniser)
        if changed is not None:
            if not changed.any():
                return memory.reuse()
            for margin in memory.margins_mm:
                part = memory.region(changed, self.calibration, margin)
                if part is None:
                    break
                result = self._part(frame, memory, *part)
                if result is not None:
                    memory.partly_scanned(thumb, changed, result)
                    return result
        result, cloth, body = self._whole(frame)
        memory.scanned(thumb, result, cloth, body)
        return result

    def _whole(self, frame: Image) -> tuple[ScanResult, Cloth, NDArray[np.float32] | None]:
        # Flattened only near what lies on the cloth (vision/finder/on_cloth.py); the second
        # thread is idle until the first tiles are found: it does half of that.
        flat = flatten_on_cloth(frame, self.calibration, self._helper())
        ahead = None
        if self.memory is None and self.ahead and not self.recogniser.shift_px:
            ahead = EmbedAhead(
                self._embedding_thread(),
                frame,
                self.calibration,
                self.recogniser,
                process=self._process,
            )
        try:
            return self._found(frame, flat, ahead)
        finally:
            if ahead is not None:
                ahead.close()  # the network's process given back, even on an error

    def _found(
        self, frame: Image, flat: Flattened, ahead: EmbedAhead | None
    ) -> tuple[ScanResult, Cloth, NDArray[np.float32] | None]:
        top, cloth = flat.top, flat.cloth
        on_tiles = None if ahead is None else ahead.add
        found = find(
            frame, self.calibration, top, cloth, on_tiles, flat.mask, flat.grey, flat.outlines
        )
        tiles = [f for f in found if f.kind == "tile"]
        result = ScanResult()
        # The dice and obstructions first: the other side finishes its runs meanwhile.
        self._add_others(result, frame, found)
        if self.memory is not None:
            identities = self.memory.identify(
                frame, self.calibration, tiles, self.recogniser, helper=self._helper()
            )
        elif ahead is not None:
            identities = ahead.identities(tiles)
        else:
            identities = self.recogniser.identify(tile_crops(frame, self.calibration, tiles))
        self._add_tiles(result, found, identities)
        # What a later look at a part of the table goes by (only the live cache looks again).
        body = None if self.memory is None else set_body(top, found, self.calibration.geometry)
        return result, cloth, body

    def _helper(self) -> ThreadPoolExecutor | None:
        """The second thread, when the scanner may use one."""
        return self._embedding_thread() if self.ahead else None

    def _embedding_thread(self) -> ThreadPoolExecutor:
        if self._worker is None:
            self._worker = ThreadPoolExecutor(1, thread_name_prefix="scan-embed")
        return self._worker

    def _part(self, frame: Image, memory: ScanMemory, box: Box, core: Box) -> ScanResult | None:
        """Only the part of the table where the frame changed looked at again; the rest of
        the last result stands. None when a blob there reaches beyond the part."""
        last = memory.last
        if memory.cloth is None or last is None:
            return None
        changed = find_changed(frame, self.calibration, box, core, memory.cloth, memory.body)
        if changed is None:
            return None

        def kept(x: float, y: float) -> bool:
            # Outside the change and outside every blob looked at again: as it was.
            inside = core[0] <= x * PX_PER_MM < core[2] and core[1] <= y * PX_PER_MM < core[3]
            return not inside and not changed.covers(x, y)

        tiles = [f for f in changed.found if f.kind == "tile"]
        identities = memory.identify(
            frame, self.calibration, tiles, self.recogniser, kept, self._helper()
        )

        def still_there(o: ObstructionSeen) -> bool:
            # Nothing changed anywhere under it: a hand's blob takes in the tiles it touches,
            # so its centre can lie outside the change its leaving makes (a hand gone was
            # kept for up to ``full_every`` frames, holding that part of the table still).
            x0, y0, x1, y1 = (v * PX_PER_MM for v in o.bounds())
            meets = x0 < core[2] and core[0] < x1 and y0 < core[3] and core[1] < y1
            return not meets and kept(o.x, o.y)

        result = ScanResult(
            [t for t in last.tiles if kept(t.x, t.y)],
            [d for d in last.dice if kept(d.x, d.y)],
            [o for o in last.obstructions if still_there(o)],
        )
        self._add_tiles(result, changed.found, identities)
        self._add_others(result, frame, changed.found)
        return result

    def _add_tiles(
        self, result: ScanResult, found: list[Found], identities: list[Identity]
    ) -> None:
        """The tiles found, with their identities, in order."""
        geometry = self.calibration.geometry
        tiles = [f for f in found if f.kind == "tile"]
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

    def _add_others(self, result: ScanResult, frame: Image, found: list[Found]) -> None:
        """The dice (their pips counted) and obstructions found, in order."""
        geometry = self.calibration.geometry
        for spot in found:
            if spot.kind == "die":
                pips, conf = count_pips(
                    die_crop(frame, self.calibration, spot.x, spot.y, spot.angle)
                )
                zone = geometry.zone_at(spot.x, spot.y)
                result.dice.append(DieSeen(pips, conf, spot.x, spot.y, zone.name if zone else None))
            elif spot.kind == "obstruction":
                result.obstructions.append(ObstructionSeen.of(spot))


__all__ = [
    "CalibrationError",
    "DieSeen",
    "FrameError",
    "ObstructionSeen",
    "ScanResult",
    "Scanner",
    "TileSeen",
]


def load_scanner(
    calibration: Calibration,
    model_dir: Path,
    cache: bool = False,
    threads: ScanThreads = SCAN_THREADS,
) -> Scanner:
    """A scanner with the recogniser in ``model_dir``, the threads set before the network's
    sessions are loaded (they take their threads from OpenCV's setting then)."""
    threads.apply()
    recogniser = Recogniser.load(model_dir)
    return Scanner(calibration, recogniser, cache=cache, threads=threads, owns_recogniser=True)
