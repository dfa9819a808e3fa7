"""Work over many items done in two halves, one on the scan's second thread.

Once the finder is done and the network's runs are back, the scan's second thread is idle
while the scan's own thread names the tiles. The bonus-tile reader's runs let go of the
interpreter for the whole of their work, and a row of its run does not depend on which
others share the run (tested row by row): so the crops it reads turned over go to that
thread while this one reads them as they lie (vision/bonus.py). (The product with the
prototypes is shared by kinds instead: vision/prototypes.py.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import TypeVar

Part = TypeVar("Part")


def in_two(
    work: Callable[[slice], Part], count: int, helper: Executor | None, least: int
) -> list[Part]:
    """``work`` over items ``[0, count)``, as one part or two in order: the second half on
    ``helper`` while this thread does the first, when each half has at least ``least``
    items; else all here. A half the helper has not begun when this thread is done with
    its own (another scan's work ahead of it, or no core for it) is done here too."""
    if helper is None or count < 2 * least:
        return [work(slice(0, count))]
    half = count // 2
    far = helper.submit(work, slice(half, count))
    start = time.perf_counter()
    near = work(slice(0, half))
    return [near, collect(far, lambda: work(slice(half, count)), time.perf_counter() - start)]


def collect(far: Future[Part], here: Callable[[], Part], patience_s: float | None) -> Part:
    """The other thread's part: done here when it has not begun (taken back), or when it
    has but is not back within ``patience_s`` (about as long as this thread took for its own
    part: the other thread lost its core to other work); both give the same, so whichever
    comes first is taken. Waited for without end, a part begun on a thread that then lost its
    core held the scan's thread for a whole time slice of the machine's other work.
    ``patience_s`` None: a part begun is always waited for (one that would cost more to do
    again than to wait for)."""
    if far.cancel():
        return here()
    try:
        return far.result(timeout=patience_s)
    except TimeoutError:
        return here()
