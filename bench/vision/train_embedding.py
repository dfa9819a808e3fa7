"""Train the tile embedding on rendered crops and export it to ONNX.

    .venv/bin/pip install torch==2.13.0 onnx      # training only, never a runtime dependency
    sh bench/vision/training_fonts.sh              # for --varied: the training-only fonts
    .venv/bin/python bench/vision/train_embedding.py --arch slim --minutes 50 --varied 300 \
        --init vision/models/tile_embed.onnx --lr 1e-3 --workers 0 \
        --checkpoint /somewhere/checkpoint.pt --out /somewhere/tile_embed.onnx
    .venv/bin/python bench/vision/train_embedding.py --arch slim --varied 300 --workers 0 \
        --resume /somewhere/checkpoint.pt --out /somewhere/tile_embed.onnx
    .venv/bin/python bench/vision/train_embedding.py --arch slim-half --minutes 35 --varied 300 \
        --init vision/models/tile_embed.onnx --teacher vision/models/tile_embed.onnx --lr 1e-3 \
        --workers 0 --checkpoint /somewhere/checkpoint.pt --out /somewhere/tile_embed.onnx

Data: every installed art set except the held-out ones (see vision/synth/artwork.py and
docs/artwork.md), ``--procedural`` random sets drawn by vision/synth/procedural.py and
``--varied`` more of its varied grammar and ``--assorted`` of its assorted one (together
half of each batch), each face turned into
camera-like crops by vision.synth.crops.synthetic_crop, half of them with the further effects
of camera_effects.py, with fresh randomness every step, so no image is seen twice; with
``--scene-crops``, a third of each batch is finder-cut crops of rendered frames. The net is
small (four conv blocks, global average pooling, a 64-d L2-normalised embedding) and trained
with a cosine-margin softmax (CosFace), which pulls each kind to its own direction:
recognition then compares an embedding with enrolled prototypes, so a new tile set needs
photos, not training. ``--episodes`` trains on that comparison itself (episodes.py): queries
named by their nearest prototype among other sets', beside the cosine margin.
``--teacher`` trains a network (a narrower ``--arch``, started from the teacher's strongest
channels by ``--init``) to give an exported network's unit vectors (distil.py); with
``--teacher-both-ways`` the unit sum of its vectors of a crop and of it turned, for a network
the embedder runs once a crop (its json says ``"ways": 1``).

Runs on one CPU thread (the machine is shared; ``--workers 0`` cuts the crops in the same
process, so a run holds one core). The learning rate's cosine and the crops' damage follow
the run's schedule of ``--minutes``. A checkpoint (embed_checkpoint.py) is written every
``--checkpoint-minutes`` and at the end; ``--resume`` continues one, its step count and its
schedule, so runs of at most an hour add up (``--stop-after`` ends a process early). Writes
``--out`` (by default ``vision/models/tile_embed.onnx``), its ``.pt`` and its ``.json`` (the
provenance: sets, hold-outs, steps, seed, loss).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bonus_data import require_fonts  # noqa: E402  (sets the training fonts' fontconfig file)
from distil import Teacher, distil_loss  # noqa: E402
from embed_checkpoint import Checkpoint, load_checkpoint, restarted, save_checkpoint  # noqa: E402
from episode_training import EpisodeCrops, Scene, add_episode_arguments, episode_loss  # noqa: E402
from episodes import FaceSet, flat_faces, render_crops, training_sets, vary_scene_crops  # noqa: E402
from narrow_network import narrowed  # noqa: E402
from onnx_export import export_crop_model  # noqa: E402

from vision.crops import CROP_H, CROP_W  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.synth.artwork import ART_SETS  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402

EMBED_DIM = 64

# The four blocks' output channels of the networks laid out as "slim" (bench/vision/
# time_students.py times the narrower ones in 8 bits).
SLIM_WIDTHS = {
    "slim": (16, 32, 64, 128),
    "slim-24": (16, 32, 48, 96),
    "slim-3": (16, 32, 32, 96),
    "slim-48-64": (16, 32, 48, 64),
    "slim-half": (16, 32, 32, 64),
    "slim-quarter": (8, 16, 32, 64),
}


class TileNet(nn.Module):
    def __init__(self, classes: int, arch: str = "base") -> None:
        super().__init__()

        def block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            )

        if arch in SLIM_WIDTHS:
            # A camera sees a tile at about 24 x 32 pixels: halve the crop at once and keep
            # the work (about 8 M multiply-adds a crop for "slim") where the detail is.
            w1, w2, w3, w4 = SLIM_WIDTHS[arch]
            self.features = nn.Sequential(
                block(3, w1, stride=2),  # 32 x 24
                block(w1, w2, stride=2),  # 16 x 12
                block(w2, w3),
                nn.MaxPool2d(2),  # 8 x 6
                block(w3, w4),
            )
            self.embed = nn.Linear(w4, EMBED_DIM)
            self.weight = nn.Parameter(torch.randn(classes, EMBED_DIM) * 0.1)
            return

        self.features = nn.Sequential(
            block(3, 16),
            nn.MaxPool2d(2),  # 32 x 24
            block(16, 32),
            nn.MaxPool2d(2),  # 16 x 12
            block(32, 64),
            block(64, 64),
            nn.MaxPool2d(2),  # 8 x 6
            block(64, 128),
            block(128, 128),
        )
        self.embed = nn.Linear(128, EMBED_DIM)
        self.weight = nn.Parameter(torch.randn(classes, EMBED_DIM) * 0.1)

    def embedding(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)
        f = torch.cat([f.mean(dim=(2, 3))], dim=1)
        return F.normalize(self.embed(f), dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.embedding(x)


class Exported(nn.Module):
    """What ships: BGR uint8-range input in, the normalised embedding out."""

    def __init__(self, net: TileNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net.embedding(x / 127.5 - 1.0)


def start_from_onnx(net: TileNet, onnx_path: Path, calibration: torch.Tensor) -> None:
    """Begin where an exported network left off (its .pt gone): the convolutions as
    :func:`unfold_convolutions` sets them (for a narrower network of the same layout, the
    export's strongest channels: narrow_network.py), the embedding layer the export's (or
    fitted to it), the class weights imprinted (each kind's mean embedding)."""
    blocks = [m for m in net.features if isinstance(m, nn.Sequential)]
    folded = folded_convolutions(onnx_path)
    weights = onnx_weights(onnx_path)
    embed = weights["net.embed.weight"], weights["net.embed.bias"]
    if len(folded) == len(blocks) and any(
        b[0].weight.shape != w.shape for b, (w, _) in zip(blocks, folded, strict=True)
    ):
        # A narrower student of the same layout: the export's strongest channels.
        strides = [int(b[0].stride[0]) for b in blocks]
        pool_after = sum(isinstance(m, nn.Sequential) for m in net.features[: pool_index(net)]) - 1
        widths = tuple(int(b[0].out_channels) for b in blocks)
        x = calibration / 127.5 - 1.0
        folded, embed = narrowed(folded, embed, widths, strides, pool_after, x)
        set_folded(net.features, folded, calibration)
    else:
        unfold_convolutions(net.features, onnx_path, calibration)
    with torch.no_grad():
        net.embed.weight.copy_(torch.from_numpy(embed[0].copy()))
        net.embed.bias.copy_(torch.from_numpy(embed[1].copy()))
    net.eval()


def pool_index(net: TileNet) -> int:
    """Where the one pooling layer of a "slim" layout sits among ``net.features``."""
    pools = [k for k, m in enumerate(net.features) if isinstance(m, nn.MaxPool2d)]
    if len(pools) != 1:
        raise SystemExit(f"a narrower start needs one pooling layer, the network has {len(pools)}")
    return pools[0]


def unfold_convolutions(
    features: nn.Sequential, onnx_path: Path, calibration: torch.Tensor
) -> dict[str, np.ndarray]:
    """Set ``features`` (convolution, batch norm, ReLU blocks and pooling between them) to an
    exported network's: the export folded each batch norm into its convolution, so the
    convolutions take the folded weights and each batch norm is set to reproduce the folded
    bias, both in evaluation and under batch statistics (its scale and shift are the spread
    and mean of the convolution's output on ``calibration``, BGR 0-255 crops). Returns every
    weight of the export by name (the heads' are the caller's to load)."""
    weights = onnx_weights(onnx_path)
    folded = folded_convolutions(onnx_path)
    blocks = [m for m in features if isinstance(m, nn.Sequential)]
    if len(folded) != len(blocks):
        raise SystemExit(f"{onnx_path}: {len(folded)} convolutions, the network has {len(blocks)}")
    set_folded(features, folded, calibration)
    return weights


def onnx_weights(onnx_path: Path) -> dict[str, np.ndarray]:
    """Every weight of an exported network, by name."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_path))
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def folded_convolutions(onnx_path: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """An exported network's convolutions in order: (weight, bias), batch norms folded in."""
    import onnx

    weights = onnx_weights(onnx_path)
    convs = [n for n in onnx.load(str(onnx_path)).graph.node if n.op_type == "Conv"]
    return [(weights[node.input[1]], weights[node.input[2]]) for node in convs]


def set_folded(
    features: nn.Sequential,
    folded: list[tuple[np.ndarray, np.ndarray]],
    calibration: torch.Tensor,
) -> None:
    """Set each block of ``features`` to a folded convolution (weight, bias) as
    :func:`unfold_convolutions` describes, in order."""
    exported = iter(folded)
    x = calibration / 127.5 - 1.0
    with torch.no_grad():
        for layer in features:
            if not isinstance(layer, nn.Sequential):  # pooling between blocks, as it runs
                x = layer(x)
                continue
            weight, folded_bias = next(exported)
            conv, norm, relu = layer
            conv.weight.copy_(torch.from_numpy(weight.copy()))
            bias = torch.from_numpy(folded_bias.copy())
            out = conv(x)
            mean, var = out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3), unbiased=False)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(bias + mean)
            x = relu(norm.eval()(out))


