"""Train the bonus-tile reader (vision/bonus.py) and export it to ONNX.

    .venv/bin/python bench/vision/train_bonus.py --minutes 40      # resumes its checkpoint

Data (bench/vision/bonus_data.py): bonus faces drawn in the training fonts (33: thirteen of
the project's set-up, twenty installed for training only, bench/vision/README.md), the bonus
tiles of the packaged sets and of drawn sets lettered in those fonts, and every other face of
those sets as "no bonus tile"; held out: three packaged sets, five fonts and two hands, and
the drawn sets lettered in the five. Each batch (``SHARES``): 25 % font-drawn bonus faces,
12 % the packaged sets' bonus tiles and 20 % their other faces, 8 % the drawn sets' bonus
tiles and 35 % their other faces, every one a fresh camera-like crop, 75 % of them at the
table camera's 18-28 px a tile and 10 % (``--soft``) further blurred and flattened in contrast,
never a font-drawn face whose name is already tiny (under 18 px on the face). Two in five
font-drawn faces are a picture filling the face with the name small, often pale, in English
(any case, 40 Latin faces) or Chinese, mostly with no number (``bonus_faces(sparse=...)``).
Hard negatives (``--hard``, ``--hard-weight``, ``--honours``, ``--mine``): a share of each
batch, taken from the drawn sets' other faces, drawn from the training sets' dragons, winds,
one bamboo and seven to nine of dots (bonus_data.HARD_KINDS), dragons and winds lettered in
the training fonts (vision/synth/honour_faces.py) and the training faces the starting reader
is surest are a bonus tile (bonus_mining.py), with a weight on their loss.

The network: four convolution blocks (the detail kept at half the crop's size, where a
corner's number is a few pixels), global average pooling, two heads: which of the eight bonus
tiles or none (9), and the number printed on it (4; learnt on bonus tiles only). The export
outputs both as probabilities, side by side (13 columns).

Runs on one thread, writing a checkpoint every few minutes and at the end (``--checkpoint``);
a run started again resumes from it, so runs of at most an hour add up. With no checkpoint it
starts from the exported model (``--init``, by default the committed
``vision/models/bonus_read.onnx``: its weights loaded, a fresh optimiser warmed up), never
from nothing while a trained model exists. Each run decays its learning rate from ``--lr`` on
a cosine over its own ``--minutes``.
Writes ``vision/models/bonus_read.onnx`` and ``bonus_read.json`` (provenance: every run's
minutes and steps).

``--qat`` fine-tunes the network for its 8-bit copy (reader_qat.py: torch's fake quantisation
where ONNX Runtime's copy quantises), from ``--init``'s weights or its own checkpoint, and
exports the float network (to ``--out``) that quantize_embedder.py ``--weights`` makes the copy
from.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reader_qat
from bonus_data import (
    HARD_KINDS,
    HELD_OUT_SETS,
    KINDS,
    ROOT,
    SPARSE,
    TINY_NAME_PX,
    TRAINING_LATIN_ALL,
    Faces,
    crops_of,
    training_pools,
)
from bonus_mining import mine_hard_negatives
from onnx_export import export_crop_model
from train_embedding import unfold_convolutions

from vision.bonus import BONUS_FILE
from vision.crops import CROP_H, CROP_W
from vision.embedder import MODELS_DIR
from vision.synth.bonus_faces import (
    HELD_OUT_FONTS,
    HELD_OUT_HANDS,
    HELD_OUT_LATIN,
    TRAINING_FONTS,
)

NOT_BONUS_INDEX = len(KINDS) - 1
# Where training stands: steps, seconds, and each run's minutes, steps and note.
Progress = tuple[int, float, list[dict[str, float | str]]]


class BonusNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            )

        self.features = nn.Sequential(
            block(3, 24, stride=2),  # 32 x 24
            block(24, 48),
            nn.MaxPool2d(2),  # 16 x 12
            block(48, 64),
            nn.MaxPool2d(2),  # 8 x 6
            block(64, 128),
        )
        self.kind = nn.Linear(128, len(KINDS))
        self.number = nn.Linear(128, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x).mean(dim=(2, 3))
        return self.kind(f), self.number(f)


class Exported(nn.Module):
    """What ships: BGR 0-255 crops in, the two heads' probabilities side by side out."""

    def __init__(self, net: BonusNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kind, number = self.net(x / 127.5 - 1.0)
        return torch.cat([F.softmax(kind, dim=1), F.softmax(number, dim=1)], dim=1)


# A batch's shares: font-drawn bonus faces, the packaged sets' bonus tiles and their other
# faces (56 and 306 faces: without shares of their own they were a twentieth of their pools,
# their bonus tiles read at 8-43 % and their dragons and winds taken for bonus tiles), the
# drawn sets' bonus tiles, and the rest the drawn sets' other faces.
SHARES = {"fonts": 0.25, "sets_bonus": 0.12, "drawn_bonus": 0.08, "sets_other": 0.2}
# Hard negatives (bonus_data.HARD_KINDS, dragons and winds lettered in the training fonts, and
# the training crops the starting reader was surest were a bonus tile): a share of each batch
# taken from the drawn sets' other faces (``--hard``), and a weight on their loss
# (``--hard-weight``).
HARD_SHARE = 0.0
HARD_WEIGHT = 1.0
# The share of crops seen at the table camera's own 18-28 px a tile, where a corner's number or
# a small name is 2-5 px tall (the rest at 18-43 px).
NARROW = 0.75
# The share of crops further blurred and flattened in contrast (bonus_data.softened), by
# default (``--soft``): 30 % cost the reader its certainty at the gate's bar (bench/vision/
# README.md, eighteenth round). Font-drawn faces whose name is already tiny ("fonts_tiny")
# are never softened: a name the camera leaves a few pixels tall, blurred further, only
# teaches the reader to spread its probability.
SOFT = 0.1
KEPT_SHARP = ("fonts_tiny",)


def batch(
    pools: dict[str, Faces],
    rng: np.random.Generator,
    size: int,
    soft: float = SOFT,
    hard: float = HARD_SHARE,
    hard_weight: float = HARD_WEIGHT,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A batch of crops, their answers and each crop's weight in the loss."""
    counts = {name: round(share * size) for name, share in SHARES.items()}
    counts["hard"] = round(hard * size) if pools.get("hard") else 0
    counts["other"] = size - sum(counts.values())
    # The font-drawn faces' share, split between the two pools by their sizes.
    drawn = len(pools["fonts"]) + len(pools["fonts_tiny"])
    counts["fonts_tiny"] = round(counts["fonts"] * len(pools["fonts_tiny"]) / drawn)
    counts["fonts"] -= counts["fonts_tiny"]
    parts = [
        crops_of(pools[name], rng, count, narrow=NARROW, soft=0.0 if name in KEPT_SHARP else soft)
        for name, count in counts.items()
        if count
    ]
    xs = np.concatenate([p[0] for p in parts])
    ys = np.concatenate([p[1] for p in parts])
    weights = np.concatenate(
        [np.full(count, hard_weight if name == "hard" else 1.0) for name, count in counts.items()]
    )
    return (
        torch.from_numpy(xs / 127.5 - 1.0).float(),
        torch.from_numpy(ys),
        torch.from_numpy(weights).float(),
    )


def loss_of(
    net: nn.Module, x: torch.Tensor, y: torch.Tensor, weight: torch.Tensor | None = None
) -> tuple[torch.Tensor, float]:
    kind, number = net(x)
    each = F.cross_entropy(kind, y, label_smoothing=0.05, reduction="none")
    loss = each.mean() if weight is None else (each * weight).sum() / weight.sum()
    bonus = y != NOT_BONUS_INDEX
    if bonus.any():
        # The number of a bonus kind: F1 and S1 are 1, ... (the index within its four).
        loss = loss + 0.5 * F.cross_entropy(number[bonus], y[bonus] % 4)
    return loss, float((kind.argmax(1) == y).float().mean())


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=40.0, help="this run's training time")
    parser.add_argument("--batch", type=int, default=96)
    parser.add_argument("--font-faces", type=int, default=6144)
    parser.add_argument("--drawn", type=int, default=200, help="drawn sets in training fonts")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--lr", type=float, default=1e-3, help="this run's peak learning rate")
    parser.add_argument(
        "--soft", type=float, default=SOFT, help="share of crops further blurred and flattened"
    )
    parser.add_argument(
        "--hard", type=float, default=HARD_SHARE, help="share of each batch hard negatives"
    )
    parser.add_argument(
        "--hard-weight", type=float, default=HARD_WEIGHT, help="hard negatives' loss weight"
    )
    parser.add_argument(
        "--honours", type=int, default=0, help="dragons and winds lettered in training fonts"
    )
    parser.add_argument(
        "--mine", type=int, default=0, help="other faces the starting reader is surest of, added"
    )
    parser.add_argument(
        "--sparse", type=float, default=SPARSE, help="share of font-drawn faces drawn sparse"
    )
    parser.add_argument(
        "--qat",
        action="store_true",
        help="fine-tune for the 8-bit copy (fake quantisation as it runs: reader_qat.py); "
        "exports the float network the copy is quantised from",
    )
    parser.add_argument(
        "--imitate",
        action="store_true",
        help="with --qat: learn --init's own probabilities, not the answers",
    )
    parser.add_argument("--note", default="", help="what this run changed (provenance)")
    parser.add_argument(
        "--checkpoint", type=Path, default=ROOT / "build" / "bonus" / "checkpoint.pt"
    )
    parser.add_argument("--out", type=Path, default=MODELS_DIR / BONUS_FILE)
    parser.add_argument(
        "--init",
        type=Path,
        default=MODELS_DIR / BONUS_FILE,
        help="with no checkpoint, start from this exported model (a missing file: from nothing)",
    )
    parser.add_argument(
        "--export-only", action="store_true", help="export the checkpoint as it stands, and stop"
    )
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    if args.export_only:
        return export_checkpoint(args)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    pools = training_pools(args.font_faces, args.drawn, args.seed, args.honours, args.sparse)
    net, trained, opt, (step, trained_s, history) = starting_point(args, pools)
    teacher = imitated(args, pools)
    print({k: len(v) for k, v in pools.items()}, flush=True)
    rng = np.random.default_rng([args.seed, step])
    first_step, fresh_optimiser = step, step > 0 and not args.checkpoint.exists()

    def save() -> None:
        args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        weights = {"qat": trained.state_dict()} if args.qat else {"net": net.state_dict()}
        state = weights | {"opt": opt.state_dict(), "step": step}
        state |= {"seconds": trained_s + time.monotonic() - start, "history": runs_so_far()}
        torch.save(state, args.checkpoint)

    def runs_so_far() -> list[dict[str, float | str]]:
        this: dict[str, float | str] = {
            "minutes": round((time.monotonic() - start) / 60, 1),
            "steps": step - first_step,
        }
        return [*history, this | ({"note": args.note} if args.note else {})]

    start = time.monotonic()
    last_save = start
    losses: list[float] = []
    trained.train()
    while time.monotonic() - start < args.minutes * 60:
        # Each run decays its own learning rate from ``--lr`` on a cosine over its minutes
        # (runs are an hour at most; each starts from the last one's weights).
        t = min(1.0, (time.monotonic() - start) / (args.minutes * 60))
        # A fresh optimiser warms up over its first 300 steps.
        warm = min(1.0, (step - first_step + 1) / 300) if fresh_optimiser else 1.0
        for group in opt.param_groups:
            group["lr"] = args.lr * warm * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * t)))
        x, y, w = batch(pools, rng, args.batch, args.soft, args.hard, args.hard_weight)
        if teacher is None:
            loss, acc = loss_of(trained, x, y, w)
        else:
            loss, acc = reader_qat.imitation_loss(trained, teacher, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        step += 1
        if args.qat and step - first_step == reader_qat.OBSERVED_STEPS:
            reader_qat.freeze_ranges(trained)
        if step % 200 == 0:
            elapsed = time.monotonic() - start
            print(f"step {step} {elapsed:.0f}s loss {np.mean(losses[-200:]):.3f} acc {acc:.3f}")
            sys.stdout.flush()
        if time.monotonic() - last_save > 180:
            save()
            last_save = time.monotonic()
    save()
    seconds = trained_s + time.monotonic() - start
    if args.qat:
        reader_qat.to_float(trained, net)
    export(net, args, step, seconds, float(np.mean(losses[-200:])), runs_so_far())
    return 0


def starting_point(
    args: argparse.Namespace, pools: dict[str, Faces]
) -> tuple[BonusNet, nn.Module, torch.optim.Optimizer, Progress]:
    """The network, what is trained (the network itself, or with ``--qat`` its layout for 8
    bits sharing nothing with it until exported), the optimiser, and where training stands
    (steps, seconds, runs): from the checkpoint, else from ``--init``, else from nothing."""
    net = BonusNet()
    progress: Progress = (0, 0.0, [])
    state = torch.load(args.checkpoint, weights_only=False) if args.checkpoint.exists() else None
    if state is None and args.init is not None and args.init.exists():
        progress = start_from_onnx(net, args.init, pools)
        print(f"from {args.init}: step {progress[0]}, {progress[1] / 60:.1f} min", flush=True)
        if args.mine:
            mined = mine_hard_negatives(net, pools, args.mine, np.random.default_rng(args.seed))
            pools["hard"] = pools["hard"] + mined
    elif state is None and args.qat:
        raise SystemExit(f"--qat fine-tunes a trained network: no {args.init}")
    trained: nn.Module = reader_qat.prepare(net) if args.qat else net
    opt = torch.optim.AdamW(trained.parameters(), lr=2e-3, weight_decay=1e-4)
    if state is not None:
        if args.qat != ("qat" in state):
            kind = "float" if args.qat else "QAT"
            raise SystemExit(f"{args.checkpoint}: a {kind} checkpoint (--qat is {args.qat})")
        trained.load_state_dict(state["qat" if args.qat else "net"])
        opt.load_state_dict(state["opt"])
        progress = (state["step"], state["seconds"], state.get("history", []))
        print(f"resumed at step {progress[0]} ({progress[1] / 60:.1f} min trained)", flush=True)
    return net, trained, opt, progress


def imitated(args: argparse.Namespace, pools: dict[str, Faces]) -> BonusNet | None:
    """With ``--imitate``: the float network ``--init`` (in evaluation) whose probabilities
    the 8-bit layout learns; else None."""
    if not args.imitate:
        return None
    if not args.qat:
        raise SystemExit("--imitate: only with --qat (the copy learns its float network)")
    teacher = BonusNet()
    start_from_onnx(teacher, args.init, pools)
    return teacher.eval()


def export_checkpoint(args: argparse.Namespace) -> int:
    """The checkpoint as ``--out`` (to measure a run while it goes on, or one cut short)."""
    if not args.checkpoint.exists():
        raise SystemExit(f"no checkpoint at {args.checkpoint}")
    state = torch.load(args.checkpoint, weights_only=False)
    net = BonusNet()
    if "qat" in state:
        trained = reader_qat.prepare(net)
        trained.load_state_dict(state["qat"])
        reader_qat.to_float(trained, net)
    else:
        net.load_state_dict(state["net"])
    export(net, args, state["step"], state["seconds"], None, state.get("history", []))
    return 0


def start_from_onnx(net: BonusNet, onnx_path: Path, pools: dict[str, Faces]) -> Progress:
    """The exported model's weights (batch norms fitted to reproduce them on a batch of
    training crops), and where its training stood: steps, seconds, runs."""
    x, _, _ = batch(pools, np.random.default_rng(0), 512)
    weights = unfold_convolutions(net.features, onnx_path, (x + 1.0) * 127.5)
    with torch.no_grad():
        for head in ("kind", "number"):
            layer = getattr(net, head)
            layer.weight.copy_(torch.from_numpy(weights[f"net.{head}.weight"].copy()))
            layer.bias.copy_(torch.from_numpy(weights[f"net.{head}.bias"].copy()))
    meta = json.loads(onnx_path.with_suffix(".json").read_text())
    history = meta.get("runs") or [{"minutes": meta["minutes"], "steps": meta["steps"]}]
    return int(meta["steps"]), 60.0 * float(meta["minutes"]), list(history)


def export(
    net: BonusNet,
    args: argparse.Namespace,
    steps: int,
    seconds: float,
    loss: float | None,
    runs: list[dict[str, float | str]],
) -> None:
    net.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export_crop_model(Exported(net), args.out, "read")
    meta = {
        "input": {"shape": [3, CROP_H, CROP_W], "channels": "BGR", "range": "0-255"},
        "output": "probabilities: 9 kinds (F1-F4, S1-S4, not a bonus tile), then numbers 1-4",
        "kinds": list(KINDS),
        "training_fonts": list(TRAINING_FONTS),
        "held_out_fonts": list(HELD_OUT_FONTS),
        "held_out_hands": list(HELD_OUT_HANDS),
        "training_latin_fonts": list(TRAINING_LATIN_ALL),
        "sparse_faces": args.sparse,
        "narrow_crops": NARROW,
        "softened_crops": args.soft,
        "hard_negative_kinds": list(HARD_KINDS),
        "hard_negative_share": args.hard,
        "hard_negative_weight": args.hard_weight,
        "font_honour_faces": args.honours,
        "mined_hard_negatives": args.mine,
        "quantisation_aware": args.qat,
        "imitating": str(args.init) if args.imitate else None,
        "tiny_names_never_softened_below_px": TINY_NAME_PX,
        "held_out_latin_fonts": list(HELD_OUT_LATIN),
        "held_out_sets": list(HELD_OUT_SETS),
        "font_faces": args.font_faces,
        "drawn_sets": args.drawn,
        "steps": steps,
        "batch": args.batch,
        "seed": args.seed,
        "minutes": round(seconds / 60, 1),
        "runs": runs,
        "final_loss": None if loss is None else round(loss, 4),
        "torch": torch.__version__,
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta))


if __name__ == "__main__":
    sys.exit(main())
