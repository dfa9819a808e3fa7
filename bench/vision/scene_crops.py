"""Training crops cut from whole rendered frames by the scanner's own finder.

    .venv/bin/python bench/vision/scene_crops.py --frames-per-set 40 --procedural 200 \
        --out /tmp/scene_crops.npz

`synthetic_crop` imitates a crop; this cuts real ones: full 1920x1080 frames rendered by
vision/synth/render.py (perspective, light, shadows, touching and sideways tiles, blur, JPEG), the
tiles found by vision/finder/ and cut by `tile_crop` exactly as `mjtable vision scan` does,
each labelled with the rendered truth within 10 mm. Training on them closes the gap between
what the network learns from and what it is shown at the table. Only the training art sets
(not the held-out ones named by ``--hold-out``) and procedural sets with seeds of their own
(``procedural#20000`` on) are drawn.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.geometry import TableGeometry  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.synth.artwork import ART_SETS, PROCEDURAL_PREFIX, load_set  # noqa: E402
from vision.synth.layout import random_layout  # noqa: E402
from vision.synth.render import Style, render  # noqa: E402
from vision.synth.table_enrol import labelled_crops  # noqa: E402


def crops_of_frame(art: str, rng: np.random.Generator) -> tuple[list[np.ndarray], list[int]]:
    geometry = TableGeometry()
    labels = [lab for lab in LABELS if lab in load_set(art)]
    layout = random_layout(rng, labels, geometry, discards=44, exposures=4, walls=False)
    named = labelled_crops(render(layout, Style.random(rng, art), rng, geometry))
    return [crop for _, crop in named], [LABELS.index(label) for label, _ in named]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames-per-set", type=int, default=40)
    parser.add_argument("--procedural", type=int, default=200, help="procedural sets, 1 frame each")
    parser.add_argument(
        "--hold-out", nargs="*", default=["xmj-real", "kde-traditional", "gnome-smooth"]
    )
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    jobs = [n for n in ART_SETS if n not in args.hold_out] * args.frames_per_set
    jobs += [f"{PROCEDURAL_PREFIX}{20_000 + i}" for i in range(args.procedural)]
    crops: list[np.ndarray] = []
    ys: list[int] = []
    origin: list[str] = []  # the art set of each crop, so a trainer can leave sets out
    start = time.monotonic()
    for i, art in enumerate(jobs):
        c, y = crops_of_frame(art, rng)
        crops += c
        ys += y
        origin += [art] * len(y)
        if i % 20 == 0:
            print(
                f"{i}/{len(jobs)} frames, {len(ys)} crops, {time.monotonic() - start:.0f}s",
                flush=True,
            )
    np.savez_compressed(
        args.out,
        crops=np.stack(crops),
        labels=np.array(ys, np.int16),
        sets=np.array(origin),
    )
    print(f"{len(ys)} crops from {len(jobs)} frames in {time.monotonic() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
