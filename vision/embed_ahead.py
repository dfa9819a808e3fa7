"""Tiles embedded on a second thread while the finder is still finding.

A whole-frame scan is two halves of about equal cost: finding the tiles (mostly Python, one
blob after another) and the network's embedding of their crops (ONNX Runtime). The finder
tells of each blob's tiles as soon as they are certain; every few tiles their crops are cut
and the network run on them on another core meanwhile. What is left when the finder is done
is embedded then. Each crop's vector does not depend on which others share its batch (the
8-bit network's ranges are fixed), so the names are those of a scan that embeds everything
at the end.

Only the network's run goes to the other thread: it lets go of the interpreter once, for
all of its work. A thread that also cut crops and stacked them let go of it and took it
back many times, and waited each time for the finder (itself busy in Python) to hand it
over: it ran a third as fast, and the scan gained nothing."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from vision.artwork import Image
from vision.calibration import Calibration
from vision.finder import Found, tile_crops
from vision.identify import Embedder, Vectors

# Tiles per run of the network: small enough that the first run starts a few blobs into the
# table, large enough to be a batch (a run costs ~0.1 ms besides its crops).
BATCH_TILES = 8

Output = NDArray[np.float32]


class EmbedAhead:
    """The crops and vectors of the tiles handed over by :meth:`add` (the finder's
    ``on_tiles``), their network runs on ``worker``; :meth:`crops_and_vectors` gathers
    them."""

    def __init__(
        self,
        worker: ThreadPoolExecutor,
        frame: Image,
        calibration: Calibration,
        embedder: Embedder,
        batch: int = BATCH_TILES,
    ) -> None:
        self._worker = worker
        self._frame = frame
        self._calibration = calibration
        self._embedder = embedder
        self._batch = batch
        self._waiting: list[Found] = []
        self._runs: list[tuple[list[Found], list[Image], Future[Output]]] = []

    def add(self, tiles: list[Found]) -> None:
        self._waiting += tiles
        if len(self._waiting) >= self._batch:
            tiles, self._waiting = self._waiting, []
            crops = tile_crops(self._frame, self._calibration, tiles)
            run = self._worker.submit(self._embedder.forward, self._embedder.blob(crops))
            self._runs.append((tiles, crops, run))

    def crops_and_vectors(self, tiles: list[Found]) -> tuple[list[Image], Vectors]:
        """The crop and vector of each of ``tiles`` (the finder's, in its order): those
        embedded ahead, and the others (held back for a batch, or never handed over) now.
        A run's error is raised here."""
        ready: dict[int, tuple[Image, Vectors]] = {}
        for handed, crops, run in self._runs:
            vectors = self._embedder.vectors(run.result())
            for tile, crop, vector in zip(handed, crops, vectors, strict=True):
                ready[id(tile)] = (crop, vector)
        self._runs, self._waiting = [], []
        rest = [t for t in tiles if id(t) not in ready]
        if rest:
            crops = tile_crops(self._frame, self._calibration, rest)
            for tile, crop, vector in zip(rest, crops, self._embedder.embed(crops), strict=True):
                ready[id(tile)] = (crop, vector)
        if not tiles:
            return [], self._embedder.embed([])
        pairs = [ready[id(t)] for t in tiles]
        return [c for c, _ in pairs], np.stack([v for _, v in pairs])
