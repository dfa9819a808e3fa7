"""Teaching a narrower embedding network by the shipped one (bench/vision/distil.py,
narrow_network.py, train_embedding.py --teacher): the student starts from the teacher's
strongest channels and learns the teacher's unit vectors. Training tools only: skipped where
torch is not installed (`./dev setup --training` installs it)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from distil import Teacher, distil_loss  # noqa: E402
from narrow_network import kept_channels, narrowed, run_blocks  # noqa: E402
from onnx_export import export_crop_model  # noqa: E402
from train_embedding import Exported, TileNet, start_from_onnx  # noqa: E402

from vision.labels import LABELS  # noqa: E402

STRIDES, POOL_AFTER = [2, 2, 1, 1], 2  # the "slim" layout


def _folded(
    widths: tuple[int, ...], rng: np.random.Generator
) -> list[tuple[np.ndarray, np.ndarray]]:
    folded, before = [], 3
    for width in widths:
        weight = rng.normal(0, 0.3, (width, before, 3, 3)).astype(np.float32)
        folded.append((weight, rng.normal(0, 0.1, width).astype(np.float32)))
        before = width
    return folded


def _killed(
    folded: list[tuple[np.ndarray, np.ndarray]], dead: dict[int, list[int]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``folded`` with the channels ``dead`` (block -> channels) giving nothing (zero weights,
    negative bias: ReLU's output is 0 whatever comes in)."""
    out = [(w.copy(), b.copy()) for w, b in folded]
    for block, channels in dead.items():
        out[block][0][channels] = 0.0
        out[block][1][channels] = -1.0
    return out


def _crops(rng: np.random.Generator, count: int = 64) -> torch.Tensor:
    return torch.from_numpy(rng.uniform(-1, 1, (count, 3, 64, 48)).astype(np.float32))


def test_a_student_as_wide_as_the_teacher_starts_as_the_teacher() -> None:
    rng = np.random.default_rng(0)
    folded = _folded((8, 16, 16, 32), rng)
    embed = rng.normal(0, 0.3, (64, 32)).astype(np.float32), np.zeros(64, np.float32)
    x = _crops(rng)
    cut, (weight, bias) = narrowed(folded, embed, (8, 16, 16, 32), STRIDES, POOL_AFTER, x)
    for (w, b), (w0, b0) in zip(cut, folded, strict=True):
        assert np.array_equal(w, w0) and np.array_equal(b, b0)
    np.testing.assert_allclose(weight, embed[0], atol=1e-4)
    np.testing.assert_allclose(bias, embed[1], atol=1e-4)


def test_the_channels_that_give_nothing_are_the_ones_dropped() -> None:
    rng = np.random.default_rng(1)
    dead = {2: [1, 4, 9, 12], 3: [0, 5, 6, 7, 20, 21, 30, 31]}
    folded = _killed(_folded((8, 16, 16, 32), rng), dead)
    embed = (
        rng.normal(0, 0.3, (64, 32)).astype(np.float32),
        rng.normal(0, 0.1, 64).astype(np.float32),
    )
    x = _crops(rng)
    cut, (weight, bias) = narrowed(folded, embed, (8, 16, 12, 24), STRIDES, POOL_AFTER, x)
    assert [w.shape[0] for w, _ in cut] == [8, 16, 12, 24]
    assert cut[2][0].shape[1] == 16 and cut[3][0].shape[1] == 12
    # Nothing the teacher computes was lost: the same embedding, before normalising.
    teacher = run_blocks(folded, STRIDES, POOL_AFTER, x)[-1].mean(dim=(2, 3)).numpy()
    student = run_blocks(cut, STRIDES, POOL_AFTER, x)[-1].mean(dim=(2, 3)).numpy()
    np.testing.assert_allclose(
        student @ weight.T + bias, teacher @ embed[0].T + embed[1], atol=1e-3
    )


def test_kept_channels_weigh_activity_by_what_the_next_layer_reads() -> None:
    activity = np.array([1.0, 5.0, 2.0, 0.0])
    onward = np.array([3.0, 0.1, 1.0, 9.0])
    assert kept_channels(activity, onward, 2).tolist() == [0, 2]
    with pytest.raises(ValueError, match="keep 5 channels of 4"):
        kept_channels(activity, onward, 5)


