"""The bonus-tile reader's 8-bit copy: loaded where it lies beside the float network, and
reading what the float network reads (the measure of how closely: bench/vision/bench_bonus.py
``--float`` beside the default)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.bonus import BONUS_FILE, BonusReader, Temperatures
from vision.embedder import MODELS_DIR, ModelError, quantised_path
from vision.synth.bonus_faces import HELD_OUT_FONTS, bonus_faces
from vision.synth.crops import synthetic_crop

COMMITTED = MODELS_DIR / BONUS_FILE


def test_the_8_bit_copy_is_committed_and_its_provenance_recorded() -> None:
    assert quantised_path(COMMITTED).exists()
    meta = json.loads(COMMITTED.with_suffix(".json").read_text(encoding="utf-8"))
    record = meta["quantised"]
    assert record["file"] == quantised_path(COMMITTED).name
    assert record["calibration_crops"] > 0
    # Calibrated on what training saw: never a held-out set, font or hand by name.
    held_out = meta["held_out_sets"] + meta["held_out_fonts"] + meta["held_out_hands"]
    assert not any(name in record["calibration_sets"] for name in held_out)


def test_the_reader_runs_the_8_bit_copy_unless_told_not_to() -> None:
    assert BonusReader().quantised
    assert not BonusReader(quantised=False).quantised


def test_without_the_copy_beside_it_the_float_network_runs(tmp_path: Path) -> None:
    shutil.copy(COMMITTED, tmp_path / BONUS_FILE)
    assert not BonusReader(tmp_path / BONUS_FILE).quantised


def test_the_8_bit_reader_reads_rendered_bonus_tiles_as_the_float_one_does() -> None:
    """Camera-like crops of bonus faces in fonts neither network trained on: the same tiles
    named, the same likeliest kinds and numbers where the float one is sure of them, and
    probabilities within a tenth (0.06 and 0.07 at most when written, 0.004 on average)."""
    rng = np.random.default_rng(11)
    faces = bonus_faces(777, 48, HELD_OUT_FONTS)
    crops = [synthetic_crop(face, rng) for _, face in faces]
    int8 = BonusReader(temperatures=Temperatures())
    floats = BonusReader(temperatures=Temperatures(), quantised=False)
    kinds8, numbers8 = int8.probabilities(crops)
    kinds, numbers = floats.probabilities(crops)
    assert np.abs(kinds8 - kinds).max() < 0.1
    assert np.abs(numbers8 - numbers).max() < 0.1
    sure = kinds.max(axis=1) >= 0.6  # a near tie may fall either way
    assert sure.sum() >= len(crops) // 3
    assert (kinds8.argmax(axis=1) == kinds.argmax(axis=1))[sure].all()
    assert (numbers8.argmax(axis=1) == numbers.argmax(axis=1))[numbers.max(axis=1) >= 0.6].all()
    named = [r.label() for r in floats.read(crops)]
    assert sum(label == kind for label, (kind, _) in zip(named, faces, strict=True)) >= 12
    assert [r.label() for r in int8.read(crops)] == named


def test_the_8_bit_copys_temperatures_are_its_own(tmp_path: Path) -> None:
    onnx = tmp_path / BONUS_FILE
    shutil.copy(COMMITTED, onnx)
    shutil.copy(quantised_path(COMMITTED), quantised_path(onnx))
    meta = json.loads(COMMITTED.with_suffix(".json").read_text(encoding="utf-8"))
    meta["temperature"] = {"name": 2.0, "category": 1.0, "number": 1.0}
    meta["quantised"]["temperature"] = {"name": 0.5, "category": 1.5, "number": 1.0}
    onnx.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    assert BonusReader(onnx).temperatures == Temperatures(0.5, 1.5, 1.0)
    assert BonusReader(onnx, quantised=False).temperatures == Temperatures(2.0, 1.0, 1.0)
    meta["quantised"]["temperature"] = {"name": 0.0, "category": 1.0, "number": 1.0}
    onnx.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelError, match='"quantised".*name is 0.0, outside'):
        BonusReader(onnx)
