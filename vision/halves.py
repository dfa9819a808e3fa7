"""Work over many items done in two halves, one on the scan's second thread.

Once the finder is done and the network's runs are back, the scan's second thread is idle
while the scan's own thread names the tiles: the product with the prototypes and the
bonus-tile reader's runs both let go of the interpreter for the whole of their work, and
each item's answer does not depend on which others share its call (tested: the products'
rows to the bit, from two rows on; the reader's readings crop by crop). So half of the
items go to that thread while this one does the other half.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
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
    near = work(slice(0, half))
    if far.cancel():
        return [near, work(slice(half, count))]
    return [near, far.result()]
