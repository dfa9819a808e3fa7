"""Mined hard negatives for the bonus-tile reader's training (bench/vision/train_bonus.py).

The faces of the training sets that are not bonus tiles, each seen as a few camera-like crops
at the table camera's 18-28 px (bonus_data.crops_of), scored by the reader training starts
from: the faces it is surest are some bonus tile (its highest share of probability off "no
bonus tile" over their crops) are the ones it must learn to call none with confidence. Only
the training pools are mined ("sets_other" and "other"), never a held-out set or font.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from bonus_data import KINDS, NOT_BONUS, Faces, crops_of
from torch import nn

MINED_POOLS = ("sets_other", "other")
CROPS_A_FACE = 3
_BATCH = 256


def bonus_probability(net: nn.Module, crops: np.ndarray) -> np.ndarray:
    """Each crop's (BGR 0-255) probability of being some bonus tile under ``net`` (a
    train_bonus.BonusNet) in evaluation mode."""
    was_training = net.training
    net.eval()
    none = KINDS.index(NOT_BONUS)
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), _BATCH):
            x = torch.from_numpy(crops[i : i + _BATCH] / 127.5 - 1.0).float()
            kind, _ = net(x)
            out.append(1.0 - F.softmax(kind, dim=1)[:, none].numpy())
    net.train(was_training)
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def scored_faces(
    net: nn.Module, faces: Faces, rng: np.random.Generator, crops: int = CROPS_A_FACE
) -> np.ndarray:
    """Each face's highest bonus probability over ``crops`` fresh crops of it."""
    worst = np.zeros(len(faces), np.float32)
    for _ in range(crops):
        xs = np.stack([crops_of([face], rng, 1, narrow=1.0)[0][0] for face in faces])
        worst = np.maximum(worst, bonus_probability(net, xs))
    return worst


def mine_hard_negatives(
    net: nn.Module, pools: dict[str, Faces], count: int, rng: np.random.Generator
) -> Faces:
    """The ``count`` faces of the training pools' non-bonus faces ``net`` is surest are a bonus
    tile."""
    faces = [face for name in MINED_POOLS for face in pools[name]]
    scores = scored_faces(net, faces, rng)
    order = np.argsort(-scores)[:count]
    if len(order):
        low, high = scores[order[-1]], scores[order[0]]
        print(f"mined {len(order)} of {len(faces)}: bonus probability {high:.3f}-{low:.3f}")
    return [faces[int(i)] for i in order]
