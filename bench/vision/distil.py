"""Teaching a cheaper embedding network by the one that ships (train_embedding.py --teacher).

The teacher is an exported float network, run by ONNX Runtime on one thread (its weights
frozen: only its vectors are wanted); the student learns to give each crop the teacher's unit
vector. Recognition compares vectors with enrolled prototypes, so a student whose vectors
match the teacher's needs no new enrolment rules, only its prototypes embedded again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch


class Teacher:
    """An exported embedding network (BGR 0-255 crops in, unit vectors out) as a frozen
    target for training batches in [-1, 1]. ``both_ways``: the target of a crop is the unit
    sum of the network's vectors of it and of it turned upside down, the vector the embedder
    gives a crop by running it both ways up, so a student run once a crop speaks as that."""

    def __init__(self, onnx_path: Path, both_ways: bool = False) -> None:
        import onnxruntime

        if not onnx_path.exists():
            raise SystemExit(f"--teacher {onnx_path}: no such network")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the trainer's one thread: the machine is shared
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )
        self.input = self.session.get_inputs()[0].name
        self.path = onnx_path
        self.both_ways = both_ways

    def __call__(self, batch: torch.Tensor) -> torch.Tensor:
        """The teacher's unit vectors of network-input crops in [-1, 1] (NCHW)."""
        crops = ((batch.detach().numpy() + 1.0) * 127.5).astype(np.float32)
        if self.both_ways:
            crops = np.concatenate([crops, crops[:, :, ::-1, ::-1]])
        (out,) = self.session.run(None, {self.input: np.ascontiguousarray(crops)})
        out = out.reshape(len(crops), -1)
        if self.both_ways:
            n = len(out) // 2
            out = out[:n] + out[n:]
        return torch.from_numpy(out / np.linalg.norm(out, axis=1, keepdims=True))


def distil_loss(student: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """How far the student's unit vectors are from the teacher's: one less the mean cosine
    (half the mean squared distance between the two unit vectors)."""
    if student.shape != teacher.shape:
        raise ValueError(
            f"student vectors {tuple(student.shape)}, teacher's {tuple(teacher.shape)}"
        )
    return 1.0 - (student * teacher).sum(dim=1).mean()
