"""The bonus-tile reader taught in 8 bits: quantisation-aware training with torch's own fake
quantisation (``torch.ao.quantization``, eager mode), laid out as ONNX Runtime's static copy
runs it (bench/vision/quantize_embedder.py --network reader).

The copy keeps the first convolution and what follows the last convolution in floats, and
quantises the rest: weights per output channel (symmetric, signed 8 bits, the batch norm
folded in first), activations in unsigned 8 bits at ranges calibrated on training crops. So
here the first block stays a float block; the input of the second is fake-quantised (a
``QuantStub``), blocks two and three are fused convolution, batch norm and ReLU whose folded
weights and outputs are fake-quantised, and the last block's convolution and batch norm are
fused with its output fake-quantised before the ReLU (the copy quantises the convolution's
output and runs the ReLU in floats). Training such a network moves its weights to where
rounding them costs the reading least; the trained weights go back into a plain
:class:`BonusNet`, exported in floats, and ONNX Runtime's static quantisation makes the copy
from that export.
"""

from __future__ import annotations

import copy
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn
from torch.ao.nn.intrinsic.qat import freeze_bn_stats
from torch.ao.quantization import (
    DeQuantStub,
    FakeQuantize,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    QConfig,
    QuantStub,
    disable_observer,
    fuse_modules_qat,
    prepare_qat,
)

# As ONNX Runtime's copy: activations unsigned 8 bits over their whole range (no reduced
# range), weights signed 8 bits, symmetric, per output channel.
COPY_QCONFIG = QConfig(
    activation=partial(
        FakeQuantize,
        observer=MovingAverageMinMaxObserver,
        quant_min=0,
        quant_max=255,
        dtype=torch.quint8,
        qscheme=torch.per_tensor_affine,
    ),
    weight=partial(
        FakeQuantize,
        observer=MovingAveragePerChannelMinMaxObserver,
        quant_min=-127,
        quant_max=127,
        dtype=torch.qint8,
        qscheme=torch.per_channel_symmetric,
        ch_axis=0,
    ),
)

# The ranges follow the batches (moving averages) for this many steps of a run started from
# the float network, then stay: the weights settle on fixed ranges, as the copy's are fixed.
OBSERVED_STEPS = 300

# BonusNet.features: block, block, pool, block, pool, block (each block conv, bn, relu); the
# first block stays in floats, the last one's ReLU too. Indices within ``QatReader.body``
# (the features after the first block):
_FUSED_WITH_RELU = (0, 2)
_LAST = 4


class QatReader(nn.Module):
    """A :class:`BonusNet`'s layers with fake quantisation where the 8-bit copy quantises;
    the same logits out."""

    def __init__(self, features: nn.Sequential, kind: nn.Linear, number: nn.Linear) -> None:
        super().__init__()
        self.first = features[0]
        self.quant = QuantStub()
        self.body = nn.Sequential(*list(features)[1:])
        self.dequant = DeQuantStub()
        self.kind = kind
        self.number = number

    def train(self, mode: bool = True) -> QatReader:
        """As ``nn.Module.train``, but the first block's batch norm keeps its running
        statistics (the fused blocks' are frozen by :func:`prepare`): fine-tuning, the network
        trains as it runs."""
        super().train(mode)
        self.first[1].train(False)
        return self

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.dequant(self.body(self.quant(self.first(x)))).mean(dim=(2, 3))
        return self.kind(f), self.number(f)


def prepare(net: nn.Module) -> QatReader:
    """A copy of ``net`` (a float :class:`BonusNet`, trained) laid out for quantisation-aware
    training; its batch norms use their running statistics (fine-tuning a trained network:
    what the copy folds in is what it trains with)."""
    net = copy.deepcopy(net)
    model = QatReader(net.features, net.kind, net.number)
    for i in (*_FUSED_WITH_RELU, _LAST):
        block = model.body[i]
        if not isinstance(block, nn.Sequential) or not isinstance(block[0], nn.Conv2d):
            raise TypeError(f"not a BonusNet's convolution block: {block!r:.120}")
    model.train()
    groups = [[f"{i}.0", f"{i}.1", f"{i}.2"] for i in _FUSED_WITH_RELU]
    fuse_modules_qat(model.body, [*groups, [f"{_LAST}.0", f"{_LAST}.1"]], inplace=True)
    model.quant.qconfig = COPY_QCONFIG
    model.body.qconfig = COPY_QCONFIG
    # The last block's ReLU runs in floats, as the copy runs it.
    model.body[_LAST][2].qconfig = None
    prepare_qat(model, inplace=True)
    model.apply(freeze_bn_stats)
    return model


def imitation_loss(
    student: nn.Module, teacher: nn.Module, x: torch.Tensor
) -> tuple[torch.Tensor, float]:
    """How far ``student``'s two heads are from ``teacher``'s on ``x`` (each head's
    Kullback-Leibler divergence from the teacher's probabilities), and the share of crops whose
    likeliest kind they agree on: the copy learns to read what the float network reads, not
    the answers, so it keeps the float network's certainty on art neither saw."""
    with torch.no_grad():
        want_kind, want_number = teacher(x)
    kind, number = student(x)
    loss = sum(
        F.kl_div(
            F.log_softmax(got, 1), F.log_softmax(want, 1), reduction="batchmean", log_target=True
        )
        for got, want in ((kind, want_kind), (number, want_number))
    )
    return loss, float((kind.argmax(1) == want_kind.argmax(1)).float().mean())


def freeze_ranges(model: QatReader) -> None:
    """Stop the activation and weight ranges following the batches (kept as they stand)."""
    model.apply(disable_observer)


def to_float(model: QatReader, net: nn.Module) -> None:
    """Copy the trained weights of ``model`` into ``net`` (a :class:`BonusNet`, of the same
    shape), whose export in floats the 8-bit copy is quantised from."""
    with torch.no_grad():
        net.features[0].load_state_dict(model.first.state_dict())
        for i in (*_FUSED_WITH_RELU, _LAST):
            fused = model.body[i][0]
            block = net.features[i + 1]
            block[0].weight.copy_(fused.weight)
            block[1].load_state_dict(fused.bn.state_dict())
        net.kind.load_state_dict(model.kind.state_dict())
        net.number.load_state_dict(model.number.state_dict())
