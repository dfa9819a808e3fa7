"""What the scanner remembers between frames of a live table, so that it does not name again
what has not changed.

At the table the camera sees nearly the same frame several times a second, and most tiles do
not move between two frames. Two levels, both compared with what was there when it was last
*computed* (never with the previous frame, so that small changes cannot add up unseen):

* **the frame**: a quarter-size copy of the frame the last full scan ran on. When no pixel of
  the new frame's copy differs from it by more than ``frame_threshold`` grey levels (sensor
  noise and JPEG stay well below; a tile laid, turned over or swapped, a die rolled or a hand
  over the table go far above), that scan's result stands and nothing runs.
* **each tile**: a tile found within ``shift_mm`` and ``turn_deg`` of a tile named earlier is
  cut out again *at the earlier place* and compared with the crop that was named then, block
  by block (2x2 camera pixels) after each is brought to zero mean and unit contrast (a change
  of light or exposure is not a change of tile). Within ``crop_threshold`` it keeps its
  identity without the network; otherwise it is cut at its new place and named afresh. The
  pixels at that place look as they did, so what lies there is what was named: a discard
  landing on the spot, a tile turned over, turned end for end or swapped for a look-alike
  all change the crop far beyond the threshold.

Nothing is kept for a tile not seen in the last scan (it may have been picked up, or a hand
hid it), nor for one the recogniser abstained on (the next frame is another chance to name
it), and everything is forgotten when the recogniser changes (a new enrolment).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.artwork import Image
from vision.calibration import Calibration
from vision.crops import CROP_H, CROP_W
from vision.finder import Found, tile_crops
from vision.identify import Identity, Recogniser

if TYPE_CHECKING:
    from vision.scan import ScanResult

_BLOCK = 4  # crop pixels per side of a compared block (two camera pixels)
_THUMB = 4  # the frame is compared at a quarter of its size

Signature = NDArray[np.float32]


def signatures(crops: list[Image]) -> Signature:
    """Per crop: block means, less the crop's mean, over its contrast (at least 10 grey
    levels, so that a plain tile's noise is not blown up)."""
    if not crops:
        return np.zeros((0, CROP_H // _BLOCK, CROP_W // _BLOCK, 3), np.float32)
    n = len(crops)
    # The crops one above the other, averaged over blocks in one resizing (at an exact
    # ratio, area resizing is the block mean).
    mosaic = np.concatenate(crops, axis=0)
    size = (CROP_W // _BLOCK, n * CROP_H // _BLOCK)
    small = cv2.resize(mosaic, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    blocks = small.reshape(n, CROP_H // _BLOCK, CROP_W // _BLOCK, 3)
    flat = blocks.reshape(n, -1)
    mean = flat.mean(axis=1)[:, None, None, None]
    contrast = np.maximum(flat.std(axis=1), 10.0)[:, None, None, None]
    return np.asarray((blocks - mean) / contrast, np.float32)


def thumbnail(frame: Image) -> Image:
    h, w = frame.shape[:2]
    return np.asarray(
        cv2.resize(frame, (w // _THUMB, h // _THUMB), interpolation=cv2.INTER_AREA), np.uint8
    )


@dataclass(frozen=True)
class _Known:
    spot: Found  # where the tile was when it was named
    signature: Signature  # its crop then
    identity: Identity


@dataclass
class CacheStats:
    frames_reused: int = 0  # whole scans answered from the last one
    tiles_recalled: int = 0  # tiles that kept their identity without the network
    tiles_named: int = 0  # tiles that went through the network


@dataclass
class ScanMemory:
    # Measured on rendered tables (sensor noise up to 5 grey levels, JPEG down to quality 70,
    # exposure 10 % off): an unchanged frame differs by at most 6 grey levels, a tile swapped
    # for a look-alike by 27 or more; an unchanged crop by at most 0.6, a changed one (a
    # look-alike, turned over, turned end for end) by 1.08 or more.
    frame_threshold: float = 15.0  # grey levels, on the quarter-size frame
    crop_threshold: float = 0.8  # contrast units, per block of the crop
    # The finder's measure of a tile that did not move varies by up to about 1.5 mm and 3.5
    # degrees between frames; a tile found that near is compared where it was (a tile that
    # really moved that far fails the comparison).
    shift_mm: float = 2.0
    turn_deg: float = 5.0
    stats: CacheStats = field(default_factory=CacheStats)
    _known: list[_Known] = field(default_factory=list)
    _recogniser: Recogniser | None = None
    _thumb: Image | None = None
    _result: ScanResult | None = None

    def forget(self) -> None:
        self._known = []
        self._thumb = None
        self._result = None

    def _check_recogniser(self, recogniser: Recogniser) -> None:
        if recogniser is not self._recogniser:
            self.forget()
            self._recogniser = recogniser

    # -- the whole frame ------------------------------------------------------------------------

    def unchanged(self, thumb: Image, recogniser: Recogniser) -> ScanResult | None:
        """The last full scan's result if ``thumb`` (:func:`thumbnail` of the new frame)
        matches that scan's frame within the threshold, else None."""
        self._check_recogniser(recogniser)
        if self._thumb is None or self._thumb.shape != thumb.shape:
            return None
        diff = cv2.absdiff(thumb, self._thumb).reshape(thumb.shape[0], -1)
        if float(cv2.minMaxLoc(diff)[1]) > self.frame_threshold:
            return None
        self.stats.frames_reused += 1
        return self._result

    def scanned(self, thumb: Image, result: ScanResult) -> None:
        """Remember a full scan and the frame it ran on."""
        self._thumb = thumb
        self._result = result

    # -- each tile ------------------------------------------------------------------------------

    def _earlier(self, tiles: list[Found]) -> list[int]:
        """For each tile, the index of the known tile at its place (same turn), or -1."""
        if not self._known or not tiles:
            return [-1] * len(tiles)
        known = np.array([[k.spot.x, k.spot.y, k.spot.angle] for k in self._known])
        now = np.array([[t.x, t.y, t.angle] for t in tiles])
        dist = np.hypot(now[:, None, 0] - known[None, :, 0], now[:, None, 1] - known[None, :, 1])
        turn = np.abs(now[:, None, 2] - known[None, :, 2]) % 180.0
        turn = np.minimum(turn, 180.0 - turn)
        dist[(dist > self.shift_mm) | (turn > self.turn_deg)] = np.inf
        nearest = dist.argmin(axis=1)
        out, taken = [], set()
        for i, k in enumerate(nearest.tolist()):
            # Two tiles cannot both lie within a few mm of one place: a second claim is new.
            if np.isfinite(dist[i, k]) and k not in taken:
                taken.add(k)
                out.append(k)
            else:
                out.append(-1)
        return out

    def identify(
        self,
        frame: Image,
        calibration: Calibration,
        tiles: list[Found],
        recogniser: Recogniser,
    ) -> list[Identity]:
        """The identity of every tile: remembered where its crop has not changed, from the
        network otherwise; what is known afterwards is exactly this frame's tiles."""
        self._check_recogniser(recogniser)
        earlier = self._earlier(tiles)
        # Cut each tile at the place it was named (its own place when new).
        places = [self._known[e].spot if e >= 0 else t for t, e in zip(tiles, earlier, strict=True)]
        crops = tile_crops(frame, calibration, places)
        sigs = signatures(crops)
        identities: list[Identity | None] = [None] * len(tiles)
        known: list[_Known | None] = [None] * len(tiles)
        recut: list[int] = []
        for i, e in enumerate(earlier):
            if e < 0:
                continue
            old = self._known[e]
            if float(np.abs(sigs[i] - old.signature).max()) <= self.crop_threshold:
                identities[i] = old.identity
                known[i] = old
            else:
                recut.append(i)  # something else lies there: cut at where it is now
        if recut:
            fresh = tile_crops(frame, calibration, [tiles[i] for i in recut])
            for i, crop, sig in zip(recut, fresh, signatures(fresh), strict=True):
                crops[i] = crop
                sigs[i] = sig
        todo = [i for i in range(len(tiles)) if identities[i] is None]
        named = recogniser.identify([crops[i] for i in todo]) if todo else []
        for i, identity in zip(todo, named, strict=True):
            identities[i] = identity
            if identity.label is not None:  # an abstention is not kept: look again next time
                known[i] = _Known(tiles[i], sigs[i], identity)
        self.stats.tiles_recalled += len(tiles) - len(todo)
        self.stats.tiles_named += len(todo)
        self._known = [k for k in known if k is not None]
        return [i for i in identities if i is not None]
