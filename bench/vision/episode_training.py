"""The episodic loss and its batches (episodes.py draws the episodes).

A batch is an episode's support crops first, then its queries: rendered crops of the query
sets and, when given, finder-cut scene crops of sets outside the support. Each kind's score
for a query is its best cosine similarity to that kind's support prototypes, as
vision/identify.py scores a crop against the bundled prototypes, and the loss is the softmax
cross-entropy of those scores at the recogniser's scale (the bundle's fitted temperature is
about 0.023, a scale of about 43).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F
from episodes import FaceSet, draw_episode, render_crops, vary_scene_crops

RECOGNISER_SCALE = 43.0  # 1 / the bundled model's fitted temperature (0.0232)
NO_PROTOTYPE = -1e4  # a kind the support lacks: never the answer


def kind_scores(
    support: torch.Tensor, support_labels: torch.Tensor, queries: torch.Tensor, kinds: int
) -> torch.Tensor:
    """Per query and kind, the best cosine similarity to that kind's support vectors
    (NO_PROTOTYPE where the support has none)."""
    cos = queries @ support.T
    index = support_labels.unsqueeze(0).expand(len(queries), -1)
    scores = torch.full((len(queries), kinds), NO_PROTOTYPE, dtype=cos.dtype)
    return scores.scatter_reduce(1, index, cos, reduce="amax", include_self=True)


def episode_loss(
    emb: torch.Tensor, labels: torch.Tensor, n_support: int, kinds: int, scale: float
) -> tuple[torch.Tensor, float]:
    """The queries' softmax cross-entropy over kinds scored against the support (the first
    ``n_support`` rows), and the share of queries named right."""
    scores = kind_scores(emb[:n_support], labels[:n_support], emb[n_support:], kinds)
    target = labels[n_support:]
    loss = F.cross_entropy(scale * scores, target)
    right = float((scores.argmax(1) == target).float().mean())
    return loss, right


Scene = tuple[np.ndarray, np.ndarray, np.ndarray]  # crops, labels, set names


def scene_queries(
    scene: Scene, rng: np.random.Generator, size: int, support_sets: set[str], kinds: set[int]
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` finder-cut crops of sets outside the support, of kinds the support has, lightly
    varied as in the classification batches (returns network input and labels)."""
    crops, labels, sets = scene
    among = scene_choices(labels, sets, support_sets, kinds)
    return vary_scene_crops(crops, labels, rng, size, among=among)


def scene_choices(
    labels: np.ndarray, sets: np.ndarray, support_sets: set[str], kinds: set[int]
) -> np.ndarray:
    """The indices of scene crops a query may be: of a set outside the support, and of a kind
    the support has."""
    return np.flatnonzero(~np.isin(sets, list(support_sets)) & np.isin(labels, list(kinds)))


class EpisodeCrops(torch.utils.data.IterableDataset[tuple[torch.Tensor, torch.Tensor, int]]):
    """Endless episodes as (crops, labels, number of support crops): the support first, then
    the queries. ``strength`` gives the crops' damage from the schedule's progress."""

    def __init__(
        self,
        pools: tuple[list[FaceSet], list[FaceSet]],
        hold_out: list[str],
        shape: tuple[int, int, int],  # support sets, query sets, rendered queries
        scene: tuple[Scene, int] | None,  # scene crops and how many queries they give
        seed: int,
        first_step: int,
        strength: Callable[[], float],
    ) -> None:
        self.pools, self.hold_out, self.shape, self.scene = pools, hold_out, shape, scene
        self.seed, self.first_step, self.strength = seed, first_step, strength

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor, int]]:
        info = torch.utils.data.get_worker_info()
        # Seeded apart from the classification batches' stream (the 1 in the seed).
        rng = np.random.default_rng([self.seed, 1, info.id if info else 0, self.first_step])
        support_sets, query_sets, queries = self.shape
        while True:
            episode = draw_episode(
                *self.pools, rng, self.hold_out, support_sets, query_sets, queries
            )
            faces = [(lab, f) for _, lab, f in episode.support + episode.queries]
            xs, ys = render_crops(faces, rng, self.strength())
            if self.scene is not None:
                kinds = {lab for _, lab, _ in episode.support}
                scene, size = self.scene
                sx, sy = scene_queries(scene, rng, size, episode.support_sets, kinds)
                xs, ys = np.concatenate([xs, sx]), np.concatenate([ys, sy])
            yield torch.from_numpy(xs), torch.from_numpy(ys), len(episode.support)


def add_episode_arguments(parser: argparse.ArgumentParser) -> None:
    """train_embedding.py's options for episodes."""
    parser.add_argument(
        "--episodes",
        action="store_true",
        help="train on episodes (episodes.py): queries against prototypes of other sets",
    )
    parser.add_argument("--episode-weight", type=float, default=1.0)
    parser.add_argument(
        "--cosface-weight",
        type=float,
        default=1.0,
        help="weight of the cosine-margin loss on learned class weights (with --episodes: "
        "on the episode's crops)",
    )
    parser.add_argument("--support-sets", type=int, default=3, help="an episode's prototype sets")
    parser.add_argument("--query-sets", type=int, default=2, help="an episode's query sets")
    parser.add_argument(
        "--queries", type=int, default=48, help="queries an episode (a third scene crops)"
    )
    parser.add_argument(
        "--episode-scale", type=float, default=RECOGNISER_SCALE, help="the softmax's scale"
    )
