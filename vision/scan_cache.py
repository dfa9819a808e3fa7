"""What the scanner remembers between frames of a live table, so that it does not look again
at what has not changed.

At the table the camera sees nearly the same frame several times a second, and most tiles do
not move between two frames. Three levels, each comparing with what was there when it was
last *looked at* (never with the previous frame, so that small changes cannot add up unseen):

* **the frame**: a quarter-size copy of the frame, per pixel as it was when that part of the
  table was last looked at. Where no pixel differs by more than ``frame_threshold`` grey
  levels (sensor noise and JPEG stay well below; a tile laid, turned over or swapped, a die
  rolled, a hand over the table go far above), the last result stands and nothing runs.
* **the changed part**: where some pixels differ (with a fringe), only that part of the table
  is looked at again, with ``margins_mm`` of the table around it: blobs that meet the change
  are found and cut as in a whole scan, the rest of the last result stands. A blob that meets
  the change and runs out of that part (a long row of touching tiles) makes the next margin
  be tried, then the whole table; so does a change over more than ``max_share`` of the table
  (a change of light), and a whole scan is made every ``full_every`` frames regardless.
* **each tile** looked at again: a tile found within ``shift_mm`` and ``turn_deg`` of a tile
  named earlier is cut out again *at the earlier place* and compared with the crop that was
  named then, block by block (2x2 camera pixels) after each is brought to zero mean and unit
  contrast (a change of light or exposure is not a change of tile). Within
  ``crop_threshold`` it keeps its identity without the network; otherwise it is cut at its
  new place and named afresh. The pixels at that place look as they did, so what lies there
  is what was named: a discard landing on the spot, a tile turned over, turned end for end or
  swapped for a look-alike all change the crop far beyond the threshold.

  A tile is recalled only once the network has named it alike ``confirm`` times in a row
  (each time it was looked at, with its crop unchanged); until then it is named again, as an
  uncached scan names it. The network can misread a tile in one frame (a 5 of characters
  taken for a 3 under one frame's light) and read it right in the next: recalled after one
  naming, that misread would stand for as long as the tile lies there, where an uncached scan
  shows it for one frame and the watcher, which wants ``stable_frames`` scans alike, never
  reports it.

A tile the recogniser abstained on is not remembered as a tile (when it is looked at again, it
is named again: another chance), nor is one not seen in the last scan (picked up, or under a
hand); everything is forgotten when the recogniser changes (a new enrolment). A tile the bonus
gate leaves to the text recogniser is read once in the background while it lies unchanged
(:attr:`ScanMemory.text`, vision/table_text.py).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.crops import CROP_H, CROP_W
from vision.finder import PX_PER_MM, Box, Cloth, Found, tile_crops
from vision.identify import Identity, Recogniser
from vision.image import Image
from vision.table_text import TextMemory, match_places

if TYPE_CHECKING:
    from vision.scan import ScanResult

_BLOCK = 4  # crop pixels per side of a compared block (two camera pixels)
_THUMB = 4  # the frame is compared at a quarter of its size
_FRINGE = np.ones((5, 5), np.uint8)  # 2 thumbnail pixels each way around a change

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


def _pixels(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> Box:
    """A box of top-down pixels around table mm ``lo``..``hi``."""
    x0, y0 = (int(np.floor(v * PX_PER_MM)) for v in lo)
    x1, y1 = (int(np.ceil(v * PX_PER_MM)) for v in hi)
    return x0, y0, x1, y1


def thumbnail(frame: Image) -> Image:
    """The frame at a quarter of its size, each pixel the mean of a 4 x 4 block: halved
    twice by linear resizing (at exactly half, a 2 x 2 mean; within a grey level of area
    resizing, at a quarter of its time)."""
    h, w = frame.shape[:2]
    half = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
    return np.asarray(
        cv2.resize(half, (w // _THUMB, h // _THUMB), interpolation=cv2.INTER_LINEAR), np.uint8
    )


@dataclass(frozen=True)
class _Known:
    spot: Found  # where the tile was when it was named
    signature: Signature  # its crop then
    identity: Identity  # as last named
    agreed: int = 1  # namings in a row, crop unchanged, that gave this label


@dataclass
class CacheStats:
    frames_reused: int = 0  # frames with no change, answered from the last scan
    frames_partly_scanned: int = 0  # frames where only the changed part was looked at
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
    # A tile is recalled after this many namings alike, as the watcher (stable_frames=3)
    # wants that many scans alike before it reports a tile: a misread is kept no more
    # readily than an uncached scan would let it through.
    confirm: int = 3
    # A changed part is looked at with this much of the table around it (a tile's length
    # and more, then a row of discards' length: a blob that meets the change must lie whole
    # inside, or the next margin is tried, then the whole table); beyond this share of the
    # table, the whole is scanned anyway.
    margins_mm: tuple[float, ...] = (40.0, 160.0)
    max_share: float = 0.3
    full_every: int = 50  # a whole scan at least every so many frames, whatever the cache says
    # The text recogniser's readings of tiles the gate leaves to it, read off the scan's path
    # (None: not read; vision/table_text.py).
    text: TextMemory | None = None
    stats: CacheStats = field(default_factory=CacheStats)
    cloth: Cloth | None = None  # the cloth as the last whole scan saw it
    body: NDArray[np.float32] | None = None  # and the set's body colour (finder.set_body)
    _known: list[_Known] = field(default_factory=list)
    _recogniser: Recogniser | None = None
    _thumb: Image | None = None  # per block: the frame when that block was last looked at
    _result: ScanResult | None = None
    _since_full: int = 0

    def forget(self) -> None:
        self._known = []
        self._thumb = None
        self._result = None
        self.cloth = None
        self.body = None
        if self.text is not None:
            self.text.forget()

    def close(self) -> None:
        """End the text recogniser's reader, if any (a later read starts it again)."""
        if self.text is not None:
            self.text.close()

    def _check_recogniser(self, recogniser: Recogniser) -> None:
        if recogniser is not self._recogniser:
            self.forget()
            self._recogniser = recogniser

    # -- the frame ------------------------------------------------------------------------------

    def changes(self, thumb: Image, recogniser: Recogniser) -> NDArray[np.bool_] | None:
        """Where ``thumb`` (:func:`thumbnail` of the new frame) differs from what was last
        looked at, per thumbnail pixel; None when the whole frame must be scanned (nothing
        remembered, a new recogniser, a whole scan due)."""
        self._check_recogniser(recogniser)
        self._since_full += 1
        if self.text is not None and self._result is not None:
            self._result = self.text.show(self._result, self.shift_mm)
        if self._thumb is None or self._thumb.shape != thumb.shape or self._result is None:
            return None
        if self._since_full >= self.full_every:
            return None
        diff = cv2.absdiff(thumb, self._thumb)
        rows = diff.shape[0]
        if float(cv2.minMaxLoc(diff.reshape(rows, -1))[1]) <= self.frame_threshold:
            return np.zeros(diff.shape[:2], bool)  # the common case, in one pass
        changed = np.asarray(diff.max(axis=2) > self.frame_threshold, np.uint8)
        # With its fringe (a shadow's soft edge changes less than the threshold): all of it
        # is looked at again, and all of it becomes the reference.
        return np.asarray(cv2.dilate(changed, _FRINGE) > 0)

    @property
    def last(self) -> ScanResult | None:
        return self._result

    def reuse(self) -> ScanResult:
        """The last result again (a frame with no change)."""
        assert self._result is not None
        self.stats.frames_reused += 1
        last = self._result
        return replace(
            last, tiles=list(last.tiles), dice=list(last.dice), obstructions=list(last.obstructions)
        )

    def region(
        self, changed: NDArray[np.bool_], calibration: Calibration, margin_mm: float
    ) -> tuple[Box, Box] | None:
        """The part of the table to look at again (``margin_mm`` around the change), and
        within it where the frame changed (top-down pixels); None when that is too much of
        the table."""
        # The changed blocks' bounding rectangle: the table sees it as a convex quadrilateral
        # (a homography keeps lines straight), so its corners bound the change there too, at
        # the cost of four points rather than four per changed block (a change of light
        # changes them all).
        rows = np.flatnonzero(changed.any(axis=1))
        cols = np.flatnonzero(changed.any(axis=0))
        x0, x1, y0, y1 = cols[0], cols[-1] + 1, rows[0], rows[-1] + 1
        corners = np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]], np.float64)
        mm = calibration.to_table(corners * _THUMB)
        size = calibration.geometry.size_mm
        lo = np.clip(mm.min(axis=0) - 2.0, 0, size)
        hi = np.clip(mm.max(axis=0) + 2.0, 0, size)
        core = _pixels(lo, hi)
        box = _pixels(np.clip(lo - margin_mm, 0, size), np.clip(hi + margin_mm, 0, size))
        share = (box[2] - box[0]) * (box[3] - box[1]) / (size * PX_PER_MM) ** 2
        if share > self.max_share or box[2] <= box[0] or box[3] <= box[1]:
            return None
        return box, core

    def scanned(
        self,
        thumb: Image,
        result: ScanResult,
        cloth: Cloth,
        body: NDArray[np.float32] | None,
    ) -> None:
        """Remember a whole scan, the frame it ran on, and the cloth and body colour it saw
        (``body`` None when too few tiles showed it)."""
        self._thumb = thumb
        self._result = result
        self.cloth = cloth
        self.body = body
        self._since_full = 0

    def partly_scanned(self, thumb: Image, changed: NDArray[np.bool_], result: ScanResult) -> None:
        """Remember a scan of the changed part: those blocks of the frame (the part looked
        at again) are now the reference; the others keep theirs (so that small changes
        cannot add up unseen)."""
        assert self._thumb is not None
        self._thumb = self._thumb.copy()
        self._thumb[changed] = thumb[changed]
        self._result = result
        self.stats.frames_partly_scanned += 1

    # -- each tile ------------------------------------------------------------------------------

    def _earlier(self, tiles: list[Found]) -> list[int]:
        """For each tile, the index of the known tile at its place (same turn), or -1."""
        spots = [k.spot for k in self._known]
        return match_places(tiles, spots, self.shift_mm, self.turn_deg)

    @staticmethod
    def _named(spot: Found, signature: Signature, identity: Identity, old: _Known | None) -> _Known:
        """What is known of a tile just named; ``old``: what was known of it, its crop
        unchanged since. Named alike, one more agreement, compared with the crop it was first
        named from (so that small changes cannot add up unseen); named otherwise, a new start."""
        if old is not None and old.identity.label == identity.label:
            return replace(old, identity=identity, agreed=old.agreed + 1)
        return _Known(spot, signature, identity)

    def identify(
        self,
        frame: Image,
        calibration: Calibration,
        tiles: list[Found],
        recogniser: Recogniser,
        keep: Callable[[float, float], bool] | None = None,
        helper: Executor | None = None,
    ) -> list[Identity]:
        """The identity of every tile: remembered where its crop has not changed since the
        network named it alike ``confirm`` times in a row, from the network otherwise (half
        of its work on ``helper``, if given), with what the text recogniser read of it where
        the gate leaves it to the text (:attr:`text`). What is known afterwards is these
        tiles, and (``keep``, for a scan of part of the table) the known tiles at the places
        ``keep(x, y)`` accepts."""
        self._check_recogniser(recogniser)
        earlier = self._earlier(tiles)
        text = self.text
        asked = [-1] * len(tiles) if text is None else self._asked(frame, calibration, tiles)
        # Cut each tile at the place it was named (its own place when new: a tile asked about
        # is named as an uncached scan names it, its crop compared with the one asked about).
        places = [self._known[e].spot if e >= 0 else t for t, e in zip(tiles, earlier, strict=True)]
        crops = tile_crops(frame, calibration, places)
        sigs = signatures(crops)
        identities: list[Identity | None] = [None] * len(tiles)
        known: list[_Known | None] = [None] * len(tiles)
        unchanged: dict[int, _Known] = {}  # tiles to be named again, their crop as it was
        recut: list[int] = []
        for i, e in enumerate(earlier):
            if e < 0:
                continue
            old = self._known[e]
            if self._moved(sigs[i], old.signature):
                recut.append(i)  # something else lies there: cut at where it is now
            elif old.agreed >= self.confirm:
                identities[i] = old.identity
                known[i] = old
            else:
                unchanged[i] = old  # not confirmed yet: named again where it is now
                recut.append(i)
        if recut:
            fresh = tile_crops(frame, calibration, [tiles[i] for i in recut])
            for i, crop, sig in zip(recut, fresh, signatures(fresh), strict=True):
                crops[i] = crop
                sigs[i] = sig
        todo = [i for i in range(len(tiles)) if identities[i] is None]
        named = recogniser.identify([crops[i] for i in todo], helper) if todo else []
        if text is not None:
            seen = {a for a in asked if a >= 0}
            each = [
                (tiles[i], crops[i], sigs[i], n, asked[i]) for i, n in zip(todo, named, strict=True)
            ]
            named = text.revise(each, seen, recogniser, keep)
        for i, identity in zip(todo, named, strict=True):
            identities[i] = identity
            if identity.label is not None:  # an abstention is not kept: look again next time
                known[i] = self._named(tiles[i], sigs[i], identity, unchanged.get(i))
        self.stats.tiles_recalled += len(tiles) - len(todo)
        self.stats.tiles_named += len(todo)
        used = {e for e in earlier if e >= 0}
        kept = [
            k
            for j, k in enumerate(self._known)
            if keep is not None and j not in used and keep(k.spot.x, k.spot.y)
        ]
        self._known = kept + [k for k in known if k is not None]
        return [i for i in identities if i is not None]

    def _asked(self, frame: Image, calibration: Calibration, tiles: list[Found]) -> list[int]:
        """For each tile, the index of the tile the text recogniser was asked about at its
        place, if its crop there is as it was then (cut at that place: the finder's measure of
        a still tile varies more than a crop may), or -1."""
        assert self.text is not None
        text = self.text
        asked = text.places(tiles, self.shift_mm, self.turn_deg)
        looked = [i for i, a in enumerate(asked) if a >= 0]
        if not looked:
            return asked
        then = tile_crops(frame, calibration, [text.spot(asked[i]) for i in looked])
        for i, sig in zip(looked, signatures(then), strict=True):
            if self._moved(sig, text.signature(asked[i])):
                asked[i] = -1  # not what was asked about: asked anew
        return asked

    def _moved(self, now: Signature, then: Signature) -> bool:
        """Whether a crop differs from the one remembered beyond ``crop_threshold``."""
        return float(np.abs(now - then).max()) > self.crop_threshold
