"""The mixed sets' never-enrolled crops (``bench_vision.py --identity-only``'s part 2, the
same crops to the pixel) looked at once, and replayed through the bonus gate with the
bonus-tile reader at several temperatures (vision/bonus.py ``Temperatures``).

    .venv/bin/python bench/vision/replay_temperatures.py [--onnx PATH] [--bars PATH] \\
        [--temperatures 1,1,1 0.6,1,0.77 ...]

A diagnosis, not a way to choose: these are the crops the benchmark measures, so a
temperature or a bar chosen on them would spoil them as a measure (temperatures are fitted by
fit_temperature.py on training crops, bars chosen by choose_bars.py on the calibration group).
For each temperature (name,category,number): right / wrong / abstained, the bonus tiles named
right, and every crossing (a bonus tile named as another kind, or the reverse) with the path
of the gate that gave it and both looks' numbers. At 1,1,1 with the committed reader and bars
it repeats the benchmark's ``new`` row of "never enrolled" to the crop.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_looks import Look, decided, looks_of
from identity_parts import never_enrolled_start

from vision.bonus import BONUS_FILE, BONUS_KINDS, BonusReader, Temperatures, reading_from
from vision.bonus_gate import BARS_FILE, GateBars
from vision.embedder import MODELS_DIR, Embedder
from vision.synth.crops import synthetic_crop
from vision.threads import SCAN_THREADS


def never_enrolled(
    reader: BonusReader, per_kind: int, seed: int
) -> tuple[list[Look], list[str], np.ndarray, np.ndarray]:
    """Part 2's never-enrolled crops as the benchmark draws them (part 1's draws first), their
    looks, their sets, and the reader's own probabilities of them."""
    rng, sets, new, enrolled = never_enrolled_start(Embedder(), per_kind, seed)
    new.bonus_reader = reader
    rows: list[tuple[str, str, np.ndarray]] = []
    for name, faces in sets.items():
        for label, face in faces.items():
            for _ in range(max(1, per_kind // 2)):
                crop = synthetic_crop(face, rng)
                if name not in enrolled[label]:
                    rows.append((name, label, crop))
    crops = [c for *_, c in rows]
    looks = looks_of(new, crops, [t for _, t, _ in rows])
    kinds, numbers = reader.probabilities(crops)
    return looks, [name for name, *_ in rows], kinds, numbers


def replay(
    looks: list[Look],
    sets: list[str],
    kinds: np.ndarray,
    numbers: np.ndarray,
    bars: GateBars,
    temperatures: Temperatures,
) -> None:
    """One temperature's scores and crossings, printed."""
    k, m = temperatures.apply(kinds, numbers)
    right = wrong = abstained = bonus = bonus_right = 0
    crossings: list[str] = []
    for look, name, kp, mp in zip(looks, sets, k, m, strict=True):
        reading = reading_from(kp, mp)
        said = decided(look._replace(reading=reading), bars)
        if look.truth in BONUS_KINDS:
            bonus += 1
            bonus_right += said.label == look.truth
        if said.label is None:
            abstained += 1
        elif said.label == look.truth:
            right += 1
        else:
            wrong += 1
            if (said.label in BONUS_KINDS) != (look.truth in BONUS_KINDS):
                f = look.first
                crossings.append(
                    f"{name} {look.truth}->{said.label} by '{said.how}': first look "
                    f"{f.label}/{f.best} {f.confidence:.2f}, bonus share {f.bonus_share:.3f}, "
                    f"like {f.similarity:.2f}; reader bonus {reading.bonus_probability:.3f}, "
                    f"{reading.best_bonus} {reading.best_bonus_share:.2f}, number "
                    f"{reading.number} {reading.number_confidence:.2f}"
                )
    n = max(1, len(looks))
    t = temperatures
    print(
        f"temperatures {t.name},{t.category},{t.number}: right / wrong / abstained "
        f"{100 * right / n:.1f} / {100 * wrong / n:.1f} / {100 * abstained / n:.1f} %, "
        f"bonus tiles {100 * bonus_right / max(1, bonus):.1f} % ({bonus_right}/{bonus}), "
        f"crossings {len(crossings)}",
        flush=True,
    )
    for line in crossings:
        print("   ", line, flush=True)


def temperatures_arg(text: str) -> Temperatures:
    try:
        name, category, number = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want name,category,number") from None
    return Temperatures(name, category, number)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=MODELS_DIR / BONUS_FILE)
    parser.add_argument("--bars", type=Path, default=MODELS_DIR / BARS_FILE)
    parser.add_argument("--per-kind", type=int, default=6)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--temperatures",
        type=temperatures_arg,
        nargs="+",
        default=[Temperatures()],
        help="name,category,number (the network's own: 1,1,1)",
    )
    args = parser.parse_args()
    SCAN_THREADS.apply()
    reader = BonusReader(args.onnx, Temperatures())
    looks, sets, kinds, numbers = never_enrolled(reader, args.per_kind, args.seed)
    bars = GateBars.from_file(args.bars)
    print(f"reader {args.onnx}, bars {args.bars}, {len(looks)} crops", flush=True)
    for temperatures in args.temperatures:
        replay(looks, sets, kinds, numbers, bars, temperatures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
