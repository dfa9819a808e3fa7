"""The bonus reader's hard negatives in training (bench/vision/train_bonus.py,
bonus_mining.py): weighted where they fall in a batch, and mined where the reader is surest of
a bonus tile. Training tools only: skipped where torch is not installed (`./dev setup
--training` installs it)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from bonus_data import KINDS, Faces  # noqa: E402
from bonus_mining import mine_hard_negatives  # noqa: E402
from train_bonus import batch, loss_of  # noqa: E402

from vision.bonus import NOT_BONUS  # noqa: E402

NONE = KINDS.index(NOT_BONUS)


def fake_pools(rng: np.random.Generator) -> dict[str, Faces]:
    """Pools of plain faces; the hard pool's answered 0 so that a test can find its crops."""

    def faces(answer: int, n: int) -> Faces:
        return [(answer, rng.integers(0, 255, (96, 72, 3), dtype=np.uint8)) for _ in range(n)]

    pools = {name: faces(1, 4) for name in ("fonts", "fonts_tiny", "sets_bonus", "drawn_bonus")}
    pools |= {"sets_other": faces(NONE, 4), "other": faces(NONE, 4), "hard": faces(0, 4)}
    return pools


def test_a_batch_weighs_the_hard_negatives_crops_and_only_them() -> None:
    pools = fake_pools(np.random.default_rng(1))
    x, y, w = batch(pools, np.random.default_rng(2), 40, soft=0.0, hard=0.25, hard_weight=3.0)
    assert x.shape[0] == y.shape[0] == w.shape[0] == 40
    assert int((y == 0).sum()) == 10
    assert torch.equal(w == 3.0, y == 0)
    assert bool((w[y != 0] == 1.0).all())


def test_no_hard_share_draws_the_batch_as_before() -> None:
    """With no hard share a batch is the crops drawn before hard negatives existed, seed for
    seed (a resumed run and the weights fitted at its start are unchanged)."""
    pools = fake_pools(np.random.default_rng(1))
    without = {k: v for k, v in pools.items() if k != "hard"}
    x1, y1, w1 = batch(pools, np.random.default_rng(5), 24, soft=0.1)
    x2, y2, _ = batch(without, np.random.default_rng(5), 24, soft=0.1)
    assert torch.equal(x1, x2) and torch.equal(y1, y2)
    assert bool((w1 == 1.0).all())


class BrightIsBonus(torch.nn.Module):
    """A reader sure of a bonus tile on bright crops and of none on dark ones."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        bright = x.mean(dim=(1, 2, 3))
        kind = torch.zeros(x.shape[0], len(KINDS))
        kind[:, 0] = 20 * bright
        kind[:, NONE] = -20 * bright
        return kind, torch.zeros(x.shape[0], 4)


def test_mining_keeps_the_faces_the_reader_is_surest_are_a_bonus_tile() -> None:
    dark = [(NONE, np.full((96, 72, 3), v, np.uint8)) for v in (10, 20, 30)]
    bright = [(NONE, np.full((96, 72, 3), v, np.uint8)) for v in (240, 250)]
    held_out = [(NONE, np.full((96, 72, 3), 255, np.uint8))]
    pools = {"sets_other": dark[:1] + bright[:1], "other": dark[1:] + bright[1:], "x": held_out}
    mined = mine_hard_negatives(BrightIsBonus(), pools, 2, np.random.default_rng(0))
    assert len(mined) == 2
    assert all(int(face.mean()) >= 200 for _, face in mined)
    assert not any(face is held_out[0][1] for _, face in mined)


def test_a_weighted_loss_counts_the_heavier_crops_more() -> None:
    net = BrightIsBonus()
    x = torch.cat([torch.full((1, 3, 64, 48), 0.9), torch.full((1, 3, 64, 48), -0.9)])
    y = torch.tensor([NONE, NONE])  # the first crop read wrongly as a bonus tile, the second not
    plain, _ = loss_of(net, x, y)  # type: ignore[arg-type]
    heavy, _ = loss_of(net, x, y, torch.tensor([3.0, 1.0]))  # type: ignore[arg-type]
    assert heavy > plain
