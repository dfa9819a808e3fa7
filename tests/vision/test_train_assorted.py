"""train_embedding.py --assorted: the assorted grammar's sets join the procedural share of
training beside the plain and varied ones (which stay), never a held-out set. Training tools
only: skipped where torch is not installed (`./dev setup --training` installs it)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

import train_embedding

from vision.labels import LABELS
from vision.synth.artwork import PROCEDURAL_PREFIX
from vision.synth.procedural import procedural_set


def test_assorted_sets_widen_the_procedural_share(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["train_embedding.py", "--procedural", "1", "--varied", "1", "--assorted", "2"]
    monkeypatch.setattr(sys, "argv", argv)
    args = train_embedding.parse_args()
    train_sets, (packaged, generated) = train_embedding.training_faces(args)
    assert not set(train_sets) & {"xmj-real", "kde-traditional", "gnome-smooth"}
    assert {s.name for s in packaged} == set(train_sets)
    names = [s.name for s in generated]
    assert names == [f"{PROCEDURAL_PREFIX}{seed}" for seed in (10_000, 30_000, 80_000, 80_001)]
    mine = procedural_set(80_001, assorted=True)
    assert np.array_equal(generated[3].faces[LABELS.index("7B")], mine["7B"])
