"""The embedding's training checkpoint: enough to continue a run where it stopped.

Weights, optimiser (AdamW's moments), the step, the seconds of the schedule spent and its
length (the learning rate's cosine and the crops' damage follow it), the seed (the crops of a
resumed run are drawn from the seed and the step it resumes at) and torch's own RNG state.
Written to a temporary file and renamed, so a run killed while saving leaves the last one.
A finished run's checkpoint can start a schedule of its own (:func:`restarted`).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn


@dataclass
class Checkpoint:
    step: int
    elapsed: float  # seconds of the schedule spent
    minutes: float  # the schedule's length
    seed: int
    losses: list[float] = field(default_factory=list)  # the most recent


@dataclass
class Resumed:
    run: Checkpoint
    net: dict[str, Any]
    optimiser: dict[str, Any]


def save_checkpoint(
    path: Path, net: nn.Module, opt: torch.optim.Optimizer, run: Checkpoint
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "run": asdict(run),
        "net": net.state_dict(),
        "optimiser": opt.state_dict(),
        "torch_rng": torch.get_rng_state(),
    }
    partial = path.with_name(path.name + ".partial")
    torch.save(state, partial)
    os.replace(partial, path)
    print(f"checkpoint {path} at step {run.step}", flush=True)


def restarted(run: Checkpoint, minutes: float) -> Checkpoint:
    """``run`` on a schedule of its own (a warm restart): the step count, seed and recent
    losses carry on, the learning rate's cosine and the crops' damage start again over
    ``minutes``. A run resumed later from the restarted one continues the new schedule."""
    return Checkpoint(
        step=run.step, elapsed=0.0, minutes=minutes, seed=run.seed, losses=list(run.losses)
    )


def load_checkpoint(path: Path) -> Resumed:
    if not path.exists():
        raise SystemExit(f"--resume {path}: no such checkpoint")
    state = torch.load(path, weights_only=False)
    torch.set_rng_state(state["torch_rng"])
    return Resumed(Checkpoint(**state["run"]), state["net"], state["optimiser"])
