"""The episodic loss (bench/vision/episode_training.py) scores a query as the recogniser does:
each kind by its nearest support prototype. Training tools only: skipped without torch."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from episode_training import (  # noqa: E402
    NO_PROTOTYPE,
    EpisodeCrops,
    episode_loss,
    kind_scores,
    scene_choices,
    scene_queries,
)
from episodes import training_sets  # noqa: E402

HOLD_OUT = ["xmj-real", "kde-traditional", "gnome-smooth"]


def _unit(*rows: list[float]) -> torch.Tensor:
    return torch.nn.functional.normalize(torch.tensor(rows, dtype=torch.float32), dim=1)


def test_each_kind_scores_its_nearest_prototype_and_absent_kinds_never_win() -> None:
    support = _unit([1, 0, 0], [0.6, 0.8, 0], [0, 1, 0], [0, 0, 1])
    labels = torch.tensor([0, 0, 1, 2])
    query = _unit([0.6, 0.8, 0])
    scores = kind_scores(support, labels, query, kinds=4)
    assert scores[0, 0] == pytest.approx(1.0)  # the second prototype of kind 0, not the first
    assert scores[0, 1] == pytest.approx(0.8)
    assert scores[0, 2] == pytest.approx(0.0, abs=1e-6)
    assert scores[0, 3] == NO_PROTOTYPE


def test_the_loss_is_low_when_a_query_is_nearest_its_own_kind_and_reaches_the_support() -> None:
    support = _unit([1, 0, 0], [0, 1, 0], [0, 0, 1]).requires_grad_()
    labels = torch.tensor([0, 1, 2, 0, 1])
    right, share = episode_loss(
        torch.cat([support, _unit([0.9, 0.1, 0], [0.1, 0.9, 0])]), labels, 3, 5, 43.0
    )
    wrong, none = episode_loss(
        torch.cat([support, _unit([0.1, 0.9, 0], [0.9, 0.1, 0])]), labels, 3, 5, 43.0
    )
    assert share == 1.0 and none == 0.0
    assert float(right.detach()) < 0.01 < 10 < float(wrong.detach())
    wrong.backward()
    assert support.grad is not None and float(support.grad.abs().sum()) > 0


def test_scene_queries_come_from_sets_outside_the_support() -> None:
    labels = np.array([0, 1, 0, 1, 2, 0])
    sets = np.array(["kde-jade", "kde-jade", "symbola", "symbola", "kde-classic", "kde-classic"])
    among = scene_choices(labels, sets, {"kde-jade"}, {0, 1})
    assert list(among) == [2, 3, 5]  # outside kde-jade; kind 2 has no prototype
    assert list(scene_choices(labels, sets, {"symbola", "kde-classic"}, {0})) == [0]
    crops = np.stack([np.full((64, 48, 3), 40 * v, np.uint8) for v in range(6)])
    xs, ys = scene_queries(
        (crops, labels, sets), np.random.default_rng(0), 50, {"kde-jade"}, {0, 1}
    )
    assert xs.shape[0] == 50 and set(ys.tolist()) == {0, 1}


def test_an_episode_batch_puts_the_support_first() -> None:
    pools = training_sets([], 0, 4, HOLD_OUT)
    episodes = iter(EpisodeCrops(pools, HOLD_OUT, (2, 1, 6), None, 7, 0, lambda: 0.5))
    xs, ys, n_support = next(episodes)
    assert n_support >= 2 * 43  # every face of two sets
    assert len(xs) == len(ys) == n_support + 6
    assert set(ys[n_support:].tolist()) <= set(ys[:n_support].tolist())
