"""Train the tile embedding on rendered crops and export it to ONNX.

    .venv/bin/pip install torch==2.13.0 onnx      # training only, never a runtime dependency
    .venv/bin/python bench/vision/train_embedding.py --minutes 18 \
        --hold-out xmj-real kde-traditional

Data: every installed art set except the held-out ones (see vision/synth/artwork.py and
docs/artwork.md) and ``--procedural`` random sets drawn by vision/synth/procedural.py (half of each
batch), each face turned into camera-like crops by vision.synth.crops.synthetic_crop with
fresh randomness every step, so no image is seen twice. The net is small (four conv blocks,
global average pooling, a 64-d L2-normalised embedding) and trained with a cosine-margin
softmax (CosFace), which pulls each kind to its own direction: recognition then compares an
embedding with enrolled prototypes, so a new tile set needs photos, not training.

Runs on one CPU thread (the machine is shared). Writes ``vision/models/tile_embed.onnx`` and
``vision/models/tile_embed.json`` (its provenance: sets, hold-outs, steps, seed, loss).
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

from onnx_export import export_crop_model  # noqa: E402

from vision.crops import CROP_H, CROP_W  # noqa: E402
from vision.labels import BACK, JOKER, LABELS  # noqa: E402
from vision.synth.artwork import ART_SETS, back_face, body_colour, joker_face, load_set  # noqa: E402
from vision.synth.crops import recolour, synthetic_crop  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402

EMBED_DIM = 64


class TileNet(nn.Module):
    def __init__(self, classes: int, arch: str = "base") -> None:
        super().__init__()

        def block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            )

        if arch == "slim":
            # A camera sees a tile at about 24 x 32 pixels: halve the crop at once and keep
            # the work (about 7 M multiply-adds a crop) where the detail is.
            self.features = nn.Sequential(
                block(3, 16, stride=2),  # 32 x 24
                block(16, 32, stride=2),  # 16 x 12
                block(32, 64),
                nn.MaxPool2d(2),  # 8 x 6
                block(64, 128),
            )
            self.embed = nn.Linear(128, EMBED_DIM)
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
    :func:`unfold_convolutions` sets them, the class weights imprinted (each kind's mean
    embedding)."""
    weights = unfold_convolutions(net.features, onnx_path, calibration)
    with torch.no_grad():
        net.embed.weight.copy_(torch.from_numpy(weights["net.embed.weight"].copy()))
        net.embed.bias.copy_(torch.from_numpy(weights["net.embed.bias"].copy()))
    net.eval()


def unfold_convolutions(
    features: nn.Sequential, onnx_path: Path, calibration: torch.Tensor
) -> dict[str, np.ndarray]:
    """Set ``features`` (convolution, batch norm, ReLU blocks and pooling between them) to an
    exported network's: the export folded each batch norm into its convolution, so the
    convolutions take the folded weights and each batch norm is set to reproduce the folded
    bias, both in evaluation and under batch statistics (its scale and shift are the spread
    and mean of the convolution's output on ``calibration``, BGR 0-255 crops). Returns every
    weight of the export by name (the heads' are the caller's to load)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    blocks = [m for m in features if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        raise SystemExit(f"{onnx_path}: {len(convs)} convolutions, the network has {len(blocks)}")
    exported = iter(convs)
    x = calibration / 127.5 - 1.0
    with torch.no_grad():
        for layer in features:
            if not isinstance(layer, nn.Sequential):  # pooling between blocks, as it runs
                x = layer(x)
                continue
            node = next(exported)
            conv, norm, relu = layer
            conv.weight.copy_(torch.from_numpy(weights[node.input[1]].copy()))
            bias = torch.from_numpy(weights[node.input[2]].copy())
            out = conv(x)
            mean, var = out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3), unbiased=False)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(bias + mean)
            x = relu(norm.eval()(out))
    return weights


def imprint(net: TileNet, crops: torch.Tensor, labels: torch.Tensor) -> None:
    """Class weights: each kind's mean embedding of ``crops`` (unit length)."""
    with torch.no_grad():
        emb = net(crops / 127.5 - 1.0)
        for k in labels.unique():
            net.weight[int(k)] = F.normalize(emb[labels == k].mean(0), dim=0)


def batch(
    faces: list[tuple[int, np.ndarray]], rng: np.random.Generator, size: int, strength: float
) -> tuple[torch.Tensor, torch.Tensor]:
    idx = rng.integers(len(faces), size=size)
    xs = np.empty((size, 3, CROP_H, CROP_W), np.float32)
    ys = np.empty(size, np.int64)
    for i, k in enumerate(idx):
        label, face = faces[k]
        crop = recolour(synthetic_crop(face, rng, strength=strength), rng)
        xs[i] = crop.transpose(2, 0, 1)
        ys[i] = label
    return torch.from_numpy(xs / 127.5 - 1.0), torch.from_numpy(ys)


