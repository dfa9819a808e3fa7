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
over: it ran a third as fast, and the scan gained nothing.

Where the network's own process is running (vision/embed_process.py), the runs go there
instead: the crops are copied into shared memory, and the run never waits for this
interpreter. The second thread takes them when that process is not ready, is busy with
another scan, or has no slot left; a run the process could not do is done here."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.embed_process import NetworkProcess, Run, WorkerGone
from vision.embedder import Embedder
from vision.finder import Found, cut_quad, tile_crops, tile_quads
from vision.identify import Identity, Recogniser
from vision.image import Image

# Tiles per run of the network: small enough that the first run starts a few blobs into the
# table, large enough to be a batch (a run costs ~0.1 ms besides its crops).
BATCH_TILES = 8
# A run begun with fewer tiles when the other side has nothing to do: the finder's first
# blobs are single tiles, and the rows it cuts next take it 2-4 ms before it hands over more.
IDLE_TILES = 4

Vectors = NDArray[np.float32]


Embedded = tuple[list[Image], Vectors]  # crops and their unit vectors


class _Run(Protocol):
    def take_back(self) -> bool:
        """Whether the run was not begun, and is now the caller's (:meth:`here`)."""

    def done(self) -> bool:
        """Whether the run is known to be over (its side free for another)."""

    def here(self) -> Embedded:
        """The run done on the calling thread."""

    def result(self) -> Embedded:
        """The crops and their vectors, waiting for the run if need be."""


class _ThreadRun:
    """A run on the scan's second thread (the crops cut and the network's input made here)."""

    def __init__(self, worker: ThreadPoolExecutor, embedder: Embedder, crops: list[Image]):
        self._embedder, self._crops = embedder, crops
        self._blob = embedder.blob(crops)
        self._future: Future[Vectors] = worker.submit(embedder.forward, self._blob, True)

    def take_back(self) -> bool:
        return self._future.cancel()

    def done(self) -> bool:
        return self._future.done()

    def here(self) -> Embedded:
        return self._crops, self._embedder.vectors(self._embedder.forward(self._blob, True))

    def result(self) -> Embedded:
        return self._crops, self._embedder.vectors(self._future.result())


class _ProcessRun:
    """A run in the network's process, on crops it was given or cuts itself from the shared
    frame at ``quads``; done here when that process could not."""

    def __init__(
        self,
        run: Run,
        embedder: Embedder,
        crops: list[Image] | None,
        quads: NDArray[np.float32] | None = None,
        frame: Image | None = None,
    ):
        self._run, self._embedder, self._crops = run, embedder, crops
        self._quads, self._frame = quads, frame

    def take_back(self) -> bool:
        return self._run.take_back()

    def done(self) -> bool:
        return False  # the process answers only when asked: batches as when it is busy

    def here(self) -> Embedded:
        crops = self._crops
        if crops is None:
            assert self._quads is not None and self._frame is not None
            crops = [cut_quad(self._frame, quad) for quad in self._quads]
        return crops, self._embedder.embed(crops, shared=True)

    def result(self) -> Embedded:
        try:
            return self._run.result()
        except WorkerGone:
            return self.here()


