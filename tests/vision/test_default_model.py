"""The bundled model (bench/vision/make_default_model.py): of each kind's prototypes the share
that covers the rest best, and the art set of each recorded beside them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from make_default_model import KEEP, covering, farthest_first

from vision.embedder import MODELS_DIR
from vision.identify import DEFAULT_MODEL_DIR, Recogniser


def _unit(v: np.ndarray) -> np.ndarray:
    return np.asarray(v / np.linalg.norm(v, axis=1, keepdims=True), np.float32)


def _clusters(rng: np.random.Generator, centres: int, each: int) -> np.ndarray:
    middle = _unit(rng.normal(size=(centres, 64)))
    return _unit(np.repeat(middle, each, axis=0) + 0.02 * rng.normal(size=(centres * each, 64)))


def test_farthest_first_takes_one_of_each_group_before_a_second() -> None:
    rng = np.random.default_rng(3)
    vectors = _clusters(rng, 6, 20)
    chosen = farthest_first(vectors, 6)
    assert len(chosen) == len(set(chosen)) == 6
    assert sorted(k // 20 for k in chosen) == list(range(6))
    assert len(farthest_first(vectors, 500)) == len(vectors)  # never more than there are


def test_the_covering_share_leaves_every_prototype_near_a_kept_one() -> None:
    """Each kind keeps its share (at least one), a prototype of each of its groups among
    them, so that every one left out is near a kept one of its kind."""
    rng = np.random.default_rng(5)
    vectors = _clusters(rng, 12, 10)
    labels = [f"k{n // 40}" for n in range(len(vectors))]  # 3 kinds of 4 groups
    keep = covering(labels, vectors, 0.25)
    assert keep == sorted(keep)
    kept_labels = [labels[k] for k in keep]
    assert {lab: kept_labels.count(lab) for lab in set(labels)} == {"k0": 10, "k1": 10, "k2": 10}
    assert len(covering(labels, vectors, 0.001)) == 3
    assert {k // 10 for k in keep} == set(range(12))  # every group
    names = np.array(labels)
    for kind in set(labels):
        mine = np.flatnonzero(names == kind)
        kept = [k for k in keep if labels[k] == kind]
        assert (vectors[mine] @ vectors[kept].T).max(axis=1).min() > 0.9


def test_the_bundle_records_the_art_set_of_each_prototype() -> None:
    import json

    bundled = Recogniser.load(DEFAULT_MODEL_DIR)
    meta = json.loads((MODELS_DIR / "tile_embed.json").read_text())
    with np.load(DEFAULT_MODEL_DIR / "prototypes.npz") as data:
        sources = data["sources"]
    assert len(sources) == len(bundled.labels) == len(bundled.vectors)
    assert set(sources.tolist()) == set(meta["train_sets"])  # no held-out set among them
    # The share kept: each photo enrolled as 12 prototypes, each kind's share of them.
    images = json.loads((DEFAULT_MODEL_DIR / "meta.json").read_text())["images"]
    kinds = len(set(bundled.labels))
    assert abs(len(bundled.labels) - images * 12 * KEEP) <= kinds
