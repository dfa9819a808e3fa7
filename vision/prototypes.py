"""Prototype vectors grouped by kind: per crop, the best similarity to each kind's prototypes,
the whole bank at once or its kinds in two parts (one on an idle second thread)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor, Future

import numpy as np
from numpy.typing import NDArray

from vision.blas import one_blas_thread
from vision.embedder import Vectors

# From this many crops on, the prototypes' product is worked out in two parts, a bank's last
# kinds on an idle second thread (a hand-over costs ~0.1 ms, the product ~0.03 ms a crop; one
# crop alone takes BLAS's vector path, whose sums may differ in the last bit).
SPLIT_KINDS = 8
# Every product is over a whole number of this many prototypes (zero columns after the last):
# OpenBLAS sums a product's last 1-8 columns past a multiple of 16 in another order than the
# rest, so a part of other width gave its last columns other last bits than the whole product
# (measured: widths 16k at any offset agree to the bit, 16k + 1..8 do not).
BLOCK_COLUMNS = 16


class PrototypeBank:
    """Prototype vectors grouped by kind, so that the best similarity per kind is one product
    and one segmented maximum (masking the columns kind by kind cost 6 ms a frame against
    14,000 bundled prototypes, five times the product itself)."""

    def __init__(self, labels: Sequence[str], vectors: Vectors, kinds: Sequence[str]) -> None:
        position = {kind: i for i, kind in enumerate(kinds)}
        label_idx = np.array([position[lab] for lab in labels], np.int64)
        order = np.argsort(label_idx, kind="stable")
        self._columns = len(order)
        # Room for any part to run on to a whole number of blocks (_block_end).
        padded = _block_end(self._columns) + BLOCK_COLUMNS
        self.vectors_t = np.zeros((vectors.shape[1], padded), vectors.dtype)
        self.vectors_t[:, : self._columns] = vectors[order].T
        self.present, self.starts = np.unique(label_idx[order], return_index=True)
        self.width = len(kinds)

    @property
    def columns(self) -> int:
        """How many prototypes it holds."""
        return self._columns

    def kind_at(self, column: int) -> int:
        """The first of its kinds (a position in ``present``) that starts at or after
        prototype ``column``, at least 1 and at most the number of kinds less one."""
        return int(np.clip(np.searchsorted(self.starts, column), 1, max(1, len(self.present) - 1)))

    def best_per_kind(
        self, embeddings: Vectors, first: int = 0, stop: int | None = None
    ) -> NDArray[np.float64]:
        """Per crop and kind, the best similarity to that kind's vectors (-2 where it has
        none). ``first``, ``stop``: only its kinds at those positions of ``present`` (the
        others -2), the product with their prototypes alone (a similarity is its own dot
        product: the same numbers as in the whole product, from two prototypes on)."""
        out = np.full((len(embeddings), self.width), -2.0)
        stop = len(self.present) if stop is None else stop
        if first >= stop or not len(embeddings):
            return out
        c0 = int(self.starts[first])
        c1 = self.columns if stop == len(self.present) else int(self.starts[stop])
        with one_blas_thread():  # slower on several threads (vision/blas.py)
            sims = embeddings @ self.vectors_t[:, c0 : c0 + _block_end(c1 - c0)]
        starts = self.starts[first:stop] - c0
        out[:, self.present[first:stop]] = np.maximum.reduceat(sims[:, : c1 - c0], starts, axis=1)
        return out


def _block_end(columns: int) -> int:
    """``columns`` rounded up to a whole number of blocks (BLOCK_COLUMNS)."""
    return -(-columns // BLOCK_COLUMNS) * BLOCK_COLUMNS


def split_kinds(
    bank: PrototypeBank, columns: int, embeddings: Vectors, helper: Executor | None
) -> tuple[int | None, Future[NDArray[np.float64]] | None]:
    """Where ``bank``'s kinds are cut so that its last ones hold about half of all the
    ``columns`` (prototypes), and their product begun on ``helper``: from ``SPLIT_KINDS``
    crops on, and when each part holds two prototypes or more (one alone takes BLAS's vector
    path); else (None, None)."""
    if helper is None or len(embeddings) < SPLIT_KINDS or len(bank.present) < 2:
        return None, None
    split = bank.kind_at(bank.columns - columns // 2)
    if not 2 <= int(bank.starts[split]) <= bank.columns - 2:
        return None, None
    return split, helper.submit(bank.best_per_kind, embeddings, split)
