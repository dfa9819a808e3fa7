"""Enrolment of a rendered table's own tile set, as its owner would enrol a real one.

A table's owner lays each kind on the cloth a few times, photographs it with the table's
camera and runs ``mjtable vision enroll``. :func:`enrol_rendered_table` does the same for a
rendered table (``mjtable simulate --camera``): it renders a few frames with every kind laid
out on the cloth (the table's art, light and camera pose), cuts the tiles out with the real
finder, writes them as a samples folder (``SAMPLES_DIR/<TOKEN>/n.png``) and enrols that folder
through :func:`vision.enrol.enrol_folder`, the command's own code. The model directory is
cached, keyed by the art set, the table's seed, the camera's frame size and the network, so it
is made once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import calibrate
from vision.embedder import EMBEDDER_FILE, MODELS_DIR
from vision.enrol import enrol_folder
from vision.finder import find, tile_crop
from vision.geometry import TableGeometry
from vision.image import Image
from vision.synth.artwork import load_set
from vision.synth.layout import Layout, TilePlacement
from vision.synth.render import CameraPose, Rendered, Style, render

ENROL_VERSION = 1
# Rows of the enrolment layout (mm), clear of the dice tray in the middle.
_ROWS_MM = (235.0, 290.0, 345.0, 560.0, 615.0, 670.0)
_COLS_MM = tuple(240.0 + 47.0 * i for i in range(10))


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mahjong-table" / "enrolled"


def _key(art: str, seed: int, per_kind: int, pose: CameraPose) -> str:
    net = hashlib.sha256((MODELS_DIR / EMBEDDER_FILE).read_bytes()).hexdigest()[:12]
    frame = f"{pose.width}x{pose.height}"
    return f"{art}-seed{seed}-x{per_kind}-{frame}-v{ENROL_VERSION}-{net}"


def enrolment_layout(labels: list[str], rng: np.random.Generator) -> Layout:
    """Every label once, in rows on the cloth, each either way up (as a person lays them)."""
    slots = [(x, y) for y in _ROWS_MM for x in _COLS_MM]
    if len(labels) > len(slots):
        raise ValueError(f"{len(labels)} labels do not fit the {len(slots)} enrolment places")
    order = rng.permutation(len(labels))
    tiles = []
    for slot, i in enumerate(order):
        x, y = slots[slot]
        angle = float(rng.choice([0.0, 180.0]) + rng.uniform(-4, 4))
        tiles.append(TilePlacement(labels[int(i)], x, y, angle))
    return Layout(tiles=tiles)


def enrolment_samples(
    art: str, style: Style, pose: CameraPose, per_kind: int, seed: int, folder: Path
) -> int:
    """Render ``per_kind`` frames of every kind, cut each tile out with the finder and write
    it under ``folder/<LABEL>/``; returns the number of crops written."""
    geometry = TableGeometry()
    labels = list(load_set(art))
    rng = np.random.default_rng([seed, 7_001])
    written = 0
    for shot in range(per_kind):
        frame = render(enrolment_layout(labels, rng), style, rng, geometry, pose)
        for label, crop in labelled_crops(frame):
            (folder / label).mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / label / f"{shot}.png"), crop)
            written += 1
    return written


def labelled_crops(frame: Rendered, tolerance_mm: float = 10.0) -> list[tuple[str, Image]]:
    """The tiles of a rendered frame as the scanner cuts them (calibration from the frame's
    markers, the finder, ``tile_crop``), each named by the renderer's truth: the placed tile
    within ``tolerance_mm`` of where the finder put it. Tiles matching none are left out."""
    calibration = calibrate(frame.image, frame.geometry)
    truth = np.array([[t.x, t.y] for t in frame.layout.tiles])
    out = []
    for found in find(frame.image, calibration):
        if found.kind != "tile":
            continue
        d = np.linalg.norm(truth - [found.x, found.y], axis=1)
        k = int(d.argmin())
        if d[k] <= tolerance_mm:
            out.append((frame.layout.tiles[k].label, tile_crop(frame.image, calibration, found)))
    return out


def enrol_rendered_table(
    art: str,
    style: Style,
    pose: CameraPose,
    seed: int,
    per_kind: int = 3,
    cache: Path | None = None,
) -> Path:
    """The model directory of this rendered table's enrolled set, made on first use."""
    out = (cache or cache_root()) / _key(art, seed, per_kind, pose)
    if (out / "meta.json").exists() and (out / "enrolled.json").exists():
        return out
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    samples = tmp / "samples"
    samples.mkdir(parents=True)
    crops = enrolment_samples(art, style, pose, per_kind, seed, samples)
    counts = enrol_folder(samples, tmp / "model")
    (tmp / "model" / "enrolled.json").write_text(
        json.dumps({"art": art, "seed": seed, "crops": crops, **counts}) + "\n", encoding="utf-8"
    )
    shutil.rmtree(out, ignore_errors=True)
    (tmp / "model").rename(out)
    shutil.rmtree(tmp, ignore_errors=True)
    return out
