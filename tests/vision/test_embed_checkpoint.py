"""The embedding's training checkpoint (bench/vision/embed_checkpoint.py) carries a run over:
a resumed run continues the step count, the schedule and the optimiser's moments. Training
tools only: skipped where torch is not installed (`./dev setup --training` installs it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from embed_checkpoint import Checkpoint, load_checkpoint, save_checkpoint  # noqa: E402


def _step(net: torch.nn.Module, opt: torch.optim.Optimizer) -> None:
    loss = net(torch.ones(4, 3)).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()


def test_a_resumed_run_continues_where_the_checkpoint_left_it(tmp_path: Path) -> None:
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
    for _ in range(3):
        _step(net, opt)
    run = Checkpoint(step=3, elapsed=42.5, minutes=50.0, seed=17, losses=[0.9, 0.8])
    path = tmp_path / "checkpoint.pt"
    save_checkpoint(path, net, opt, run)
    _step(net, opt)  # what the run did after its last checkpoint is lost with it
    expected = net.state_dict()["weight"].clone()

    resumed = load_checkpoint(path)
    assert (resumed.run.step, resumed.run.elapsed, resumed.run.minutes) == (3, 42.5, 50.0)
    assert resumed.run.seed == 17 and resumed.run.losses == [0.9, 0.8]
    again = torch.nn.Linear(3, 2)
    again_opt = torch.optim.AdamW(again.parameters(), lr=1e-2)
    again.load_state_dict(resumed.net)
    again_opt.load_state_dict(resumed.optimiser)
    assert again_opt.state_dict()["state"][0]["step"] == 3  # AdamW's own count came back
    _step(again, again_opt)
    assert torch.allclose(again.state_dict()["weight"], expected)  # the same fourth step
    assert not path.with_name(path.name + ".partial").exists()


def test_resuming_a_missing_checkpoint_names_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no such checkpoint"):
        load_checkpoint(tmp_path / "none.pt")


def test_a_restarted_schedule_keeps_the_count_and_starts_the_cosine_again() -> None:
    from embed_checkpoint import restarted

    finished = Checkpoint(step=11_697, elapsed=3000.0, minutes=50.0, seed=17, losses=[0.5])
    run = restarted(finished, 55.0)
    assert (run.step, run.elapsed, run.minutes, run.seed) == (11_697, 0.0, 55.0, 17)
    assert run.losses == [0.5] and run.losses is not finished.losses
    assert finished.elapsed == 3000.0  # the finished run's record is left as it was


def test_rare_kinds_are_drawn_as_often_as_asked() -> None:
    import numpy as np
    from train_embedding import RARE_KINDS, face_weights

    from vision.labels import LABELS

    faces = [(LABELS.index(label), np.zeros(1)) for label in ("1B", "RD", "F1", "BLANK")]
    assert face_weights(faces, 1.0) is None  # drawn as before, the same crops from a seed
    weights = face_weights(faces, 2.0)
    assert weights is not None
    assert list(weights) == pytest.approx([1 / 6, 1 / 6, 2 / 6, 2 / 6])
    assert {LABELS[k] for k in RARE_KINDS} == {
        "F1",
        "F2",
        "F3",
        "F4",
        "S1",
        "S2",
        "S3",
        "S4",
        "J",
        "BLANK",
        "BACK",
    }
