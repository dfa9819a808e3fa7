"""The bonus gate's bars as stored beside the models (vision/models/gate_bars.json): chosen
with the networks committed beside them, loaded by every recogniser, and a damaged file
answered by name."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from vision.bonus import BONUS_FILE, BonusReader, Temperatures
from vision.bonus_gate import BARS_FILE, GateBars, default_bars
from vision.embedder import MODELS_DIR, ModelError
from vision.identify import DEFAULT_MODEL_DIR, Recogniser

STORED = MODELS_DIR / BARS_FILE


def test_the_stored_bars_were_chosen_with_the_committed_networks() -> None:
    """A network retrained (the embedding, its bundled prototypes, the reader) moves its
    scores: the bars must be chosen again with it."""
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    for name, digest in stored["networks"].items():
        now = hashlib.sha256((MODELS_DIR / name).read_bytes()).hexdigest()[:16]
        assert now == digest, (
            f"vision/models/{name} changed since the gate's bars were chosen: run "
            "`.venv/bin/python bench/vision/choose_bars.py` and commit vision/models/gate_bars.json"
        )
    assert {"tile_embed.onnx", "bonus_read.onnx", "default/prototypes.npz"} <= set(
        stored["networks"]
    )


def test_the_stored_bars_were_chosen_at_the_readers_temperatures() -> None:
    """The reader's temperatures move the probabilities the bars are set against (bars
    chosen before temperatures were stored saw the network's own: all 1)."""
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    chosen_at = Temperatures(**stored.get("reader temperatures", {}))
    assert chosen_at == BonusReader(MODELS_DIR / BONUS_FILE).temperatures, (
        "the reader's temperatures changed since the gate's bars were chosen: run "
        "`.venv/bin/python bench/vision/choose_bars.py` and commit vision/models/gate_bars.json"
    )


def test_every_recogniser_decides_with_the_stored_bars() -> None:
    bars = GateBars.from_file(STORED)
    assert default_bars() == bars
    assert Recogniser.load(DEFAULT_MODEL_DIR).bars == bars
    # The reading by parts is held to a stricter bar than the name.
    assert bars.fused_sure > bars.read_sure


def test_a_bar_the_file_does_not_name_keeps_its_default(tmp_path: Path) -> None:
    path = tmp_path / BARS_FILE
    path.write_text(json.dumps({"bars": {"side_margin": 2.5}}), encoding="utf-8")
    assert GateBars.from_file(path) == GateBars(side_margin=2.5)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("{not json", "not readable JSON"),
        ("[1, 2]", 'no "bars" object'),
        ('{"bars": {"side_margn": 2.0}}', "unknown bars side_margn"),
        ('{"bars": {"side_margin": "2"}}', "bar side_margin is '2', not a number"),
        ('{"bars": {"read_sure": true}}', "bar read_sure is True, not a number"),
    ],
)
def test_a_damaged_bars_file_is_answered_by_name(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / BARS_FILE
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as raised:
        GateBars.from_file(path)
    assert str(path) in str(raised.value)
    assert named in str(raised.value)
