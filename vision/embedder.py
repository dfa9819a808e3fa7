"""The tile embedding network: a crop to a 64-d unit vector.

A small CNN (trained on rendered crops of many art sets, see bench/vision/train_embedding.py)
run by ONNX Runtime, in 8-bit integers (but for its first convolution) where the quantised
copy lies beside the float network, or by OpenCV's dnn module where ONNX Runtime is not
installed. Each crop is seen both ways up, so a tile lying upside down gives the same vector;
a network taught to give that vector from a crop as it lies (its json says ``"ways": 1``)
sees each crop once. vision/identify.py names tiles from these vectors.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.crops import CROP_H, CROP_W, normalise_crop
from vision.embed_process import SLOT_CROPS, NetworkProcess, Run, WorkerGone
from vision.image import Image

MODELS_DIR = Path(__file__).resolve().parent / "models"
EMBEDDER_FILE = "tile_embed.onnx"
# From this many crops on, half of them go to a helper thread (Embedder.embed): fewer are
# not worth the hand-over (a run costs ~0.1 ms besides its crops).
SPLIT_CROPS = 8
# A crop's shifted copies (a second look) are shared from this many copies on: each copy is
# seen both ways up, so even one crop's four are eight images, a run worth handing over.
SPLIT_COPIES = 4

Vectors = NDArray[np.float32]


class ModelError(ValueError):
    """A model directory that cannot be used; the message says why."""


def quantised_path(onnx_path: Path) -> Path:
    """Where the 8-bit copy of a float network lives: beside it (made by
    bench/vision/quantize_embedder.py: about twice as fast through ONNX Runtime, embeddings
    within 0.5 % of the float ones)."""
    return onnx_path.with_name(onnx_path.name.removesuffix(".onnx") + ".int8.onnx")


def network_ways(onnx_path: Path) -> int:
    """How many ways up the network sees each crop: 1 where its json (beside it, written by
    bench/vision/train_embedding.py) says ``"ways": 1``, a network taught to give a crop as
    it lies either way up the vector of both ways summed; else 2."""
    meta_path = onnx_path.with_suffix(".json")
    if not meta_path.exists():
        return 2
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{meta_path} is not readable JSON: {exc!s:.200}") from None
    ways = meta.get("ways", 2) if isinstance(meta, dict) else None
    if ways not in (1, 2) or isinstance(ways, bool):
        raise ModelError(f'{meta_path}: "ways" must be 1 or 2, not {ways!r}')
    return int(ways)


class Embedder:
    """The tile embedding network, run by ONNX Runtime in 8-bit integers where the quantised
    copy is beside the float network, else in floats (by OpenCV's dnn module where ONNX
    Runtime is not installed: the float vectors, about a quarter of the speed)."""

    def __init__(
        self,
        onnx_path: Path = MODELS_DIR / EMBEDDER_FILE,
        threads: int | None = None,
        runtime: str = "auto",
        quantised: bool = True,
    ) -> None:
        """``threads``: for the network; by default OpenCV's own setting
        (``cv2.setNumThreads``), so one knob sets both. ``runtime``: "onnxruntime",
        "opencv", or "auto" (the first that is installed). ``quantised``: use the 8-bit copy
        when ONNX Runtime runs and the copy exists."""
        if not onnx_path.exists():
            raise ModelError(f"embedding network {onnx_path} is missing")
        if runtime not in ("auto", "onnxruntime", "opencv"):
            raise ModelError(f"unknown runtime {runtime!r}: auto, onnxruntime or opencv")
        self.path = onnx_path
        self.ways = network_ways(onnx_path)
        self.quantised = False
        forward = None
        self._source = onnx_path
        if runtime != "opencv":
            int8 = quantised_path(onnx_path)
            self.quantised = quantised and int8.exists()
            self._source = int8 if self.quantised else onnx_path
            forward = _ort_forward(self._source, threads or max(1, cv2.getNumThreads()))
            if forward is None:
                self.quantised = False
                if runtime == "onnxruntime":
                    raise ModelError("onnxruntime is not installed (pip install onnxruntime)")
        self.runtime = "onnxruntime" if forward is not None else "opencv"
        self._forward = forward or _dnn_forward(onnx_path)
        self._threads = threads or max(1, cv2.getNumThreads())
        self._forward_alone: Forward | None = None
        self._process: NetworkProcess | None = None

    def network_process(self) -> NetworkProcess | None:
        """The network in a process of its own (vision/embed_process.py), started on the
        first call; None where ONNX Runtime does not run the network."""
        if self.runtime != "onnxruntime":
            return None
        if self._process is None:
            self._process = NetworkProcess(self.path, self.quantised)
        return self._process

    def close(self) -> None:
        """End the network's process, if one was started (a later call starts another)."""
        if self._process is not None:
            self._process.close()
            self._process = None

    def embed(
        self,
        crops: Sequence[Image],
        batch: int = 64,
        shift_px: int = 0,
        unshifted: Vectors | None = None,
        helper: Executor | None = None,
        shared: bool = False,
        split_from: int = 2 * SPLIT_CROPS,
    ) -> Vectors:
        """Unit vectors, one per crop; each crop is seen both ways up and the two averaged,
        so a tile lying upside down looks the same (once, by a network taught to give that
        vector: :func:`network_ways`). ``shift_px`` > 0 also averages four
        copies shifted by that much (test-time augmentation: 5x the work, 4x when the crops'
        own vectors are given as ``unshifted``). ``helper``: a thread that runs the network
        on half of many crops meanwhile (the same vectors: a crop's does not depend on its
        batch), from ``split_from`` crops on. ``shared``: the cores are shared with other work
        (see :meth:`forward`)."""
        if not crops:
            return np.zeros((0, 64), np.float32)
        if shift_px > 0:
            copies = shifted_all(np.stack([_input_crop(c) for c in crops]), shift_px)
            if unshifted is not None:
                copies = copies[:, 1:]
            flat = list(copies.reshape(-1, *copies.shape[2:]))
            stacked = self.embed(flat, batch, helper=helper, shared=shared, split_from=SPLIT_COPIES)
            stacked = stacked.reshape(len(crops), copies.shape[1], -1)
            if unshifted is not None:
                stacked = np.concatenate([unshifted[:, None], stacked], axis=1)
            return unit(stacked.mean(axis=1))
        if helper is not None and len(crops) >= max(2, split_from):
            half = len(crops) // 2
            away = self._embed_away(crops[:half], crops[half:], batch)
            if away is not None:
                return away
            far = helper.submit(self.forward, self.blob(crops[half:]), True)
            near = self.embed(crops[:half], batch, shared=True)
            return np.concatenate([near, self.vectors(far.result())])
        return self._embed_here(crops, batch, shared)

    def _embed_away(
        self, near: Sequence[Image], far: Sequence[Image], batch: int
    ) -> Vectors | None:
        """``near`` embedded here while the network's process embeds ``far``; None when
        the process is not running, is busy, or cannot take them."""
        process = self._process
        if process is None or not process.begin():
            return None
        try:
            chunks = [far[k : k + SLOT_CROPS] for k in range(0, len(far), SLOT_CROPS)]
            runs: list[Run | None] = [process.submit(chunk) for chunk in chunks]
            out = [self.embed(near, batch, shared=True)]
            out += [
                self._taken_back(run, chunk, batch) for chunk, run in zip(chunks, runs, strict=True)
            ]
            return np.concatenate(out)
        finally:
            process.end()

    def _taken_back(self, run: Run | None, chunk: Sequence[Image], batch: int) -> Vectors:
        """The process's vectors of ``chunk``; the chunk embedded here when the process did
        not take it or went away before answering."""
        if run is not None:
            try:
                return run.vectors()
            except WorkerGone:
                pass
        return self.embed(chunk, batch, shared=True)

    def _embed_here(self, crops: Sequence[Image], batch: int, shared: bool) -> Vectors:
        out = []
        for start in range(0, len(crops), batch):
            blob = self.blob(crops[start : start + batch])
            out.append(self.vectors(self.forward(blob, shared)))
        return np.concatenate(out)

    # embed() in three steps, for the network's run to be on another thread than the rest
    # (vision/embed_ahead.py): the interpreter is let go of for the whole of forward().

    def blob(self, crops: Sequence[Image]) -> NDArray[np.float32]:
        """The network's input for ``crops``: each both ways up (as it lies, for a network
        run once a crop), as NCHW floats (0-255: the network scales itself)."""
        return both_ways_up(crops) if self.ways == 2 else as_lying(crops)

    def forward(self, blob: NDArray[np.float32], shared: bool = False) -> NDArray[np.float32]:
        """The network's raw output for a :meth:`blob`. ``shared``: another thread is busy
        meanwhile (the finder, or the other half of the crops), so the run takes one core,
        not all of them. Each side's runs spreading over every core made the two slow each
        other down: on two cores, a whole-table scan took 2.6-2.8 % longer on the clock and
        4 % more processor time (20 frames of two held-out sets, side by side). The same
        numbers either way: ONNX Runtime's threads split the batch, not the sums."""
        if not shared or self._threads == 1 or self.runtime != "onnxruntime":
            return self._forward(blob)
        if self._forward_alone is None:
            self._forward_alone = _ort_forward(self._source, 1)
        assert self._forward_alone is not None  # onnxruntime loaded it once already
        return self._forward_alone(blob)

    def vectors(self, output: NDArray[np.float32]) -> Vectors:
        """The crops' unit vectors from :meth:`forward`'s output (both ways up averaged)."""
        e = output.reshape(output.shape[0], -1)
        if self.ways == 1:
            return unit(e)
        n = len(e) // 2
        return unit(e[:n] + e[n:])


