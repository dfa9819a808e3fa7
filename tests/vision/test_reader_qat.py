"""The bonus-tile reader laid out for quantisation-aware training (bench/vision/reader_qat.py):
the same network, fake-quantised where ONNX Runtime's 8-bit copy quantises, and its trained
weights carried back into the float network the copy is made from. Training tools only:
skipped where torch is not installed (`./dev setup --training` installs it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from reader_qat import freeze_ranges, prepare, to_float  # noqa: E402
from torch.ao.quantization import FakeQuantize, disable_fake_quant  # noqa: E402
from train_bonus import BonusNet, starting_point  # noqa: E402


def _trained_like() -> BonusNet:
    """A BonusNet with batch norms that are not the identity, as a trained one's."""
    torch.manual_seed(4)
    net = BonusNet()
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
    return net.eval()


def _crops(seed: int = 0) -> torch.Tensor:
    return torch.rand(6, 3, 64, 48, generator=torch.Generator().manual_seed(seed)) * 2 - 1


def test_without_its_rounding_the_layout_is_the_network() -> None:
    net = _trained_like()
    model = prepare(net).eval()
    model.apply(disable_fake_quant)
    kind, number = model(_crops())
    want_kind, want_number = net(_crops())
    torch.testing.assert_close(kind, want_kind, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(number, want_number, atol=1e-4, rtol=1e-4)


def test_the_copys_float_parts_are_not_rounded_and_the_rest_is() -> None:
    model = prepare(_trained_like())
    rounded = {name for name, m in model.named_modules() if isinstance(m, FakeQuantize)}
    assert not any(name.startswith(("first", "kind", "number")) for name in rounded)
    # The input of the second block; three convolutions' weights and outputs, the last one's
    # before its ReLU, which stays in floats as the copy runs it.
    assert "quant.activation_post_process" in rounded
    for block in ("body.0.0", "body.2.0", "body.4.0"):
        assert {f"{block}.weight_fake_quant", f"{block}.activation_post_process"} <= rounded
    assert not hasattr(model.body[4][2], "activation_post_process")


def test_the_weights_are_rounded_to_8_bits_per_channel() -> None:
    model = prepare(_trained_like())
    model(_crops())
    conv = model.body[2][0]
    scale = conv.weight_fake_quant.scale
    assert scale.shape == (conv.out_channels,)
    rounded = conv.weight_fake_quant(conv.weight.detach())
    steps = rounded / scale[:, None, None, None]
    torch.testing.assert_close(steps, steps.round(), atol=1e-3, rtol=0)
    assert steps.round().abs().max() <= 127


def test_fixed_ranges_stay_while_the_batches_change() -> None:
    model = prepare(_trained_like())
    model(_crops())
    freeze_ranges(model)
    before = model.body[0][0].activation_post_process.scale.clone()
    model(_crops(1) * 3)
    torch.testing.assert_close(model.body[0][0].activation_post_process.scale, before)


def test_trained_weights_go_back_into_the_float_network() -> None:
    """A step of training moves the layout's weights; the float network they are carried into
    computes what the layout computes without its rounding."""
    net = _trained_like()
    model = prepare(net)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    kind, number = model(_crops())
    (kind.logsumexp(1).mean() + number.square().mean()).backward()
    opt.step()
    model.eval()
    model.apply(disable_fake_quant)
    want = model(_crops(2))
    back = BonusNet().eval()
    to_float(model, back)
    got = back(_crops(2))
    assert not torch.allclose(got[0], net(_crops(2))[0], atol=1e-3)
    torch.testing.assert_close(got[0], want[0], atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(got[1], want[1], atol=1e-4, rtol=1e-4)


def test_a_network_of_another_shape_is_refused() -> None:
    net = _trained_like()
    net.features[5] = torch.nn.Identity()  # type: ignore[assignment]
    with pytest.raises(TypeError, match="not a BonusNet's convolution block"):
        prepare(net)


def test_training_for_8_bits_resumes_only_its_own_checkpoint(tmp_path: Path) -> None:
    """A float checkpoint resumed with --qat (or the reverse) would load weights into the
    wrong layout: refused, naming the file."""
    net = BonusNet()
    opt = torch.optim.AdamW(net.parameters())
    checkpoint = tmp_path / "checkpoint.pt"
    torch.save(
        {"net": net.state_dict(), "opt": opt.state_dict(), "step": 1, "seconds": 60.0}, checkpoint
    )
    args = argparse.Namespace(checkpoint=checkpoint, init=None, qat=True, mine=0, seed=1)
    with pytest.raises(SystemExit, match=f"{checkpoint}: a float checkpoint"):
        starting_point(args, {})
    model = prepare(net)
    opt = torch.optim.AdamW(model.parameters())
    torch.save(
        {"qat": model.state_dict(), "opt": opt.state_dict(), "step": 1, "seconds": 60.0}, checkpoint
    )
    args.qat = False
    with pytest.raises(SystemExit, match=f"{checkpoint}: a QAT checkpoint"):
        starting_point(args, {})
    args.qat = True
    _, trained, _, progress = starting_point(args, {})
    assert progress[0] == 1
    assert isinstance(trained.quant.activation_post_process, FakeQuantize)
