"""Part 3c of the vision benchmark (bench_vision.py): dice that touch, and the usual throw."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from identity_parts import HELD_OUT  # noqa: E402
from other_revision import OtherRevision  # noqa: E402

from vision.calibration import calibrate  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Recogniser  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.scan import Scanner  # noqa: E402
from vision.synth.layout import random_layout  # noqa: E402
from vision.synth.render import Style, render  # noqa: E402


def _dice_score(seen: list[tuple[float, float, int | None]], truth: list[Any]) -> tuple[int, int]:
    """(dice read right, 1 if both are): each true die against the die seen within 4 mm."""
    right = 0
    for die in truth:
        near = [p for x, y, p in seen if np.hypot(x - die.x, y - die.y) < 4]
        right += len(near) == 1 and near[0] == die.value
    return right, int(right == len(truth))


def dice_bench(count: int, seed: int, other: OtherRevision | None = None) -> dict[str, Any]:
    """Part 3c, dice that touch: ``count`` rendered tables whose two dice rest against each
    other (each at its own turn, up to 0.8 mm apart, shadows joined), and as many with the
    usual throw; the dice each scan reads (this tree, and with --against the other's)."""
    g = TableGeometry()
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    model = None
    if other is not None:
        default, model = other.shared_model(default)
    sides = ["this"] + ([other.rev] if other is not None else [])
    out: dict[str, Any] = {"frames": count}
    for throw, touching in (("touching", 1.0), ("apart", 0.0)):
        score = {s: {"dice": 0, "pairs": 0} for s in sides}
        for i in range(count):
            rng = np.random.default_rng(seed + 3000 + i)
            style = Style.random(rng, [*HELD_OUT, "symbola"][i % 3])
            layout = random_layout(
                rng, LABELS, g, discards=30, exposures=2, walls=False, dice_touching=touching
            )
            r = render(layout, style, rng, g)
            cal = calibrate(r.image, g)
            for side in sides:
                if side == "this":
                    dice = Scanner(cal, default).scan(r.image).dice
                    seen = [(d.x, d.y, d.pips) for d in dice]
                else:
                    assert other is not None and model is not None
                    reply = other.scan(r.image, cal, model, dice=True)
                    seen = [(x, y, p) for x, y, p in reply["dice"]]
                right, pair = _dice_score(seen, layout.dice)
                score[side]["dice"] += right
                score[side]["pairs"] += pair
        out[throw] = {
            side: {
                "dice_read": score[side]["dice"] / (2 * count),
                "pairs_read": score[side]["pairs"] / count,
            }
            for side in sides
        }
    return out