def both_ways_up(crops: Sequence[Image]) -> NDArray[np.float32]:
    """The crops and then the same crops turned upside down, as NCHW floats of their bytes
    (0-255), at the networks' input size: the input of both networks (the embedding's and
    the bonus reader's), each of which looks at a crop both ways up."""
    n = len(crops)
    blob = np.empty((2 * n, 3, CROP_H, CROP_W), np.float32)
    _fill_blob(crops, blob[:n])
    # Turned from the floats just made, not the bytes again: 15 % less time.
    blob[n:] = blob[:n, :, ::-1, ::-1]
    return blob


def as_lying(crops: Sequence[Image]) -> NDArray[np.float32]:
    """The crops as they lie, as NCHW floats of their bytes (0-255), at the networks' input
    size."""
    blob = np.empty((len(crops), 3, CROP_H, CROP_W), np.float32)
    _fill_blob(crops, blob)
    return blob


def _fill_blob(crops: Sequence[Image], blob: NDArray[np.float32]) -> None:
    """Write the crops into ``blob`` (one per row, NCHW floats of their bytes)."""
    n = len(crops)
    tall = np.concatenate([_input_crop(c) for c in crops])  # one above the other
    # Each colour's plane of every crop cast at once from OpenCV's split (a cast of
    # contiguous rows), not by numpy's transposing cast: 0.050 against 0.061 ms for 8
    # crops, 0.37-0.40 against 0.53 for 74.
    for c, plane in enumerate(cv2.split(tall)):
        blob[:, c] = plane.reshape(n, CROP_H, CROP_W)


