"""Build the bundled model directory (vision/models/default) from rendered crops.

    .venv/bin/python bench/vision/make_default_model.py [--per-face 3]

It is `mjtable vision enroll` run on synthetic photos: ``--per-face`` camera-like crops of every
face of every training art set (the sets named in vision/models/tile_embed.json; the held-out
sets stay out, so benchmarks on them are fair), of each kind's prototypes the half that covers
the rest best (``--keep``). The scanner uses it until the table enrols its own tiles.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.embedder import MODELS_DIR, Embedder  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Recogniser  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402

# Half of each kind's prototypes, those that cover the rest best: the bundle's product was
# five sixths of the matching on an enrolled table. Parts 1-3 of bench_vision.py measured
# beside the whole bundle in bench/vision/README.md ("Twentieth round").
KEEP = 0.5


def farthest_first(vectors: np.ndarray, count: int) -> list[int]:
    """``count`` of the unit ``vectors`` chosen so that every one is as near one of them as
    can be (each next the one least like those chosen so far), the most central first."""
    first = int(np.argmax(vectors @ vectors.mean(axis=0)))
    chosen, nearest = [first], vectors @ vectors[first]
    while len(chosen) < min(count, len(vectors)):
        far = int(np.argmin(nearest))
        chosen.append(far)
        nearest = np.maximum(nearest, vectors @ vectors[far])
    return chosen


def covering(labels: list[str], vectors: np.ndarray, share: float) -> list[int]:
    """Of each kind's prototypes, ``share`` of them (at least one) that cover the rest
    (:func:`farthest_first`), in their order."""
    keep: list[int] = []
    names = np.array(labels)
    for label in dict.fromkeys(labels):
        mine = np.flatnonzero(names == label)
        count = max(1, round(len(mine) * share))
        keep += [int(mine[k]) for k in farthest_first(vectors[mine], count)]
    return sorted(keep)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-face", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--keep",
        type=float,
        default=KEEP,
        help="the share of each kind's prototypes kept, those that cover the rest best",
    )
    parser.add_argument(
        "--procedural",
        type=int,
        default=0,
        help="also enrol this many procedural art sets (vision/synth/procedural.py)",
    )
    args = parser.parse_args()
    if not 0 < args.keep <= 1:
        parser.error(f"--keep {args.keep}: a share above 0 and at most 1")
    meta = json.loads((MODELS_DIR / "tile_embed.json").read_text())
    rng = np.random.default_rng(args.seed)
    samples, sources = [], []
    for name in meta["train_sets"]:
        for label, face in load_set(name).items():
            samples += [(label, synthetic_crop(face, rng)) for _ in range(args.per_face)]
            sources += [name] * args.per_face
    for seed in range(args.procedural):
        faces = procedural_set(50_000 + seed)  # not the seeds the network was trained on
        samples += [(label, synthetic_crop(face, rng)) for label, face in faces.items()]
        sources += [f"procedural#{50_000 + seed}"] * len(faces)
    recogniser = Recogniser.enrol(Embedder(MODELS_DIR / "tile_embed.onnx"), samples)
    # Each photo's variants follow one another (Recogniser.enrol).
    owners = np.repeat(np.array(sources), len(recogniser.labels) // len(samples))
    keep = covering(recogniser.labels, recogniser.vectors, args.keep)
    recogniser.labels = [recogniser.labels[k] for k in keep]
    recogniser.vectors = recogniser.vectors[keep]
    recogniser.save(DEFAULT_MODEL_DIR, len(samples), copy_embedder=False, sources=owners[keep])
    print(
        json.dumps(
            {
                "sets": meta["train_sets"],
                "images": len(samples),
                "prototypes": len(keep),
                "temperature": recogniser.temperature,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