def scene_batch(
    crops: np.ndarray, labels: np.ndarray, rng: np.random.Generator, size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Crops the finder cut from rendered frames (bench/vision/scene_crops.py), already
    camera-like: only turned, shifted a pixel or two, relit and recoloured."""
    idx = rng.integers(len(labels), size=size)
    xs = np.empty((size, 3, CROP_H, CROP_W), np.float32)
    for i, k in enumerate(idx):
        crop = crops[k]
        if rng.random() < 0.5:
            crop = crop[::-1, ::-1]
        dx, dy = rng.integers(-2, 3, size=2)
        crop = np.roll(crop, (int(dy), int(dx)), axis=(0, 1))
        gain = rng.uniform(0.8, 1.15) * (1 + rng.normal(0, 0.05, size=3))
        crop = np.clip(crop.astype(np.float32) * gain, 0, 255)
        xs[i] = recolour(crop, rng).transpose(2, 0, 1)
    return torch.from_numpy(xs / 127.5 - 1.0), torch.from_numpy(labels[idx].astype(np.int64))


class Crops(torch.utils.data.IterableDataset[tuple[torch.Tensor, torch.Tensor]]):
    """Endless batches made in a worker process while the network trains on the previous ones
    (cutting crops costs as much as a training step): packaged and procedural faces through
    `synthetic_crop` in equal parts, and, when given, a third of finder-cut scene crops. The
    damage grows with the wall-clock progress through the time budget."""

    def __init__(
        self,
        packaged: list[tuple[int, np.ndarray]],
        generated: list[tuple[int, np.ndarray]],
        scene: tuple[np.ndarray, np.ndarray] | None,
        size: int,
        seed: int,
        start: float,
        budget: float,
    ) -> None:
        self.packaged, self.generated, self.scene = packaged, generated, scene
        self.size, self.seed, self.start, self.budget = size, seed, start, budget

    def __iter__(self):  # type: ignore[no-untyped-def]
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            progress = (time.monotonic() - self.start) / self.budget
            strength = min(1.0, 0.4 + progress * 1.5)  # easy crops first, full damage soon
            n_scene = self.size // 3 if self.scene is not None else 0
            rest = self.size - n_scene
            half = rest // 2 if self.generated else rest
            parts = [batch(self.packaged, rng, half, strength)]
            if self.generated:
                parts.append(batch(self.generated, rng, rest - half, strength))
            if self.scene is not None:
                parts.append(scene_batch(*self.scene, rng, n_scene))
            yield torch.cat([x for x, _ in parts]), torch.cat([y for _, y in parts])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument(
        "--hold-out", nargs="*", default=["xmj-real", "kde-traditional", "gnome-smooth"]
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--arch", choices=["base", "slim"], default="base")
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
    parser.add_argument("--out", type=Path, default=ROOT / "vision" / "models" / "tile_embed.onnx")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    train_sets = [n for n in ART_SETS if n not in args.hold_out]
    faces: list[tuple[int, np.ndarray]] = []
    for name in train_sets:
        for label, face in load_set(name).items():
            faces.append((LABELS.index(label), face))
    packaged = len(faces)
    generated: list[tuple[int, np.ndarray]] = []
    for seed in range(args.procedural):
        procedural = procedural_set(10_000 + seed)
        procedural[JOKER] = joker_face(body_colour(procedural), seed)
        procedural[BACK] = back_face(seed)
        generated += [(LABELS.index(label), face) for label, face in procedural.items()]
    print(
        f"training on {train_sets} ({packaged} faces) and {args.procedural} procedural sets "
        f"({len(generated)} faces), holding out {args.hold_out}",
        flush=True,
    )

    scene = None
    if args.scene_crops:
        with np.load(args.scene_crops) as data:
            keep = ~np.isin(data["sets"], args.hold_out)
            scene = (data["crops"][keep], data["labels"][keep])
        print(f"and {len(scene[1])} finder-cut crops from {args.scene_crops}", flush=True)

    net = TileNet(len(LABELS), args.arch)
    if args.init and args.init.suffix == ".onnx":
        rng = np.random.default_rng(args.seed + 1)
        every = faces + generated
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
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    scale, margin = 16.0, 0.25
    start = time.monotonic()
    budget = args.minutes * 60
    loader = torch.utils.data.DataLoader(
        Crops(faces, generated, scene, args.batch, args.seed, start, budget),
        batch_size=None,
        num_workers=args.workers,
        prefetch_factor=4 if args.workers else None,
    )
    step, losses = 0, []
    for x, y in loader:
        elapsed = time.monotonic() - start
        if elapsed >= budget:
            break
        progress = elapsed / budget
        for group in opt.param_groups:  # cosine decay of the learning rate
            group["lr"] = args.lr * 0.5 * (1 + np.cos(np.pi * min(progress, 1.0)))
        net.train()
        emb = net(x)
        cos = emb @ F.normalize(net.weight, dim=1).T
        logits = scale * (cos - margin * F.one_hot(y, len(LABELS)))
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        step += 1
        if step % 200 == 0:
            acc = float((cos.argmax(1) == y).float().mean())
            print(
                f"step {step} {elapsed:.0f}s loss {np.mean(losses[-200:]):.3f} acc {acc:.3f}",
                flush=True,
            )
    net.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), args.out.with_suffix(".pt"))  # to fine-tune from; not shipped
    export_crop_model(Exported(net), args.out, "embedding")
    meta = {
        "input": {"shape": [3, CROP_H, CROP_W], "channels": "BGR", "range": "0-255"},
        "embedding_dim": EMBED_DIM,
        "labels_trained": list(LABELS),
        "train_sets": train_sets,
        "procedural_sets": args.procedural,
        "scene_crops": len(scene[1]) if scene is not None else 0,
        "held_out_sets": args.hold_out,
        "steps": step,
        "batch": args.batch,
        "seed": args.seed,
        "init": str(args.init.name) if args.init else None,
        "arch": args.arch,
        "final_loss": float(np.mean(losses[-100:])),
        "minutes": round((time.monotonic() - start) / 60, 1),
        "torch": torch.__version__,
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
