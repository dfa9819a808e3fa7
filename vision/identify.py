"""Tile identity: a learned embedding, prototypes enrolled from the table's own tiles, and
abstention.

A small CNN (trained on rendered crops of many art sets, see bench/vision/train_embedding.py)
maps a tile crop to a 64-d unit vector; it runs through ``cv2.dnn`` from ONNX. Enrolment stores
the embeddings of a few photos of each kind (possibly from several physical sets). A crop is
scored against each kind by its best cosine similarity to that kind's enrolled vectors;
a softmax over kinds with a temperature fitted on the enrolment photos themselves
(leave-one-out) gives the confidence, and below ``threshold`` the answer is ``None``:
better to ask the table than to guess.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.artwork import Image
from vision.crops import CROP_H, CROP_W, normalise_crop

MODELS_DIR = Path(__file__).resolve().parent / "models"
EMBEDDER_FILE = "tile_embed.onnx"
DEFAULT_MODEL_DIR = MODELS_DIR / "default"
FORMAT_VERSION = 1
DEFAULT_THRESHOLD = 0.7
DEFAULT_TEMPERATURE = 0.05

Vectors = NDArray[np.float32]


class ModelError(ValueError):
    """A model directory that cannot be used; the message says why."""


class Embedder:
    """The tile embedding network, run by OpenCV's dnn module."""

    def __init__(self, onnx_path: Path = MODELS_DIR / EMBEDDER_FILE) -> None:
        if not onnx_path.exists():
            raise ModelError(f"embedding network {onnx_path} is missing")
        try:
            self.net = cv2.dnn.readNetFromONNX(str(onnx_path))
        except cv2.error as exc:
            raise ModelError(f"cannot load {onnx_path}: {exc}") from exc
        self.path = onnx_path

    def embed(self, crops: Sequence[Image], batch: int = 64) -> Vectors:
        """Unit vectors, one per crop; each crop is seen both ways up and the two averaged,
        so a tile lying upside down looks the same."""
        if not crops:
            return np.zeros((0, 64), np.float32)
        out = []
        for start in range(0, len(crops), batch):
            chunk = [normalise_crop(c) for c in crops[start : start + batch]]
            both = chunk + [np.ascontiguousarray(c[::-1, ::-1]) for c in chunk]
            blob = cv2.dnn.blobFromImages(both, 1.0, (CROP_W, CROP_H), swapRB=False)
            self.net.setInput(blob)
            e = np.asarray(self.net.forward(), np.float32).reshape(len(both), -1)
            n = len(chunk)
            out.append(_unit(e[:n] + e[n:]))
        return np.concatenate(out)


def _unit(v: Vectors) -> Vectors:
    return np.asarray(v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9), np.float32)


@dataclass(frozen=True)
class Identity:
    label: str | None  # None: abstained
    confidence: float  # probability of the best kind, calibrated
    best: str  # the best kind even when abstaining (for logs, never published as seen)