def imprint(net: TileNet, crops: torch.Tensor, labels: torch.Tensor) -> None:
    """Class weights: each kind's mean embedding of ``crops`` (unit length)."""
    with torch.no_grad():
        emb = net(crops / 127.5 - 1.0)
        for k in labels.unique():
            net.weight[int(k)] = F.normalize(emb[labels == k].mean(0), dim=0)


# The bonus tiles, the joker, the blank and the back: the kinds the first look knows least
# on sets it never saw (each set has few of them, and they vary most from set to set).
RARE_KINDS = frozenset(range(LABELS.index("F1"), len(LABELS)))


def face_weights(faces: list[tuple[int, np.ndarray]], rare: float) -> np.ndarray | None:
    """How often each face is drawn: ``rare`` times as often for the rare kinds (None: all
    alike, drawn as before)."""
    if rare == 1.0:
        return None
    weights = np.array([rare if label in RARE_KINDS else 1.0 for label, _ in faces])
    return weights / weights.sum()


def batch(
    faces: list[tuple[int, np.ndarray]],
    rng: np.random.Generator,
    size: int,
    strength: float,
    weights: np.ndarray | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    if weights is None:
        idx = rng.integers(len(faces), size=size)
    else:
        idx = rng.choice(len(faces), size=size, p=weights)
    xs, ys = render_crops([faces[k] for k in idx], rng, strength)
    return torch.from_numpy(xs), torch.from_numpy(ys)


def scene_batch(
    crops: np.ndarray, labels: np.ndarray, rng: np.random.Generator, size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Crops the finder cut from rendered frames (bench/vision/scene_crops.py), already
    camera-like: only turned, shifted a pixel or two, relit and recoloured."""
    xs, ys = vary_scene_crops(crops, labels, rng, size)
    return torch.from_numpy(xs), torch.from_numpy(ys)


class ScheduleClock:
    """Where a run is in its schedule: the seconds trained before this process started (from
    the checkpoint) plus this process's wall clock, out of the whole run's budget. A worker
    process gets a copy, which keeps counting from the same start."""

    def __init__(self, before: float, budget: float) -> None:
        self.before, self.budget, self.start = before, budget, time.monotonic()

    def elapsed(self) -> float:
        return self.before + time.monotonic() - self.start

    def progress(self) -> float:
        return min(1.0, self.elapsed() / self.budget)


def damage(clock: ScheduleClock, damage_from: float) -> float:
    """The crops' damage: easy first, full soon, a little more than full by the end."""
    return min(1.15, damage_from + clock.progress() * 1.5)


class Crops(torch.utils.data.IterableDataset[tuple[torch.Tensor, torch.Tensor]]):
    """Endless batches made in a worker process while the network trains on the previous ones
    (cutting crops costs as much as a training step): packaged and procedural faces through
    `synthetic_crop` in equal parts, and, when given, a third of finder-cut scene crops. The
    damage grows with the progress through the time budget (``clock``: the schedule's seconds
    so far, shared with the trainer). ``first_step`` seeds the stream with the seed, so a
    resumed run draws crops of its own, and the same ones again when resumed the same way."""

    def __init__(
        self,
        packaged: list[tuple[int, np.ndarray]],
        generated: list[tuple[int, np.ndarray]],
        scene: tuple[np.ndarray, np.ndarray] | None,
        size: int,
        seed: int,
        first_step: int,
        clock: ScheduleClock,
        damage_from: float = 0.4,
        rare: float = 1.0,
    ) -> None:
        self.packaged, self.generated, self.scene = packaged, generated, scene
        self.size, self.seed, self.first_step, self.clock = size, seed, first_step, clock
        self.damage_from = damage_from
        self.weights = face_weights(packaged, rare), face_weights(generated, rare)

    def __iter__(self):  # type: ignore[no-untyped-def]
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0, self.first_step])
        while True:
            strength = damage(self.clock, self.damage_from)
            n_scene = self.size // 3 if self.scene is not None else 0
            rest = self.size - n_scene
            half = rest // 2 if self.generated else rest
            parts = [batch(self.packaged, rng, half, strength, self.weights[0])]
            if self.generated:
                parts.append(batch(self.generated, rng, rest - half, strength, self.weights[1]))
            if self.scene is not None:
                parts.append(scene_batch(*self.scene, rng, n_scene))
            yield torch.cat([x for x, _ in parts]), torch.cat([y for _, y in parts])


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--minutes", type=float, default=15.0, help="the run's budget (its cosine schedule)"
    )
    parser.add_argument(
        "--hold-out", nargs="*", default=["xmj-real", "kde-traditional", "gnome-smooth"]
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--arch", choices=["base", *SLIM_WIDTHS], default="base")
    parser.add_argument("--batch", type=int, default=96)
    parser.add_argument(
        "--scene-crops", type=Path, help="finder-cut crops (scene_crops.py): a third of a batch"
    )
    parser.add_argument(
        "--init",
        type=Path,
        help="weights of an earlier run to start from: its .pt, or the exported .onnx",
    )
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument(
        "--workers", type=int, default=1, help="processes cutting crops (0: in the trainer)"
    )
    parser.add_argument(
        "--procedural",
        type=int,
        default=300,
        help="random procedural art sets added to the packaged ones",
    )
    parser.add_argument(
        "--varied",
        type=int,
        default=0,
        help="procedural sets of the varied grammar (procedural_set(varied=True)) besides",
    )
    parser.add_argument(
        "--assorted",
        type=int,
        default=0,
        help="procedural sets of the assorted grammar (procedural_set(assorted=True)) besides",
    )
    parser.add_argument(
        "--checkpoint",
        type=Path,
        default=ROOT / "build" / "embed" / "checkpoint.pt",
        help="written every --checkpoint-minutes and at the end",
    )
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument(
        "--stop-after",
        type=float,
        help="minutes this process trains before it checkpoints and stops, the schedule unfinished",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        help="a checkpoint to continue: weights, optimiser, step and schedule (its --minutes)",
    )
    parser.add_argument(
        "--restart-schedule",
        action="store_true",
        help="with --resume: a new cosine of --minutes from --lr (the weights and AdamW's "
        "moments carry on); resume the restarted run with the same --lr, --warmup-steps, "
        "--damage-from and --rare-weight",
    )
    parser.add_argument(
        "--warmup-steps", type=int, default=0, help="steps the learning rate rises to --lr"
    )
    parser.add_argument(
        "--damage-from", type=float, default=0.4, help="the crops' damage at the schedule's start"
    )
    parser.add_argument(
        "--rare-weight",
        type=float,
        default=1.0,
        help="how much more often bonus, joker, blank and back faces are drawn",
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        help="an exported float network whose unit vectors the net learns to give (distil.py)",
    )
    parser.add_argument(
        "--teacher-both-ways",
        action="store_true",
        help="with --teacher: each crop's target is the teacher's unit sum of it both ways "
        "up (the training crops lie either way up), for a network run once a crop",
    )
    parser.add_argument(
        "--teacher-cosface",
        type=float,
        default=0.1,
        help="with --teacher: the cosine-margin loss's weight beside the teacher's",
    )
    add_episode_arguments(parser)
    parser.add_argument("--out", type=Path, default=ROOT / "vision" / "models" / "tile_embed.onnx")
    return parser.parse_args()


def training_faces(
    args: argparse.Namespace,
) -> tuple[list[str], tuple[list[FaceSet], list[FaceSet]]]:
    """The training sets' names, and the packaged and procedural sets with their faces."""
    train_sets = [n for n in ART_SETS if n not in args.hold_out]
    pools = training_sets(train_sets, args.procedural, args.varied, args.hold_out, args.assorted)
    faces, generated = flat_faces(pools[0]), flat_faces(pools[1])
    print(
        f"training on {train_sets} ({len(faces)} faces), {args.procedural} procedural, "
        f"{args.varied} varied and {args.assorted} assorted procedural sets "
        f"({len(generated)} faces), "
        f"holding out {args.hold_out}",
        flush=True,
    )
    return train_sets, pools


def scene_crops(args: argparse.Namespace) -> Scene | None:
    """The finder-cut crops of sets not held out: crops, labels and each crop's set."""
    if not args.scene_crops:
        return None
    with np.load(args.scene_crops) as data:
        keep = ~np.isin(data["sets"], args.hold_out)
        scene = (data["crops"][keep], data["labels"][keep], data["sets"][keep])
    print(f"and {len(scene[1])} finder-cut crops from {args.scene_crops}", flush=True)
    return scene


def initial_net(args: argparse.Namespace, every: list[tuple[int, np.ndarray]]) -> TileNet:
    net = TileNet(len(LABELS), args.arch)
    if args.init and args.init.suffix == ".onnx":
        rng = np.random.default_rng(args.seed + 1)
        picks = rng.integers(len(every), size=4096)
        crops = torch.from_numpy(
            np.stack([synthetic_crop(every[k][1], rng) for k in picks]).transpose(0, 3, 1, 2)
        ).float()
        labels = torch.tensor([every[k][0] for k in picks])
        start_from_onnx(net, args.init, crops[:1024])
        imprint(net, crops, labels)
        print(
            f"starting from {args.init} (batch norms fitted, class weights imprinted)", flush=True
        )
    elif args.init:
        net.load_state_dict(torch.load(args.init))
        print(f"starting from {args.init}", flush=True)
    return net


def cosine_margin_loss(
    net: TileNet, emb: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, float]:
    """CosFace against the learned class weights, and the share named right by them."""
    scale, margin = 16.0, 0.25
    cos = emb @ F.normalize(net.weight, dim=1).T
    logits = scale * (cos - margin * F.one_hot(y, len(LABELS)))
    return F.cross_entropy(logits, y), float((cos.argmax(1) == y).float().mean())


def step_loss(
    args: argparse.Namespace,
    net: TileNet,
    item: tuple[torch.Tensor, ...],
    teacher: Teacher | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """One batch's loss, and what to log of it: a classification batch (crops, labels) by
    the cosine margin alone, or with a ``teacher`` by the distance to its vectors plus
    ``--teacher-cosface`` times the cosine margin; an episode (crops, labels, support size)
    by the episodic loss plus ``--cosface-weight`` times the cosine margin on all its crops."""
    x, y = item[0], item[1]
    emb = net(x)
    cosface, acc = cosine_margin_loss(net, emb, y)
    if teacher is not None:
        distance = distil_loss(emb, teacher(x))
        loss = distance + args.teacher_cosface * cosface
        return loss, {"cosine": 1.0 - distance.item(), "cosface": cosface.item(), "acc": acc}
    if len(item) == 2:
        return cosface, {"acc": acc}
    n_support = int(item[2])
    episodic, right = episode_loss(emb, y, n_support, len(LABELS), args.episode_scale)
    loss = args.episode_weight * episodic + args.cosface_weight * cosface
    return loss, {"episode": episodic.item(), "right": right, "cosface": cosface.item()}


def train(
    args: argparse.Namespace,
    net: TileNet,
    opt: torch.optim.Optimizer,
    loader: torch.utils.data.DataLoader[tuple[torch.Tensor, ...]],
    run: Checkpoint,
    clock: ScheduleClock,
    teacher: Teacher | None = None,
) -> None:
    """Train until the schedule ends, checkpointing every ``--checkpoint-minutes``; ``run``
    (step, schedule seconds, recent losses) is kept up to date."""
    last_save, first_step = time.monotonic(), run.step
    stop = clock.start + (args.stop_after * 60 if args.stop_after is not None else float("inf"))
    every = 50 if args.episodes else 200
    said: dict[str, list[float]] = {}
    for item in loader:
        if clock.elapsed() >= clock.budget or time.monotonic() >= stop:
            break
        warm = min(1.0, (run.step - first_step + 1) / args.warmup_steps) if args.warmup_steps else 1
        for group in opt.param_groups:  # cosine decay of the learning rate
            group["lr"] = warm * args.lr * 0.5 * (1 + np.cos(np.pi * clock.progress()))
        net.train()
        loss, parts = step_loss(args, net, item, teacher)
        for name, value in parts.items():
            said.setdefault(name, []).append(value)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.losses = (run.losses + [float(loss.detach())])[-200:]
        run.step += 1
        run.elapsed = clock.elapsed()
        if run.step % every == 0:
            means = " ".join(f"{k} {np.mean(v):.3f}" for k, v in said.items())
            mean = np.mean(run.losses[-every:])
            print(f"step {run.step} {run.elapsed:.0f}s loss {mean:.3f} {means}", flush=True)
            said = {}
        if time.monotonic() - last_save >= args.checkpoint_minutes * 60:
            save_checkpoint(args.checkpoint, net, opt, run)
            last_save = time.monotonic()


def batches(
    args: argparse.Namespace,
    pools: tuple[list[FaceSet], list[FaceSet]],
    scene: Scene | None,
    first_step: int,
    clock: ScheduleClock,
) -> torch.utils.data.IterableDataset[tuple[torch.Tensor, ...]]:
    """Episodes (``--episodes``) or classification batches, endless."""
    if args.episodes:
        n_scene = args.queries // 3 if scene is not None else 0
        return EpisodeCrops(
            pools,
            args.hold_out,
            (args.support_sets, args.query_sets, args.queries - n_scene),
            (scene, n_scene) if scene is not None else None,
            args.seed,
            first_step,
            lambda: damage(clock, args.damage_from),
        )
    return Crops(
        flat_faces(pools[0]),
        flat_faces(pools[1]),
        scene[:2] if scene is not None else None,
        args.batch,
        args.seed,
        first_step,
        clock,
        args.damage_from,
        args.rare_weight,
    )


def main() -> int:
    args = parse_args()
    torch.set_num_threads(1)
    if args.teacher and args.episodes:
        raise SystemExit("--teacher teaches on classification batches: leave out --episodes")
    if args.teacher_both_ways and not args.teacher:
        raise SystemExit("--teacher-both-ways needs --teacher")
    teacher = Teacher(args.teacher, args.teacher_both_ways) if args.teacher else None
    if args.varied or args.assorted:
        from vision.synth.bonus_faces import TRAINING_FONTS

        require_fonts(TRAINING_FONTS)  # else those sets would letter in a fallback font
    resumed = load_checkpoint(args.resume) if args.resume else None
    if resumed is not None and args.restart_schedule:
        resumed.run = restarted(resumed.run, args.minutes)
    elif resumed is not None:
        args.minutes = resumed.run.minutes  # the schedule is the checkpoint's
    torch.manual_seed(args.seed + (resumed.run.step if resumed else 0))
    train_sets, pools = training_faces(args)
    scene = scene_crops(args)
    net = (
        initial_net(args, flat_faces(pools[0] + pools[1]))
        if resumed is None
        else TileNet(len(LABELS), args.arch)
    )
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    run = Checkpoint(step=0, elapsed=0.0, minutes=args.minutes, seed=args.seed, losses=[])
    if resumed is not None:
        net.load_state_dict(resumed.net)
        opt.load_state_dict(resumed.optimiser)
        run = resumed.run
        print(f"resumed {args.resume} at step {run.step}, {run.elapsed / 60:.1f} min", flush=True)
    first_step, clock = run.step, ScheduleClock(run.elapsed, args.minutes * 60)
    loader = torch.utils.data.DataLoader(
        batches(args, pools, scene, first_step, clock),
        batch_size=None,
        num_workers=args.workers,
        prefetch_factor=4 if args.workers else None,
    )
    train(args, net, opt, loader, run, clock, teacher)
    save_checkpoint(args.checkpoint, net, opt, run)
    net.eval()
    export(args, net, train_sets, scene, run, first_step)
    return 0


def export(
    args: argparse.Namespace,
    net: TileNet,
    train_sets: list[str],
    scene: Scene | None,
    run: Checkpoint,
    first_step: int,
) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), args.out.with_suffix(".pt"))  # to fine-tune from; not shipped
    export_crop_model(Exported(net), args.out, "embedding")
    meta = {
        "input": {"shape": [3, CROP_H, CROP_W], "channels": "BGR", "range": "0-255"},
        "embedding_dim": EMBED_DIM,
        "labels_trained": list(LABELS),
        "train_sets": train_sets,
        "procedural_sets": args.procedural,
        "varied_procedural_sets": args.varied,
        "assorted_procedural_sets": args.assorted,
        "scene_crops": len(scene[1]) if scene is not None else 0,
        "held_out_sets": args.hold_out,
        "steps": run.step,
        "steps_this_process": run.step - first_step,
        "batch": args.batch,
        "seed": args.seed,
        "init": str(args.init.name) if args.init else None,
        "resumed_from": str(args.resume) if args.resume else None,
        "schedule": {
            "restarted": bool(args.restart_schedule),
            "peak_lr": args.lr,
            "warmup_steps": args.warmup_steps,
            "damage_from": args.damage_from,
            "minutes": args.minutes,
        },
        "rare_weight": args.rare_weight,
        "teacher": (
            {
                "network": args.teacher.name,
                "cosface_weight": args.teacher_cosface,
                "both_ways": args.teacher_both_ways,
            }
            if args.teacher
            else None
        ),
        "episodes": (
            {
                "support_sets": args.support_sets,
                "query_sets": args.query_sets,
                "queries": args.queries,
                "scale": args.episode_scale,
                "episode_weight": args.episode_weight,
                "cosface_weight": args.cosface_weight,
            }
            if args.episodes
            else None
        ),
        "arch": args.arch,
        # Run once a crop (vision/embedder.py network_ways): taught the both-ways vector.
        "ways": 1 if args.teacher_both_ways else 2,
        "final_loss": float(np.mean(run.losses[-100:])) if run.losses else None,
        "minutes": round(run.elapsed / 60, 1),
        "torch": torch.__version__,
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta))


if __name__ == "__main__":
    sys.exit(main())
