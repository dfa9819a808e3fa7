"""The bonus-tile reader's 8-bit copy (bench/vision/quantize_embedder.py --network reader):
run where it lies beside the float network, at its own temperatures. None is committed: the
one measured read fewer bonus tiles of the held-out sets (bench/vision/README.md, twenty-first
round), so these tests stand a copy of the float network in its place."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.bonus import BONUS_FILE, BonusReader, Temperatures
from vision.embedder import MODELS_DIR, ModelError, quantised_path
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

COMMITTED = MODELS_DIR / BONUS_FILE


def _reader_with_copy(tmp_path: Path, meta_changes: dict[str, object]) -> Path:
    """The committed reader in ``tmp_path`` with a stand-in "8-bit copy" beside it and
    ``meta_changes`` made to its ``.json``."""
    onnx = tmp_path / BONUS_FILE
    shutil.copy(COMMITTED, onnx)
    shutil.copy(COMMITTED, quantised_path(onnx))
    meta = json.loads(COMMITTED.with_suffix(".json").read_text(encoding="utf-8"))
    meta.update(meta_changes)
    onnx.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    return onnx


def test_the_copy_beside_the_network_is_run_unless_told_not_to(tmp_path: Path) -> None:
    onnx = _reader_with_copy(tmp_path, {})
    assert BonusReader(onnx).quantised
    assert not BonusReader(onnx, quantised=False).quantised
    quantised_path(onnx).unlink()
    assert not BonusReader(onnx).quantised


def test_the_committed_reader_runs_in_floats() -> None:
    assert not quantised_path(COMMITTED).exists()
    assert not BonusReader().quantised


def test_the_copy_reads_a_rendered_bonus_tile_as_the_file_it_is(tmp_path: Path) -> None:
    """The copy stood in by the float network reads as the float network does: what is run
    is the file beside it, through the same input and averaging."""
    rng = np.random.default_rng(3)
    crops = [synthetic_crop(load_set("kde-default")[k], rng) for k in ("F1", "S3", "5B")]
    floats = BonusReader(temperatures=Temperatures(), quantised=False)
    kinds, numbers = floats.probabilities(crops)
    assert [r.label() for r in floats.read(crops)][:2] == ["F1", "S3"]
    assert floats.read(crops)[2].kind == "not-bonus"
    copy = BonusReader(_reader_with_copy(tmp_path, {}), Temperatures())
    assert copy.quantised
    kinds8, numbers8 = copy.probabilities(crops)
    np.testing.assert_allclose(kinds8, kinds, atol=1e-5)
    np.testing.assert_allclose(numbers8, numbers, atol=1e-5)


def test_the_copys_temperatures_are_its_own(tmp_path: Path) -> None:
    onnx = _reader_with_copy(
        tmp_path,
        {
            "temperature": {"name": 2.0, "category": 1.0, "number": 1.0},
            "quantised": {"temperature": {"name": 0.5, "category": 1.5, "number": 1.0}},
        },
    )
    assert BonusReader(onnx).temperatures == Temperatures(0.5, 1.5, 1.0)
    assert BonusReader(onnx, quantised=False).temperatures == Temperatures(2.0, 1.0, 1.0)
    onnx = _reader_with_copy(tmp_path, {"quantised": {"file": "bonus_read.int8.onnx"}})
    assert BonusReader(onnx).temperatures == Temperatures()


@pytest.mark.parametrize(
    ("record", "named"),
    [
        ({"temperature": {"name": 0.0, "category": 1.0, "number": 1.0}}, "name is 0.0, outside"),
        ("bonus_read.int8.onnx", "not a JSON object"),
    ],
)
def test_a_malformed_copys_record_is_refused_by_name(
    tmp_path: Path, record: object, named: str
) -> None:
    onnx = _reader_with_copy(tmp_path, {"quantised": record})
    with pytest.raises(ModelError) as refused:
        BonusReader(onnx)
    assert f'{onnx.with_suffix(".json")} "quantised"' in str(refused.value)
    assert named in str(refused.value)
