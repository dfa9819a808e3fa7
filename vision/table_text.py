"""What the scan cache remembers of the text recogniser's readings at a live table.

A tile the bonus gate leaves to the text recogniser (an abstention a reading could change,
vision/bonus_ocr.py ``may_change``) is asked to be read once, off the scan's path
(vision/text_reader.py), its crop and place noted. While it lies unchanged (found again
within the cache's shift and turn of that place, its crop within the cache's threshold of
the crop asked about), it is not asked again: once read, its reading answers as the gate's
rule says (``with_ocr``: a bonus name read plainly names it; "read, nothing" leaves the
abstention, and leaves it unread from then on). A tile that moves or changes, or is no longer
seen, is forgotten and its request dropped if not yet read; so is everything when the
recogniser changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from vision.bonus_ocr import OcrBars, may_change, with_ocr
from vision.finder import Found
from vision.identify import Identity, Recogniser
from vision.image import Image
from vision.text_reader import TextReader, Ticket

if TYPE_CHECKING:
    from vision.scan import ScanResult


@dataclass
class _Asked:
    spot: Found  # where the tile lay when its crop was asked about
    signature: NDArray[np.float32]  # that crop's (vision/scan_cache.py ``signatures``)
    identity: Identity  # the gate's answer then
    bars: OcrBars
    ticket: Ticket
    shown: bool = False  # its reading put on the last result already


def match_places(
    now: Sequence[Found], then: Sequence[Found], shift_mm: float, turn_deg: float
) -> list[int]:
    """For each tile of ``now``, the index of the tile of ``then`` at its place (within
    ``shift_mm``, its long side within ``turn_deg``), or -1; no two claim one."""
    if not now or not then:
        return [-1] * len(now)
    before = np.array([[t.x, t.y, t.angle] for t in then])
    after = np.array([[t.x, t.y, t.angle] for t in now])
    dist = np.hypot(after[:, None, 0] - before[None, :, 0], after[:, None, 1] - before[None, :, 1])
    turn = np.abs(after[:, None, 2] - before[None, :, 2]) % 180.0
    turn = np.minimum(turn, 180.0 - turn)
    dist[(dist > shift_mm) | (turn > turn_deg)] = np.inf
    out, taken = [], set()
    for i, k in enumerate(dist.argmin(axis=1).tolist()):
        # Two tiles cannot both lie within a few mm of one place: a second claim is new.
        if np.isfinite(dist[i, k]) and k not in taken:
            taken.add(k)
            out.append(k)
        else:
            out.append(-1)
    return out


def at_the_cut(bars: OcrBars) -> OcrBars:
    """The bars for the scanner's cuts. The rules that name a suit or honour tile by its text
    (``nameless_below``: no bonus name read; ``printed_sure`` and ``anew_sure``: an honour's
    or character's print read) were chosen on single-tile photos wider than the cut; at the
    table camera's 24-43 pixels the text recogniser reads little of most prints, and none of
    them was measured there, so they stay off: only bonus names are read at the table, and
    never in a cut's corners (``corners_below``: a corner of a cut is a few pixels), nor
    faintly with their number (``numbered_sure``, chosen on photos alone)."""
    return replace(
        bars,
        nameless_below=0.0,
        printed_sure=0.0,
        anew_sure=0.0,
        corners_below=0.0,
        numbered_sure=0.0,
    )


@dataclass
class TextMemory:
    """The tiles asked about and their tickets; ``reader`` reads them."""

    reader: TextReader = field(default_factory=TextReader)
    _asked: list[_Asked] = field(default_factory=list)

    @property
    def asked(self) -> int:
        """Tiles asked about and still remembered."""
        return len(self._asked)

    def places(self, tiles: Sequence[Found], shift_mm: float, turn_deg: float) -> list[int]:
        """For each tile, the index of the tile asked about at its place, or -1."""
        return match_places(tiles, [a.spot for a in self._asked], shift_mm, turn_deg)

    def spot(self, k: int) -> Found:
        return self._asked[k].spot

    def signature(self, k: int) -> NDArray[np.float32]:
        return self._asked[k].signature

    def revise(
        self,
        named: list[tuple[Found, Image, NDArray[np.float32], Identity, int]],
        seen: set[int],
        recogniser: Recogniser,
        keep: Callable[[float, float], bool] | None = None,
    ) -> list[Identity]:
        """The identities of the tiles just named (``named``: each tile, its crop, that
        crop's signature, the recogniser's answer and the index of the tile asked about at
        its place with its crop unchanged, or -1), with what was read of them; a tile the gate
        leaves to the text and not yet asked about is asked about now. ``seen``: every index
        found again at its place this look. What is remembered afterwards is the tiles asked
        about among these and (``keep``, for a look at part of the table) those not seen at
        the places ``keep(x, y)`` accepts; the others' requests are dropped."""
        ocr, bars = recogniser.bonus_ocr, at_the_cut(recogniser.ocr_bars)
        out: list[Identity] = []
        still: list[_Asked] = []
        for spot, crop, sig, identity, k in named:
            if k >= 0:  # asked about already: remembered while it lies unchanged
                asked = self._asked[k]
                still.append(asked)
                reading = asked.ticket.reading if asked.ticket.done else None
                out.append(identity if reading is None else with_ocr(identity, reading, bars))
                continue
            if ocr is None or not may_change(identity, bars):
                out.append(identity)
                continue
            ticket = self.reader.ask(ocr, crop)
            if ticket is not None:  # a full queue: asked again at a later look
                still.append(_Asked(spot, sig, identity, bars, ticket))
            out.append(identity)
        kept = {id(a) for a in still}
        for j, asked in enumerate(self._asked):
            if id(asked) in kept:
                continue
            if keep is not None and j not in seen and keep(asked.spot.x, asked.spot.y):
                still.append(asked)
            else:
                asked.ticket.drop()
        self._asked = still
        return out

    def show(self, result: ScanResult, shift_mm: float) -> ScanResult:
        """``result`` with the readings finished since it was made: a tile left abstained
        there, read since, named as the reading names it."""
        ready = [a for a in self._asked if a.ticket.done and not a.shown]
        if not ready or not result.tiles:
            return result
        tiles = list(result.tiles)
        xy = np.array([[t.x, t.y] for t in tiles])
        for asked in ready:
            asked.shown = True
            reading = asked.ticket.reading
            answer = (
                asked.identity if reading is None else with_ocr(asked.identity, reading, asked.bars)
            )
            if answer.label is None:
                continue
            near = np.hypot(*(xy - [asked.spot.x, asked.spot.y]).T)
            n = int(near.argmin())
            unnamed = tiles[n].tile is None and not (tiles[n].face_down or tiles[n].blank)
            if near[n] <= shift_mm and unnamed:
                tiles[n] = replace(
                    tiles[n], tile=answer.label, confidence=answer.confidence, best=answer.label
                )
        return replace(result, tiles=tiles)

    def forget(self) -> None:
        """Nothing asked about remembered; unread requests dropped."""
        for asked in self._asked:
            asked.ticket.drop()
        self._asked = []

    def close(self) -> None:
        self.forget()
        self.reader.close()