def _input_crop(crop: Image) -> Image:
    """A crop at the network's input size (the scanner's crops already are)."""
    if crop.shape == (CROP_H, CROP_W, 3) and crop.dtype == np.uint8:
        return crop
    return normalise_crop(crop)


Forward = Callable[[NDArray[np.float32]], NDArray[np.float32]]


def _ort_forward(onnx_path: Path, threads: int) -> Forward | None:
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Between frames the table service has other work: threads that spin-wait after each run
    # would take a core from it for nothing.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
    # ONNX Runtime's load errors share no base class narrower than Exception.
    except Exception as exc:
        raise ModelError(f"cannot load {onnx_path}: {exc}") from exc
    name = session.get_inputs()[0].name

    def forward(blob: NDArray[np.float32]) -> NDArray[np.float32]:
        return np.asarray(session.run(None, {name: blob})[0], np.float32)

    return forward


def _dnn_forward(onnx_path: Path) -> Forward:
    try:
        net = cv2.dnn.readNetFromONNX(str(onnx_path))
    except cv2.error as exc:
        raise ModelError(f"cannot load {onnx_path}: {exc}") from exc

    def forward(blob: NDArray[np.float32]) -> NDArray[np.float32]:
        net.setInput(blob)
        return np.asarray(net.forward(), np.float32)

    return forward


def warp(image: Image, matrix: NDArray[np.float64]) -> Image:
    h, w = image.shape[:2]
    return np.asarray(
        cv2.warpAffine(image, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE), np.uint8
    )


def shifted(crop: Image, px: int) -> list[Image]:
    """The crop and four copies moved ``px`` right, left, down and up (:func:`shifted_all`
    of one crop)."""
    return list(shifted_all(np.asarray(crop, np.uint8)[None], px)[0])


def shifted_all(crops: NDArray[np.uint8], px: int) -> NDArray[np.uint8]:
    """Each of a stack of crops (N x H x W x 3) and four copies of it moved ``px`` right,
    left, down and up (N x 5 x H x W x 3): each window of the crops with their edges repeated
    ``px`` further, which is what a warp with its border repeated gives to the bit (its
    weights at a whole-pixel move are 1 and 0), without four warps a crop (a second look's
    10 crops: 0.06 against 0.2 ms)."""
    h, w = crops.shape[1:3]
    padded = _edge_padded(crops, px)
    middle = slice(px, px + h), slice(px, px + w)
    moved = (  # right, left, down, up
        (middle[0], slice(0, w)),
        (middle[0], slice(2 * px, 2 * px + w)),
        (slice(0, h), middle[1]),
        (slice(2 * px, 2 * px + h), middle[1]),
    )
    return np.stack([crops, *(padded[:, rows, cols] for rows, cols in moved)], axis=1)


def _edge_padded(crops: NDArray[np.uint8], px: int) -> NDArray[np.uint8]:
    """The crops with their edges repeated ``px`` pixels out on every side (``np.pad``'s
    "edge" mode, which takes three times as long on a few crops)."""
    n, h, w = crops.shape[:3]
    out = np.empty((n, h + 2 * px, w + 2 * px, *crops.shape[3:]), crops.dtype)
    out[:, px : px + h, px : px + w] = crops
    out[:, px : px + h, :px] = crops[:, :, :1]
    out[:, px : px + h, px + w :] = crops[:, :, -1:]
    out[:, :px] = out[:, px : px + 1]
    out[:, px + h :] = out[:, px + h - 1 : px + h]
    return out


def unit(v: Vectors) -> Vectors:
    return np.asarray(v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9), np.float32)
