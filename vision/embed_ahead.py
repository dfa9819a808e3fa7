"""Tiles embedded on a second thread while the finder is still finding.

A whole-frame scan is two parts of comparable cost: finding the tiles (mostly Python, one
blob after another) and the network's embedding of their crops (ONNX Runtime). The finder
tells of each blob's tiles as it cuts them; every few tiles their crops are cut and the
network's run on them is queued for another core. The tiles left when the finder is done are
embedded on the scan's own thread while the other finishes its runs, and all are named at
once. Each crop's vector does not depend on which others share its batch (the 8-bit
network's ranges are fixed), so the names are those of a scan that embeds everything at the
end (six frames of each held-out set: the same names, 1.10-1.18x sooner).

Only the network's run goes to the other thread: it lets go of the interpreter once, for
all of its work. A thread that also cut crops and stacked them let go of it and took it
back many times, and waited each time for the finder (itself busy in Python) to hand it
over: it ran a third as fast, and the scan gained nothing."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.finder import Found, tile_crops
from vision.identify import Identity, Recogniser
from vision.image import Image

# Tiles per run of the network: small enough that the first run starts a few blobs into the
# table, large enough to be a batch (a run costs ~0.1 ms besides its crops).
BATCH_TILES = 8

Output = NDArray[np.float32]


class EmbedAhead:
    """The identities of the tiles handed over by :meth:`add` (the finder's ``on_tiles``),
    their network runs on ``worker``; :meth:`identities` gathers them. The recogniser
    embeds each crop once (no shifted copies: ``shift_px`` 0)."""

    def __init__(
        self,
        worker: ThreadPoolExecutor,
        frame: Image,
        calibration: Calibration,
        recogniser: Recogniser,
        batch: int = BATCH_TILES,
    ) -> None:
        assert not recogniser.shift_px, "each crop's vector is the network's own"
        self._worker = worker
        self._frame = frame
        self._calibration = calibration
        self._recogniser = recogniser
        self._batch = batch
        self._waiting: list[Found] = []
        self._runs: list[tuple[list[Found], list[Image], Output, Future[Output]]] = []

    def add(self, tiles: list[Found]) -> None:
        self._waiting += tiles
        if len(self._waiting) >= self._batch:
            tiles, self._waiting = self._waiting, []
            crops = tile_crops(self._frame, self._calibration, tiles)
            embedder = self._recogniser.embedder
            blob = embedder.blob(crops)
            self._runs.append(
                (tiles, crops, blob, self._worker.submit(embedder.forward, blob, True))
            )

    def identities(self, tiles: list[Found]) -> list[Identity]:
        """The identity of each of ``tiles`` (the finder's, in its order). Those not yet run
        (held back for a batch, or never handed over) are embedded on this thread while the
        other finishes its runs; then all are named at once (the prototypes' product is
        cheaper once than batch by batch). A run's error is raised here.

        Runs the other thread has not begun are taken back, the last first, and run here
        (the finder may hand over most of a table's tiles at its end: they are then shared
        between the two threads, not left to the other)."""
        recogniser = self._recogniser
        embedder = recogniser.embedder
        runs, self._runs, self._waiting = self._runs, [], []
        taken_back: dict[int, Output] = {}
        for k in reversed(range(len(runs))):
            if not runs[k][3].cancel():
                break  # begun or done: so are the ones before it
            taken_back[k] = embedder.forward(runs[k][2], True)
        handed = {id(t) for batch, _, _, _ in runs for t in batch}
        rest = [t for t in tiles if id(t) not in handed]
        crops = tile_crops(self._frame, self._calibration, rest)
        vectors = embedder.embed(crops, shared=bool(runs))
        ready = dict(zip(map(id, rest), zip(crops, vectors, strict=True), strict=True))
        for k, (batch, crops, _, run) in enumerate(runs):
            output = taken_back[k] if k in taken_back else run.result()
            vectors = embedder.vectors(output)
            ready.update(zip(map(id, batch), zip(crops, vectors, strict=True), strict=True))
        if not tiles:
            return []
        pairs = [ready[id(t)] for t in tiles]
        crops = [c for c, _ in pairs]
        return recogniser.identify_embedded(crops, np.stack([v for _, v in pairs]), self._worker)
