"""How near one embedding network's vectors lie to another's, crop by crop.

    .venv/bin/python bench/vision/embedder_agreement.py --network /somewhere/tile_embed.onnx \
        [--against vision/models/tile_embed.onnx] [--per-face 2] [--json out.json]

Each network runs as the scanner runs it (vision/embedder.py: its 8-bit copy where one lies
beside it, each crop both ways up or once as its json says). Camera-like crops
(synthetic_crop, turned half of them at random) of every face of each art set, the same crops
for both; printed per set: the mean cosine between the two networks' unit vectors, its tenth
percentile, and the mean cosine between a network's vectors of a crop and of it turned (1 for
a network run both ways up). Measuring only: nothing here is fitted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from report_file import show_and_write  # noqa: E402

from vision.embedder import EMBEDDER_FILE, MODELS_DIR, Embedder  # noqa: E402
from vision.synth.artwork import ART_SETS, load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402


def set_crops(name: str, per_face: int, seed: int) -> list[np.ndarray]:
    """``per_face`` camera-like crops of every face of art set ``name``."""
    rng = np.random.default_rng([seed, list(ART_SETS).index(name)])
    faces = load_set(name).values()
    return [synthetic_crop(face, rng) for face in faces for _ in range(per_face)]


def agreement(network: Embedder, against: Embedder, crops: list[np.ndarray]) -> dict[str, float]:
    """The cosines between the two networks' vectors of ``crops``, and each network's
    between a crop and it turned."""
    turned = [np.asarray(cv2.rotate(c, cv2.ROTATE_180), np.uint8) for c in crops]
    mine, theirs = network.embed(crops), against.embed(crops)
    cos = (mine * theirs).sum(axis=1)
    return {
        "crops": len(crops),
        "mean_cosine": round(float(cos.mean()), 4),
        "p10_cosine": round(float(np.percentile(cos, 10)), 4),
        "turned_cosine": round(float((mine * network.embed(turned)).sum(axis=1).mean()), 4),
        "against_turned_cosine": round(
            float((theirs * against.embed(turned)).sum(axis=1).mean()), 4
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--network", type=Path, required=True)
    parser.add_argument("--against", type=Path, default=MODELS_DIR / EMBEDDER_FILE)
    parser.add_argument("--sets", nargs="*", default=list(ART_SETS))
    parser.add_argument("--per-face", type=int, default=2)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    unknown = sorted(set(args.sets) - set(ART_SETS))
    if unknown:
        parser.error(f"--sets: unknown art sets {unknown}; known: {list(ART_SETS)}")
    network, against = Embedder(args.network, threads=1), Embedder(args.against, threads=1)
    out = {
        "network": {"path": str(args.network), "ways": network.ways},
        "against": {"path": str(args.against), "ways": against.ways},
        "sets": {
            name: agreement(network, against, set_crops(name, args.per_face, args.seed))
            for name in args.sets
        },
    }
    show_and_write(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