def test_narrowing_to_the_wrong_number_of_blocks_is_refused() -> None:
    rng = np.random.default_rng(2)
    folded = _folded((8, 16, 16, 32), rng)
    embed = np.zeros((64, 32), np.float32), np.zeros(64, np.float32)
    with pytest.raises(ValueError, match="3 widths for 4 convolutions"):
        narrowed(folded, embed, (8, 16, 16), STRIDES, POOL_AFTER, _crops(rng))


def test_the_distance_to_the_teachers_vectors() -> None:
    v = torch.nn.functional.normalize(torch.randn(5, 64), dim=1)
    assert float(distil_loss(v, v)) == pytest.approx(0.0, abs=1e-6)
    assert float(distil_loss(-v, v)) == pytest.approx(2.0, abs=1e-6)
    with pytest.raises(ValueError, match=r"student vectors \(5, 64\), teacher's \(5, 32\)"):
        distil_loss(v, v[:, :32])


def _exported_with_dead_channels(tmp_path: Path) -> tuple[TileNet, Path]:
    """A "slim" network whose last two blocks have channels that give nothing, exported."""
    torch.manual_seed(3)
    net = TileNet(len(LABELS), "slim").eval()
    with torch.no_grad():
        for block, count in ((2, 32), (4, 64)):  # slim -> slim-half drops these
            conv, norm = net.features[block][0], net.features[block][1]
            conv.weight[-count:] = 0.0
            norm.bias[-count:] = -1.0
            norm.running_mean[-count:] = 0.0
    path = tmp_path / "teacher.onnx"
    export_crop_model(Exported(net).eval(), path, "embedding")
    return net, path


def test_a_narrow_student_started_from_an_export_gives_its_vectors(tmp_path: Path) -> None:
    wide, path = _exported_with_dead_channels(tmp_path)
    crops = torch.from_numpy(
        np.random.default_rng(4).uniform(0, 255, (64, 3, 64, 48)).astype(np.float32)
    )
    student = TileNet(len(LABELS), "slim-half")
    start_from_onnx(student, path, crops)
    assert student.embed.in_features == 64
    with torch.no_grad():
        expected = Exported(wide)(crops)
        got = Exported(student.eval())(crops)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-4)
    # The teacher as training sees it: network input in [-1, 1], the export's unit vectors.
    taught = Teacher(path)(crops / 127.5 - 1.0)
    np.testing.assert_allclose(taught.numpy(), expected.numpy(), atol=1e-4)


def test_a_missing_teacher_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"--teacher .*nothing\.onnx: no such network"):
        Teacher(tmp_path / "nothing.onnx")


def test_the_both_ways_teacher_gives_a_crop_either_way_up_its_summed_vector(
    tmp_path: Path,
) -> None:
    net, path = _exported_with_dead_channels(tmp_path)
    # Light above, dark below: crops whose turned copies differ to the network.
    ramp = np.linspace(255, 0, 64, dtype=np.float32)[None, None, :, None]
    noise = np.random.default_rng(6).uniform(-40, 40, (16, 3, 64, 48)).astype(np.float32)
    crops = torch.from_numpy(np.clip(ramp + noise, 0, 255))
    turned = crops.flip(2, 3)
    with torch.no_grad():
        summed = torch.nn.functional.normalize(
            Exported(net.eval())(crops) + Exported(net)(turned), dim=1
        )
    teacher = Teacher(path, both_ways=True)
    np.testing.assert_allclose(teacher(crops / 127.5 - 1.0).numpy(), summed.numpy(), atol=1e-4)
    np.testing.assert_allclose(teacher(turned / 127.5 - 1.0).numpy(), summed.numpy(), atol=1e-4)
    # One way up the teacher's vector is another: the target is not the plain one.
    plain = Teacher(path)(crops / 127.5 - 1.0)
    assert float((plain - summed).abs().max()) > 1e-3  # ten times the tolerance above
