"""Fit the bonus-tile reader's temperatures (vision/bonus.py ``Temperatures``) and store them
in its ``.json``, where the reader and the gate's bars (choose_bars.py) take them from.

    .venv/bin/python bench/vision/fit_temperature.py                    # the committed reader
    .venv/bin/python bench/vision/fit_temperature.py --onnx PATH --dry-run
    .venv/bin/python bench/vision/fit_temperature.py --float    # the float network, not its copy

The reader runs its 8-bit copy where one lies beside the float network; the copy's
temperatures are fitted the same way and stored under the ``.json``'s "quantised".

The reader is trained with label smoothing and on crops softened on purpose, so its own
probabilities need not say how often it is right; the gate only takes its name at a bar
(``read_sure``) and weighs its bonus probability as log-odds. Each part's temperature (the
name among the eight, some bonus tile or none, the number) is the one that makes the
network's own probabilities most likely (least negative log-likelihood) on crops of what it
was trained on: bonus faces newly drawn in the training fonts, the packaged training sets'
faces, and drawn sets lettered in the training fonts from seeds training never drew (never
the held-out fonts, hands or sets, which measure the result: bench_bonus.py). The crops are
as the camera cuts them (vision/synth/crops.py), half at the table camera's 18-28 px a tile,
in a batch's shares of the sources.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bonus_data import (
    HELD_OUT_SETS,
    TRAINING_LATIN_ALL,
    Faces,
    art_faces,
    crops_of,
    drawn_sets,
    font_faces,
    require_fonts,
)

from vision.bonus import BONUS_FILE, BONUS_KINDS, BonusReader, Temperatures
from vision.embedder import MODELS_DIR
from vision.synth.artwork import ART_SETS
from vision.synth.bonus_faces import TRAINING_FONTS, TRAINING_LATIN_EXTRA

# Seeds of the faces and drawn sets fitted on: training draws its fonts' faces from seed 33
# and its drawn sets from seed 0 on; the held-out drawn sets start at 100,000, the gate's
# calibration sets at 60,000.
FIT_SEED = 4_321
DRAWN_FROM = 40_000
# A batch's shares (train_bonus.SHARES), the rest the drawn sets' other faces.
SHARES = {"fonts": 0.25, "sets_bonus": 0.12, "drawn_bonus": 0.08, "sets_other": 0.2}
GRID = np.exp(np.linspace(np.log(0.2), np.log(5.0), 161))
NOT_BONUS_INDEX = len(BONUS_KINDS)
PARTS = ("name", "category", "number")


def fit_pools(font_count: int, drawn: int, sparse: float) -> dict[str, Faces]:
    """What the temperatures are fitted on, by source (nothing held out)."""
    require_fonts(TRAINING_FONTS + TRAINING_LATIN_EXTRA)
    packaged = [s for s in ART_SETS if s not in HELD_OUT_SETS]
    sets_bonus, sets_other = art_faces(packaged)
    drawn_bonus, drawn_other = art_faces(drawn_sets(drawn, TRAINING_FONTS, first=DRAWN_FROM))
    fonts = font_faces(font_count, TRAINING_FONTS, FIT_SEED, TRAINING_LATIN_ALL, sparse)
    return {
        "fonts": fonts,
        "sets_bonus": sets_bonus,
        "drawn_bonus": drawn_bonus,
        "sets_other": sets_other,
        "other": drawn_other,
    }


def fit_crops(
    pools: dict[str, Faces], count: int, seed: int
) -> tuple[list[np.ndarray], np.ndarray]:
    """``count`` camera-like crops in a batch's shares (BGR, H x W x 3) and their answers."""
    rng = np.random.default_rng(seed)
    counts = {name: round(share * count) for name, share in SHARES.items()}
    counts["other"] = count - sum(counts.values())
    crops: list[np.ndarray] = []
    answers: list[np.ndarray] = []
    for name, n in counts.items():
        xs, ys = crops_of(pools[name], rng, n, narrow=0.5)
        crops += [np.ascontiguousarray(x.transpose(1, 2, 0)).astype(np.uint8) for x in xs]
        answers.append(ys)
    return crops, np.concatenate(answers)


