"""The camera's crop of a tile it reported, kept a while so the referee's console can show it
beside the table's question about that observation (docs/face.md, The camera's crop).

The camera loop hands each observation it makes with the scan and the frame it came from;
the tile the observation is about (the least sure of its tiles) is cut from that very frame,
around the tile, seen from above, and kept as PNG. The table's question names the
observation (its kind, seat, tiles and the frame's time), and that finds the crop. Only a
signed-in referee is served them: a crop may show what a viewer must not see.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

KEEP = 64  # crops kept, the latest: far more than the questions a table has open at once
SIDE_PX = 144  # the crop's side: a tile and a little of what lies round it
AROUND = 1.8  # the crop's side in tile lengths

CropKey = tuple[str, str, tuple[str, ...], int]


def crop_key(observation: Mapping[str, Any]) -> CropKey:
    """The key of an observation, as a table's question holds it (``Observation.to_json``)."""
    return (str(observation.get("kind", "")), str(observation.get("seat") or ""),
            tuple(str(t) for t in observation.get("tiles") or ()),
            int(observation.get("time_us") or 0))


def side_of(x: float, y: float, size: float) -> str:
    """The seat whose side of the table a point is on (East at the bottom edge, as vision's
    watcher reckons it)."""
    dx, dy = x - size / 2, y - size / 2
    if abs(dy) >= abs(dx):
        return "E" if dy > 0 else "W"
    return "S" if dx > 0 else "N"


def pick_tile(observation: Any, tiles: list[Any], size_mm: float) -> Any | None:
    """The tile of a scan an observation is about: among the face-up tiles of its zone and
    seat (those it names, where it names some), the least sure."""
    seen = [t for t in tiles if not t.face_down]
    if observation.zone:
        seen = [t for t in seen if t.zone == observation.zone] or seen
    if observation.seat:
        seen = [t for t in seen
                if (t.seat or side_of(t.x, t.y, size_mm)) == observation.seat] or seen
    named = set(observation.tiles)
    if named:
        seen = [t for t in seen if (t.tile or t.best) in named] or seen
    elif seen and any(t.tile is None for t in seen):  # a tile not read: one of the unread
        seen = [t for t in seen if t.tile is None]
    return min(seen, key=lambda t: t.confidence) if seen else None


def cut_around(frame: Any, calibration: Any, x: float, y: float) -> bytes:
    """A square of the table round (x, y) mm, seen from above, cut from the camera's frame
    (full resolution) through the calibration; PNG."""
    import cv2
    import numpy as np

    geometry = calibration.geometry
    half = AROUND * geometry.tile_h_mm / 2
    square = np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half],
                       [x - half, y + half]], np.float64)
    corners = calibration.to_frame(square).astype(np.float32)
    out = np.array([[0, 0], [SIDE_PX, 0], [SIDE_PX, SIDE_PX], [0, SIDE_PX]], np.float32)
    patch = cv2.warpPerspective(frame, cv2.getPerspectiveTransform(corners, out),
                                (SIDE_PX, SIDE_PX), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT)
    ok, png = cv2.imencode(".png", patch)
    if not ok:
        raise ValueError("the crop could not be encoded as PNG")
    return bytes(png.tobytes())


class TileCrops:
    """The latest crops, by the observation they show; written from the camera's thread,
    read from the page server's, so behind a lock. Every tile observation's crop is kept, not
    only the unsure ones': the table also asks about a tile read surely that does not fit the
    game (a misread), and that is when the referee most wants to see it."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep_at_most = keep
        self._crops: OrderedDict[CropKey, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, observation: Any, tiles: list[Any], frame: Any, calibration: Any) -> bool:
        """Cut and keep the crop of ``observation`` from ``frame``; whether one was kept."""
        if not observation.zone:
            return False
        if not observation.tiles and str(observation.kind) != "discard":
            return False  # dice, passes counted face down, votes: no tile to show
        tile = pick_tile(observation, tiles, calibration.geometry.size_mm)
        if tile is None:
            return False
        png = cut_around(frame, calibration, tile.x, tile.y)
        with self._lock:
            self._crops[crop_key(observation.to_json())] = png
            while len(self._crops) > self.keep_at_most:
                self._crops.popitem(last=False)
        return True

    def get(self, observation: Mapping[str, Any]) -> bytes | None:
        with self._lock:
            return self._crops.get(crop_key(observation))

    def __len__(self) -> int:
        with self._lock:
            return len(self._crops)
