"""A narrower network's starting weights cut from a wider one's (train_embedding.py --teacher).

A student of the teacher's layout with fewer channels a block starts from the teacher's own
channels rather than from random weights: in each block the channels that carry the most
into the next layer are kept (their mean output on camera-like crops times the norm of the
next layer's weights on them), the rest dropped, and the embedding's linear layer fitted again
by least squares to the teacher's on the narrowed features. Blocks of the teacher's width
keep every channel, so a student as wide as the teacher starts as the teacher.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

Folded = list[tuple[np.ndarray, np.ndarray]]  # each convolution's (weight, bias), batch norm in


def run_blocks(
    folded: Folded, strides: list[int], pool_after: int, x: torch.Tensor
) -> list[torch.Tensor]:
    """Every block's output (convolution, ReLU; 2 x 2 max pooling after block ``pool_after``)
    for network input ``x`` in [-1, 1]."""
    outs = []
    with torch.no_grad():
        for k, ((weight, bias), stride) in enumerate(zip(folded, strides, strict=True)):
            x = F.relu(F.conv2d(x, torch.tensor(weight), torch.tensor(bias), stride, padding=1))
            outs.append(x)
            if k == pool_after:
                x = F.max_pool2d(x, 2)
    return outs


def kept_channels(activity: np.ndarray, onward: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` channels carrying most onward (mean output ``activity`` times the norm
    ``onward`` of the next layer's weights on each), in their order."""
    if not 0 < count <= len(activity):
        raise ValueError(f"keep {count} channels of {len(activity)}")
    return np.sort(np.argsort(-(activity * onward), kind="stable")[:count])


def narrowed(
    folded: Folded,
    embed: tuple[np.ndarray, np.ndarray],
    widths: tuple[int, ...],
    strides: list[int],
    pool_after: int,
    calibration: torch.Tensor,
) -> tuple[Folded, tuple[np.ndarray, np.ndarray]]:
    """The teacher's convolutions (``folded``) and embedding layer (``embed``: weight, bias)
    cut to ``widths`` output channels a block, the embedding fitted again; ``calibration`` is
    network input in [-1, 1]."""
    if len(widths) != len(folded):
        raise ValueError(f"{len(widths)} widths for {len(folded)} convolutions")
    outs = run_blocks(folded, strides, pool_after, calibration)
    keeps = []
    for k, (width, out) in enumerate(zip(widths, outs, strict=True)):
        onward = folded[k + 1][0] if k + 1 < len(folded) else embed[0][:, :, None, None]
        norms = np.sqrt(np.square(onward).sum(axis=(0, 2, 3)))
        keeps.append(kept_channels(out.mean(dim=(0, 2, 3)).numpy(), norms, width))
    cut: Folded = []
    before = np.arange(folded[0][0].shape[1])  # the crop's three colours
    for (weight, bias), keep in zip(folded, keeps, strict=True):
        cut.append((weight[keep][:, before].copy(), bias[keep].copy()))
        before = keep
    pooled = run_blocks(cut, strides, pool_after, calibration)[-1].mean(dim=(2, 3)).numpy()
    target = run_blocks(folded, strides, pool_after, calibration)[-1].mean(dim=(2, 3)).numpy()
    target = target @ embed[0].T + embed[1]
    return cut, refit_linear(pooled, target)


def refit_linear(x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The linear layer (weight, bias) that maps ``x`` nearest ``target`` by least squares."""
    design = np.hstack([x, np.ones((len(x), 1), x.dtype)]).astype(np.float64)
    solution, *_ = np.linalg.lstsq(design, target.astype(np.float64), rcond=None)
    return solution[:-1].T.astype(np.float32), solution[-1].astype(np.float32)
