"""The bonus-tile reader's temperatures (vision/bonus.py ``Temperatures``): stored in the
network's ``.json``, loaded with it, applied to each part of its probabilities, and a
malformed one refused by name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.bonus import BONUS_FILE, BonusReader, Temperatures, reading_from
from vision.embedder import MODELS_DIR, ModelError
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

COMMITTED = MODELS_DIR / BONUS_FILE


def _network_with(tmp_path: Path, temperature: object) -> Path:
    """A copy of the committed reader whose ``.json`` stores ``temperature``."""
    onnx = tmp_path / BONUS_FILE
    shutil.copy(COMMITTED, onnx)
    meta = json.loads(COMMITTED.with_suffix(".json").read_text(encoding="utf-8"))
    meta["temperature"] = temperature
    onnx.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    return onnx


def _crops() -> list[np.ndarray]:
    rng = np.random.default_rng(8)
    faces = load_set("gnome-smooth")
    return [synthetic_crop(faces[k], rng) for k in ("F1", "S3", "5D", "RD")]


def test_a_stored_temperature_is_loaded_and_applied_to_every_reading(tmp_path: Path) -> None:
    stored = {"name": 0.5, "category": 2.0, "number": 0.8, "fitted on": {"crops": 10}}
    onnx = _network_with(tmp_path, stored)
    reader = BonusReader(onnx)
    assert reader.temperatures == Temperatures(0.5, 2.0, 0.8)
    raw = BonusReader(onnx, Temperatures())
    crops = _crops()
    kinds, numbers = raw.probabilities(crops)
    warmed = reader.temperatures.apply(kinds, numbers)
    for reading, k, m in zip(reader.read(crops), *warmed, strict=True):
        assert reading == reading_from(k, m)
    # The network's own probabilities are read otherwise.
    assert reader.read(crops) != raw.read(crops)


def test_each_part_is_softened_or_sharpened_by_its_own_temperature() -> None:
    kinds = np.array([[0.5, 0.2, 0.05, 0.05, 0.05, 0.05, 0.05, 0.03, 0.02]], np.float32)
    numbers = np.array([[0.6, 0.2, 0.1, 0.1]], np.float32)
    bonus = 0.98
    # The name: the eight's shares sharpen, the bonus probability and the numbers stay.
    k, m = Temperatures(name=0.5).apply(kinds, numbers)
    shares = kinds[0, :8] ** 2 / (kinds[0, :8] ** 2).sum()
    np.testing.assert_allclose(k[0, :8], bonus * shares, rtol=1e-5)
    np.testing.assert_allclose(k[0, 8], 0.02, rtol=1e-4)
    np.testing.assert_allclose(m, numbers, rtol=1e-5)
    # Some bonus tile or none: its log-odds halved, the shares among the eight kept.
    k, _ = Temperatures(category=2.0).apply(kinds, numbers)
    odds = np.log(bonus / (1 - bonus)) / 2
    np.testing.assert_allclose(k[0, :8].sum(), 1 / (1 + np.exp(-odds)), rtol=1e-5)
    np.testing.assert_allclose(k[0, :8] / k[0, :8].sum(), kinds[0, :8] / bonus, rtol=1e-5)
    # The number alone.
    k, m = Temperatures(number=2.0).apply(kinds, numbers)
    np.testing.assert_allclose(m[0], np.sqrt(numbers[0]) / np.sqrt(numbers[0]).sum(), rtol=1e-5)
    np.testing.assert_allclose(k, kinds, rtol=1e-5)
    # All 1: the network's own; the rows still sum to 1 at any temperature.
    k, m = Temperatures().apply(kinds, numbers)
    assert k is kinds and m is numbers
    k, m = Temperatures(0.3, 3.0, 0.7).apply(kinds, numbers)
    np.testing.assert_allclose([k.sum(), m.sum()], [1.0, 1.0], rtol=1e-5)


def test_a_sharper_name_reaches_the_bar_a_softer_one_does_not() -> None:
    kinds = np.array([[0.7, 0.1, 0.04, 0.04, 0.04, 0.03, 0.02, 0.02, 0.01]], np.float32)
    numbers = np.array([[0.9, 0.05, 0.03, 0.02]], np.float32)
    assert reading_from(kinds[0], numbers[0]).label() is None  # 0.7 < 0.8
    k, m = Temperatures(name=0.6).apply(kinds, numbers)
    assert reading_from(k[0], m[0]).label() == "F1"
    k, m = Temperatures(name=1.5).apply(kinds, numbers)
    assert reading_from(k[0], m[0]).best_bonus_share < 0.7


def test_a_network_without_a_temperature_reads_its_own_probabilities(tmp_path: Path) -> None:
    onnx = tmp_path / BONUS_FILE
    shutil.copy(COMMITTED, onnx)  # no .json at all
    assert BonusReader(onnx).temperatures == Temperatures()
    meta = json.loads(COMMITTED.with_suffix(".json").read_text(encoding="utf-8"))
    meta.pop("temperature", None)
    onnx.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    assert BonusReader(onnx).temperatures == Temperatures()


@pytest.mark.parametrize(
    ("temperature", "named"),
    [
        ("warm", '"temperature" is'),
        ([1.0, 1.0, 1.0], '"temperature" is'),
        ({"name": 1.0, "category": 1.0}, '"temperature" number is None'),
        ({"name": "0.5", "category": 1.0, "number": 1.0}, '"temperature" name is'),
        ({"name": True, "category": 1.0, "number": 1.0}, '"temperature" name is True'),
        ({"name": 1.0, "category": 0.0, "number": 1.0}, "category is 0.0, outside"),
        ({"name": 1.0, "category": 1.0, "number": -2}, "number is -2, outside"),
        ({"name": float("nan"), "category": 1.0, "number": 1.0}, "name is nan, outside"),
    ],
)
def test_a_malformed_temperature_is_refused_by_name(
    tmp_path: Path, temperature: object, named: str
) -> None:
    onnx = _network_with(tmp_path, temperature)
    with pytest.raises(ModelError) as refused:
        BonusReader(onnx)
    assert str(onnx.with_suffix(".json")) in str(refused.value)
    assert named in str(refused.value)


def test_an_unreadable_json_is_refused_by_name(tmp_path: Path) -> None:
    onnx = _network_with(tmp_path, None)
    onnx.with_suffix(".json").write_text('{"temperature": {', encoding="utf-8")
    with pytest.raises(ModelError, match="not readable JSON"):
        BonusReader(onnx)
    onnx.with_suffix(".json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ModelError, match="not a JSON object"):
        BonusReader(onnx)


def test_the_committed_reader_reads_at_its_stored_temperature() -> None:
    meta = json.loads(COMMITTED.with_suffix(".json").read_text(encoding="utf-8"))
    stored = meta.get("temperature")
    expected = (
        Temperatures()
        if stored is None
        else Temperatures(stored["name"], stored["category"], stored["number"])
    )
    assert BonusReader().temperatures == expected