class EmbedAhead:
    """The identities of the tiles handed over by :meth:`add` (the finder's ``on_tiles``),
    their network runs in ``process`` (the network's own, when it is ready and free) or else
    on ``worker``; :meth:`identities` gathers them, :meth:`close` gives the process back.
    The recogniser embeds each crop once (no shifted copies: ``shift_px`` 0)."""

    def __init__(
        self,
        worker: ThreadPoolExecutor,
        frame: Image,
        calibration: Calibration,
        recogniser: Recogniser,
        batch: int = BATCH_TILES,
        process: NetworkProcess | None = None,
        idle_batch: int = IDLE_TILES,
    ) -> None:
        assert not recogniser.shift_px, "each crop's vector is the network's own"
        self._worker = worker
        self._process = process if process is not None and process.begin() else None
        # The process cuts the crops itself from a copy of the frame, where it fits.
        self._shared = self._process is not None and self._process.share_frame(frame, worker)
        self._frame = frame
        self._calibration = calibration
        self._recogniser = recogniser
        self._batch, self._idle_batch = batch, idle_batch
        self._waiting: list[Found] = []
        self._runs: list[tuple[list[Found], _Run]] = []

    @property
    def in_process(self) -> bool:
        """Whether this scan's runs go to the network's process."""
        return self._process is not None

    def close(self) -> None:
        """Give the network's process back (idempotent)."""
        if self._process is not None:
            self._process.end()
            self._process = None

    def add(self, tiles: list[Found]) -> None:
        """``tiles`` to be run: a run begins with a batch's worth, or with ``idle_batch``
        when the other side's runs are all over (it would wait for the batch idle)."""
        self._waiting += tiles
        waiting = len(self._waiting)
        if waiting >= self._batch or (waiting >= self._idle_batch and self._other_side_idle()):
            tiles, self._waiting = self._waiting, []
            self._runs.append((tiles, self._run(tiles)))

    def _other_side_idle(self) -> bool:
        return not self._runs or self._runs[-1][1].done()

    def _run(self, tiles: list[Found]) -> _Run:
        """The network's run on ``tiles``: in its process where it can, else on the thread."""
        embedder = self._recogniser.embedder
        if self._process is not None and self._shared:
            quads = tile_quads(self._calibration, tiles)
            away = self._process.submit_quads(quads)
            if away is not None:
                return _ProcessRun(away, embedder, None, quads, self._frame)
        crops = tile_crops(self._frame, self._calibration, tiles)
        if self._process is not None:
            away = self._process.submit(crops)
            if away is not None:
                return _ProcessRun(away, embedder, crops)
        return _ThreadRun(self._worker, embedder, crops)

    def identities(self, tiles: list[Found]) -> list[Identity]:
        """The identity of each of ``tiles`` (the finder's, in its order). Those not yet run
        (held back for a batch, or never handed over) are embedded on this thread while the
        other side finishes its runs; then all are named at once (the prototypes' product is
        cheaper once than batch by batch). A run's error is raised here.

        Runs the other side has not begun are taken back, the last first, and run here
        (the finder may hand over most of a table's tiles at its end: they are then shared
        between the two, not left to the other)."""
        recogniser = self._recogniser
        embedder = recogniser.embedder
        runs, self._runs, self._waiting = self._runs, [], []
        try:
            ready = self._gather(embedder, runs, tiles)
        finally:
            self.close()
        if not tiles:
            return []
        pairs = [ready[id(t)] for t in tiles]
        crops = [c for c, _ in pairs]
        return recogniser.identify_embedded(crops, np.stack([v for _, v in pairs]), self._worker)

    def _gather(
        self,
        embedder: Embedder,
        runs: list[tuple[list[Found], _Run]],
        tiles: list[Found],
    ) -> dict[int, tuple[Image, Vectors]]:
        """Each tile's crop and vector, by the tile's id. The tiles never run first, then
        the runs not begun, from the last: the other side goes on from the first meanwhile,
        and the two meet with about as much left on either (done the other way round, the
        other side ran out of runs while this one embedded the rest)."""
        handed = {id(t) for batch, _ in runs for t in batch}
        rest = [t for t in tiles if id(t) not in handed]
        crops = tile_crops(self._frame, self._calibration, rest)
        vectors = embedder.embed(crops, shared=bool(runs))
        ready = dict(zip(map(id, rest), zip(crops, vectors, strict=True), strict=True))
        taken_back: dict[int, Embedded] = {}
        for k in reversed(range(len(runs))):
            if not runs[k][1].take_back():
                break  # begun or done: so are the ones before it
            taken_back[k] = runs[k][1].here()
        for k, (batch, run) in enumerate(runs):
            crops, vectors = taken_back[k] if k in taken_back else run.result()
            ready.update(zip(map(id, batch), zip(crops, vectors, strict=True), strict=True))
        return ready