@dataclass
class Recogniser:
    embedder: Embedder
    labels: list[str]  # one per enrolled vector
    vectors: Vectors
    temperature: float = DEFAULT_TEMPERATURE
    threshold: float = DEFAULT_THRESHOLD
    # Below this cosine similarity to every enrolled photo, a crop is unlike anything enrolled
    # (a sleeve, a coin, a tile of an unknown set): abstain however the kinds compare.
    min_similarity: float = 0.0

    @property
    def kinds(self) -> list[str]:
        return sorted(set(self.labels), key=self.labels.index)

    def _scores(self, embeddings: Vectors) -> tuple[list[str], NDArray[np.float64]]:
        """Per crop and kind, the best similarity to that kind's enrolled vectors."""
        kinds = self.kinds
        label_idx = np.array([kinds.index(lab) for lab in self.labels])
        order = np.argsort(label_idx, kind="stable")
        starts = np.searchsorted(label_idx[order], np.arange(len(kinds)))
        sims = embeddings @ self.vectors[order].T
        return kinds, np.asarray(np.maximum.reduceat(sims, starts, axis=1), np.float64)

    def identify_embeddings(self, embeddings: Vectors) -> list[Identity]:
        kinds, scores = self._scores(embeddings)
        probs = _softmax(scores / self.temperature)
        out = []
        for row, score in zip(probs, scores, strict=True):
            k = int(row.argmax())
            conf = float(row[k])
            sure = conf >= self.threshold and float(score[k]) >= self.min_similarity
            out.append(Identity(kinds[k] if sure else None, conf, kinds[k]))
        return out

    def identify(self, crops: Sequence[Image]) -> list[Identity]:
        return self.identify_embeddings(self.embedder.embed(crops))

    # -- enrolment and storage ------------------------------------------------------------------

    @classmethod
    def enrol(
        cls,
        embedder: Embedder,
        samples: Sequence[tuple[str, Image]],
        threshold: float = DEFAULT_THRESHOLD,
    ) -> Recogniser:
        """Prototypes from labelled tile images; the temperature is fitted leave-one-out."""
        labels = [label for label, _ in samples]
        vectors = embedder.embed([image for _, image in samples])
        recogniser = cls(embedder, labels, vectors, threshold=threshold)
        recogniser.temperature, recogniser.min_similarity = recogniser._fit_leave_one_out()
        return recogniser

    def _fit_leave_one_out(self) -> tuple[float, float]:
        """Each enrolled photo classified by the others: the temperature that makes those
        confidences honest (least log-loss), and the similarity floor (a little below all
        but the lowest 2 % of same-kind similarities)."""
        kinds = self.kinds
        label_idx = np.array([kinds.index(lab) for lab in self.labels])
        # A photo whose kind has no other photo cannot be classified by the others: leave
        # it out of the fit.
        counts = np.bincount(label_idx, minlength=len(kinds))
        keep = counts[label_idx] >= 2
        if keep.sum() < len(kinds):
            return DEFAULT_TEMPERATURE, 0.0
        sims = self.vectors @ self.vectors.T
        np.fill_diagonal(sims, -2.0)
        scores = np.full((len(self.labels), len(kinds)), -2.0)
        for k in range(len(kinds)):
            scores[:, k] = sims[:, label_idx == k].max(axis=1)
        scores, label_idx = scores[keep], label_idx[keep]
        best_t, best_loss = DEFAULT_TEMPERATURE, float("inf")
        for t in np.geomspace(0.005, 0.5, 40):
            p = _softmax(scores / t)[np.arange(len(label_idx)), label_idx]
            loss = float(-np.log(np.maximum(p, 1e-12)).mean())
            if loss < best_loss:
                best_t, best_loss = float(t), loss
        own = scores[np.arange(len(label_idx)), label_idx]
        floor = float(np.percentile(own, 2)) - 0.05
        return best_t, max(0.0, floor)

    def save(self, folder: Path, images: int, copy_embedder: bool = True) -> None:
        """Write the model directory; it holds its own copy of the network unless
        ``copy_embedder`` is false (the bundled default refers to the package's copy)."""
        folder.mkdir(parents=True, exist_ok=True)
        embedder_ref = EMBEDDER_FILE
        if not copy_embedder:
            embedder_ref = os.path.relpath(self.embedder.path, folder)
        elif self.embedder.path.resolve() != (folder / EMBEDDER_FILE).resolve():
            shutil.copyfile(self.embedder.path, folder / EMBEDDER_FILE)
        np.savez_compressed(
            folder / "prototypes.npz",
            labels=np.array(self.labels),
            vectors=self.vectors.astype(np.float16),
        )
        meta = {
            "version": FORMAT_VERSION,
            "embedder": embedder_ref,
            "temperature": self.temperature,
            "threshold": self.threshold,
            "min_similarity": self.min_similarity,
            "kinds": len(self.kinds),
            "images": images,
        }
        (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> Recogniser:
        meta_path = folder / "meta.json"
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(
                f"{folder} is not a model directory (no meta.json); create one "
                "with `mjtable vision enroll`"
            ) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"{meta_path} is not readable JSON: {exc}") from exc
        if not isinstance(meta, dict) or meta.get("version") != FORMAT_VERSION:
            raise ModelError(f"{meta_path}: unknown model format; enrol again")
        try:
            with np.load(folder / "prototypes.npz") as data:
                labels = [str(v) for v in data["labels"]]
                vectors = _unit(data["vectors"].astype(np.float32))
            embedder = Embedder(folder / str(meta.get("embedder", EMBEDDER_FILE)))
            return cls(
                embedder,
                labels,
                vectors,
                float(meta["temperature"]),
                float(meta["threshold"]),
                float(meta.get("min_similarity", 0.0)),
            )
        except ModelError:
            raise
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ModelError(f"{folder}: model files are damaged: {exc!r}") from exc


def _softmax(x: NDArray[np.float64]) -> NDArray[np.float64]:
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))