def _nll(
    temperature: float, kind_p: np.ndarray, number_p: np.ndarray, y: np.ndarray
) -> dict[str, float]:
    """Each part's mean negative log-likelihood at one temperature for all three parts."""
    t = Temperatures(temperature, temperature, temperature)
    kinds, numbers = t.apply(kind_p, number_p)
    bonus = y != NOT_BONUS_INDEX
    p_bonus = np.clip(kinds[:, :NOT_BONUS_INDEX].sum(axis=1), 1e-12, 1 - 1e-12)
    shares = kinds[bonus, :NOT_BONUS_INDEX] / p_bonus[bonus, None]
    rows = np.arange(int(bonus.sum()))
    return {
        "name": float(-np.log(np.maximum(shares[rows, y[bonus]], 1e-12)).mean()),
        "category": float(-np.log(np.where(bonus, p_bonus, 1 - p_bonus)).mean()),
        "number": float(-np.log(np.maximum(numbers[bonus][rows, y[bonus] % 4], 1e-12)).mean()),
    }


def fit(kind_p: np.ndarray, number_p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Each part's temperature of least negative log-likelihood on the grid, and the
    likelihoods at 1 and there. (The parts do not interact: each part's likelihood depends
    on its own temperature alone.)"""
    curves = [_nll(float(t), kind_p, number_p, y) for t in GRID]
    at_one = _nll(1.0, kind_p, number_p, y)
    out: dict[str, Any] = {}
    for part in PARTS:
        best = int(np.argmin([c[part] for c in curves]))
        out[part] = {
            "temperature": round(float(GRID[best]), 3),
            "nll at 1": round(at_one[part], 4),
            "nll fitted": round(curves[best][part], 4),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=MODELS_DIR / BONUS_FILE)
    parser.add_argument("--crops", type=int, default=6000)
    parser.add_argument("--font-faces", type=int, default=1024)
    parser.add_argument("--drawn", type=int, default=40, help="drawn sets in training fonts")
    parser.add_argument(
        "--sparse", type=float, default=0.4, help="share of sparse font-drawn faces"
    )
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=PARTS,
        default=list(PARTS),
        help="the parts fitted (the others stay at 1, the network's own)",
    )
    parser.add_argument("--dry-run", action="store_true", help="fit and print; store nothing")
    parser.add_argument(
        "--float", action="store_true", help="the float network, not its 8-bit copy beside it"
    )
    args = parser.parse_args()
    reader = BonusReader(args.onnx, Temperatures(), quantised=not args.float)
    pools = fit_pools(args.font_faces, args.drawn, args.sparse)
    crops, y = fit_crops(pools, args.crops, FIT_SEED)
    kind_p, number_p = [], []
    for n in range(0, len(crops), 512):
        k, m = reader.probabilities(crops[n : n + 512])
        kind_p.append(k)
        number_p.append(m)
    fitted = fit(np.concatenate(kind_p), np.concatenate(number_p), y)
    temperatures = Temperatures(**{part: fitted[part]["temperature"] for part in args.parts})
    record = asdict(temperatures) | {
        "fitted on": {
            "crops": len(crops),
            "bonus crops": int((y != NOT_BONUS_INDEX).sum()),
            "sources": {name: len(faces) for name, faces in pools.items()},
            "font faces seed": FIT_SEED,
            "drawn sets from seed": DRAWN_FROM,
            "sparse faces": args.sparse,
            "parts fitted": args.parts,
            "negative log-likelihood": fitted,
        },
        "command": "bench/vision/fit_temperature.py " + " ".join(sys.argv[1:]),
        "8 bits": reader.quantised,
    }
    print(json.dumps(record, indent=1), flush=True)
    if not args.dry_run:
        meta_path = args.onnx.with_suffix(".json")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        (meta["quantised"] if reader.quantised else meta)["temperature"] = record
        text = json.dumps(meta, indent=2, ensure_ascii=False)
        meta_path.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
