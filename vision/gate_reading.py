"""Which crops the bonus gate has the bonus-tile reader read, and their reading shared
between the scan's thread and the idle second one (vision/identify.py asks, vision/bonus.py
reads, vision/bonus_gate.py decides)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor, Future

from vision.bonus import BonusReader, BonusReading
from vision.bonus_gate import GateBars, gated, settled
from vision.halves import collect
from vision.identity import Identity
from vision.image import Image

# The crops whose bonus reading was begun ahead on the second thread, and that run.
ReadAhead = tuple[list[int], "Future[list[BonusReading]]"]


def to_read(first: Identity, bars: GateBars) -> bool:
    """Whether the gate reads a crop: gated, and not decided by its first look alone."""
    return gated(first, bars) and settled(first, bars) is None


def read_gated(
    reader: BonusReader,
    crops: Sequence[Image],
    looked: list[int],
    helper: Executor | None,
    ahead: ReadAhead | None,
) -> dict[int, BonusReading]:
    """The bonus reader's readings of the crops ``looked`` at, in their order: each read
    half here and half on the idle second thread (:meth:`BonusReader.probabilities`), and
    those begun ``ahead`` collected."""
    early = [] if ahead is None else ahead[0]
    begun = set(early)
    rest = [n for n in looked if n not in begun]

    # The crops turned over read on the idle second thread meanwhile (a row of the reader's
    # run is its own): halves even of a lone crop, where halves of the crops left one here.
    read_here = reader.read([crops[n] for n in rest], helper) if rest else []
    readings = dict(zip(rest, read_here, strict=True))
    if ahead is not None:
        # Begun before the second look; taken back if not begun (then read as the rest,
        # half on the second thread should it be free by now), else waited for: it may
        # hold many crops, and read again here it would be read twice.
        done = collect(ahead[1], lambda: reader.read([crops[n] for n in early], helper), None)
        readings.update(zip(early, done, strict=True))
    return {n: readings[n] for n in looked}  # in the crops' order, as one read gives
