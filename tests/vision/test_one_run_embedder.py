"""A network taught to give a crop as it lies, either way up, the vector of both ways summed
runs each crop once (its json says ``"ways": 1``: vision/embedder.py network_ways); a
network without the word sees each crop both ways up, as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import onnxruntime
import pytest

from vision.crops import CROP_H, CROP_W
from vision.embedder import EMBEDDER_FILE, MODELS_DIR, Embedder, ModelError, unit
from vision.image import Image


def _network(folder: Path, meta: object | None) -> Path:
    """The shipped float network copied into ``folder`` (no 8-bit copy beside it), with
    ``meta`` as its json when given."""
    path = folder / EMBEDDER_FILE
    shutil.copy(MODELS_DIR / EMBEDDER_FILE, path)
    if meta is not None:
        path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def _crops(count: int = 5) -> list[Image]:
    rng = np.random.default_rng(8)
    return [np.asarray(rng.integers(0, 256, (CROP_H, CROP_W, 3)), np.uint8) for _ in range(count)]


def _raw(path: Path, crops: list[Image]) -> np.ndarray:
    """The network's own output for the crops as they lie, by a session of its own."""
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    blob = np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32)
    return np.asarray(session.run(None, {session.get_inputs()[0].name: blob})[0]).reshape(
        len(crops), -1
    )


def test_a_network_of_one_way_runs_each_crop_once_as_it_lies(tmp_path: Path) -> None:
    path = _network(tmp_path, {"ways": 1, "arch": "slim"})
    crops = _crops()
    embedder = Embedder(path, threads=1)
    assert embedder.ways == 1 and not embedder.quantised
    blob = embedder.blob(crops)
    assert blob.shape == (len(crops), 3, CROP_H, CROP_W)
    assert np.array_equal(blob, np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32))
    np.testing.assert_allclose(embedder.embed(crops), unit(_raw(path, crops)), atol=1e-5)
    # Turned, a crop is another input: only the training makes the two vectors one.
    turned = [np.asarray(cv2.rotate(c, cv2.ROTATE_180), np.uint8) for c in crops]
    np.testing.assert_allclose(embedder.embed(turned), unit(_raw(path, turned)), atol=1e-5)


def test_a_network_without_the_word_sees_each_crop_both_ways_up(tmp_path: Path) -> None:
    path = _network(tmp_path, {"arch": "slim"})
    crops = _crops()
    turned = [np.asarray(cv2.rotate(c, cv2.ROTATE_180), np.uint8) for c in crops]
    embedder = Embedder(path, threads=1)
    assert embedder.ways == 2 and embedder.blob(crops).shape[0] == 2 * len(crops)
    both = unit(_raw(path, crops) + _raw(path, turned))
    np.testing.assert_allclose(embedder.embed(crops), both, atol=1e-5)
    np.testing.assert_allclose(embedder.embed(turned), both, atol=1e-5)
    bare = tmp_path / "bare"  # no json beside it at all
    bare.mkdir()
    assert Embedder(_network(bare, None)).ways == 2


@pytest.mark.parametrize(
    ("meta", "named"),
    [
        ({"ways": 3}, '"ways" must be 1 or 2, not 3'),
        ({"ways": True}, "not True"),
        ([1], "not None"),
    ],
)
def test_a_wrong_number_of_ways_is_named(tmp_path: Path, meta: object, named: str) -> None:
    path = _network(tmp_path, meta)
    with pytest.raises(ModelError, match=rf"tile_embed\.json: .*{named}"):
        Embedder(path)


def test_an_unreadable_json_beside_the_network_is_named(tmp_path: Path) -> None:
    path = _network(tmp_path, None)
    path.with_suffix(".json").write_text("{ways: 1")
    with pytest.raises(ModelError, match=r"tile_embed\.json is not readable JSON"):
        Embedder(path)
