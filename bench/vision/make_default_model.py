"""Build the bundled model directory (vision/models/default) from rendered crops.

    .venv/bin/python bench/vision/make_default_model.py [--per-face 3]

It is `mjtable vision enroll` run on synthetic photos: ``--per-face`` camera-like crops of every
face of every training art set (the sets named in vision/models/tile_embed.json; the held-out
sets stay out, so benchmarks on them are fair). The scanner uses it until the table enrols its
own tiles.
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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-face", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--procedural",
        type=int,
        default=0,
        help="also enrol this many procedural art sets (vision/synth/procedural.py)",
    )
    args = parser.parse_args()
    meta = json.loads((MODELS_DIR / "tile_embed.json").read_text())
    rng = np.random.default_rng(args.seed)
    samples = []
    for name in meta["train_sets"]:
        for label, face in load_set(name).items():
            samples += [(label, synthetic_crop(face, rng)) for _ in range(args.per_face)]
    for seed in range(args.procedural):
        faces = procedural_set(50_000 + seed)  # not the seeds the network was trained on
        samples += [(label, synthetic_crop(face, rng)) for label, face in faces.items()]
    recogniser = Recogniser.enrol(Embedder(MODELS_DIR / "tile_embed.onnx"), samples)
    recogniser.save(DEFAULT_MODEL_DIR, len(samples), copy_embedder=False)
    print(
        json.dumps(
            {
                "sets": meta["train_sets"],
                "images": len(samples),
                "temperature": recogniser.temperature,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
