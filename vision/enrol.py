"""Enrolment of a table's own tiles from a folder of sample photos.

``SAMPLES_DIR/<TOKEN>/*.png`` — one sub-folder per tile token (case-insensitive: ``1B``,
``rd``, ``F3``, ``J``), plus optionally ``BLANK`` (spare tiles) and ``BACK`` (face-down tiles).
Any image size; the tile roughly upright and filling most of the image. Each photo is
augmented into several prototypes (vision.identify.enrolment_variants). The bundled default
model's prototypes are kept as background, counted a margin lower: a partial enrolment still
recognises everything, and the enrolled photos count for more.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.tiles import TileError, parse_tile, tile_name
from vision.capture import IMAGE_SUFFIXES
from vision.embedder import EMBEDDER_FILE, MODELS_DIR, Embedder, ModelError
from vision.identify import DEFAULT_MODEL_DIR, DEFAULT_THRESHOLD, Recogniser
from vision.image import Image
from vision.labels import BACK, BLANK


@dataclass
class EnrolError(Exception):
    message: str
    where: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def label_of_folder(name: str) -> str:
    upper = name.strip().upper()
    if upper in (BLANK, BACK):
        return upper
    return tile_name(parse_tile(upper))


def read_samples(samples: Path) -> list[tuple[str, Image]]:
    if not samples.is_dir():
        raise EnrolError(f"{samples} is not a folder", "SAMPLES_DIR")
    out: list[tuple[str, Image]] = []
    for folder in sorted(p for p in samples.iterdir() if p.is_dir()):
        try:
            label = label_of_folder(folder.name)
        except TileError:
            raise EnrolError(
                f"sub-folder {folder.name!r} names no tile (expected a token such "
                "as 1B, RD, F3, J, or BLANK/BACK)",
                str(folder),
            ) from None
        for path in sorted(folder.iterdir()):
            if path.is_dir() or path.name.startswith("."):
                continue
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                raise EnrolError("not an image file (png, jpg, ...)", str(path))
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise EnrolError("not a readable image", str(path))
            if min(image.shape[:2]) < 8:
                raise EnrolError(
                    f"image is only {image.shape[1]}x{image.shape[0]} pixels", str(path)
                )
            out.append((label, np.asarray(image, np.uint8)))
    if not out:
        raise EnrolError("no sample images found (one sub-folder per tile token)", "SAMPLES_DIR")
    return out


def enrol_folder(samples: Path, out: Path, threshold: float | None = None) -> dict[str, int]:
    images = read_samples(samples)
    try:
        embedder = Embedder(MODELS_DIR / EMBEDDER_FILE)
    except ModelError as exc:
        raise EnrolError(str(exc), "model") from None
    recogniser = Recogniser.enrol(
        embedder, images, threshold if threshold is not None else DEFAULT_THRESHOLD
    )
    enrolled = set(recogniser.labels)
    # The bundled prototypes (rendered art of many sets) stay behind the enrolled ones: kinds
    # without photos are still known, and a tile of another set is still near something.
    with contextlib.suppress(ModelError):
        recogniser.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    try:
        recogniser.save(out, len(images))
    except OSError as exc:
        raise EnrolError(f"cannot write the model: {exc}", "--out") from None
    return {"kinds": len(enrolled), "images": len(images)}
