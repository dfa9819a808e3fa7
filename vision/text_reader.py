"""The text recogniser read off the scan's path: one background thread at low priority, one
crop at a time, from a bounded queue.

At a live table a crop the bonus gate leaves to the text recogniser (vision/bonus_ocr.py)
costs some 40 ms of CPU to read, and the scanner's cut of an unsure tile is the same frame
after frame. The scan cache (vision/scan_cache.py) asks for such a crop to be read once and
goes on without waiting; the reading is taken up at a later frame while the tile lies
unchanged. A request the cache no longer wants (the tile moved, the recogniser changed) is
dropped before it is read, and a full queue refuses a request rather than making the scan
wait (the cache asks again at a later look).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from dataclasses import dataclass, field

from vision.bonus_ocr import BonusOcr, OcrReading
from vision.embedder import ModelError
from vision.image import Image

log = logging.getLogger(__name__)

# Niceness added to the thread's: the reader takes only the CPU the scan leaves.
READER_NICENESS = 10
# Tiles waiting at once: an enrolled table leaves 0-5 a frame to the text, a set never
# enrolled 8-20 at its first look (the rest are asked about at a later look).
DEFAULT_CAPACITY = 16


@dataclass(eq=False)
class Ticket:
    """One crop asked to be read, and, once read, its reading (or why it could not be)."""

    ocr: BonusOcr
    crop: Image
    reading: OcrReading | None = None
    error: str | None = None
    dropped: bool = False
    _done: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def done(self) -> bool:
        """Read (or failed to be): ``reading`` or ``error`` is set."""
        return self._done.is_set()

    def drop(self) -> None:
        """No longer wanted: not read if not read yet."""
        self.dropped = True

    def wait(self, timeout_s: float | None = None) -> bool:
        return self._done.wait(timeout_s)


class TextReader:
    """A daemon thread reading :class:`Ticket` crops one at a time, at ``niceness`` (Linux
    schedules each thread by its own; elsewhere it runs at the process's priority)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, niceness: int = READER_NICENESS) -> None:
        if capacity < 1:
            raise ValueError(f"TextReader capacity {capacity}: must be at least 1")
        self._queue: queue.Queue[Ticket | None] = queue.Queue(capacity)
        self._niceness = niceness
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.read_count = 0  # crops read so far (dropped ones not counted)
        self.error: str | None = None  # why the recogniser could not read, if it could not

    def ask(self, ocr: BonusOcr, crop: Image) -> Ticket | None:
        """A ticket for ``crop`` to be read by ``ocr``; None when the queue is full."""
        ticket = Ticket(ocr, crop.copy())
        self._start()
        try:
            self._queue.put_nowait(ticket)
        except queue.Full:
            return None
        return ticket

    def close(self) -> None:
        """End the thread once what it is reading is read (queued tickets are not read)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        while True:  # make room for the stop without waiting on a full queue
            try:
                waiting = self._queue.get_nowait()
            except queue.Empty:
                break
            if waiting is not None:
                waiting.drop()
        self._queue.put(None)
        thread.join()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="text-reader", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            me = threading.get_native_id()
            os.setpriority(
                os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + self._niceness)
            )
        except (AttributeError, OSError):  # not Linux, or not allowed: the process's priority
            pass
        while True:
            ticket = self._queue.get()
            if ticket is None:
                return
            if ticket.dropped:
                continue
            try:
                ticket.reading = ticket.ocr.read([ticket.crop])[0]
                self.read_count += 1
            except ModelError as exc:  # the crop stays as the gate answered it
                if self.error is None:
                    log.warning("the text recogniser cannot read: %s", exc)
                self.error = ticket.error = str(exc)
            ticket._done.set()
