"""Choose the bonus gate's bars (vision/bonus_gate.py ``GateBars``) on the calibration group
with the committed networks, and write them to ``vision/models/gate_bars.json``, which the
recogniser loads.

    .venv/bin/python bench/vision/choose_bars.py            # measure, choose, write
    .venv/bin/python bench/vision/choose_bars.py --dry-run  # measure and choose only

Run it again whenever a network (the embedding, its bundled prototypes, the bonus reader) or
the reader's temperatures (fit_temperature.py) change: the file records the networks and the
temperatures it was chosen with, and a test fails until it is.

**The calibration group** holds the training sets' crops only (never the held-out sets, which
measure the result), each named with that set's own art left out of the bundled prototypes, so
that the set is unlike anything bundled, as a real table's is:
- *never enrolled*: 3 enrolment crops a kind drawn from a mix of training sets, and every
  training set's crops of the kinds not enrolled from it (seeds ``--seeds``);
- *enrolled, mixed*: the same enrolment, the crops of the kinds enrolled from that set;
- *drawn sets, never enrolled*: the same enrolment, the crops of ``--drawn`` sets drawn by
  vision/synth/procedural.py from seeds no network trained on and the benchmark does not use
  (``DRAWN_SEEDS``), art unlike any set enrolled or bundled;
- *enrolled at a width*: each training set enrolled with 3 crops a kind at a fixed tile width
  in camera pixels, its own crops at that width (``--widths``), as the width sweep does with
  the held-out sets;
- *enrolled tables scanned* and *enrolled hands scanned*, one of each a camera size
  (``--sizes``; calibration_scans.py): each training set rendered as whole tables, enrolled
  from 3 frames the finder cut, then ``--tables`` frames and ``--hands`` hands laid out on a
  rack strip scanned, every crop the finder cut (the benchmark's enrolled scan, on other
  sets); and the same of ``--drawn-tables`` drawn sets (*drawn sets, enrolled ...*).

``--looks FILE`` keeps the looks, and a later run chooses from them, measuring only the
groups the file lacks.

Each crop is looked at once (the first look after its shifted second look, the shifted look
the gate may ask for, the reader's reading), and every candidate's answers are replayed from
those looks through the gate itself.

**The rule of choice**: fewest crossings first (a bonus tile named as another kind, or the
reverse: a crossing costs more than any number of the rest); then least cost, every crop
costing 0 named right, 1 abstained, ``WRONG_COST`` named wrong, the enrolled groups' crops
``ENROLLED_WEIGHT`` times that (the decision must never cost a table its own tiles).
Starting from the defaults, each tuned bar in turn takes its candidate value of fewest
crossings and least cost, twice over, but leaves its value only for fewer crossings or a
saving of ``SLACK`` of the crops (the gate decides a few crops in a hundred: smaller
differences are noise). The reading by parts is taken at the lowest candidate bar above the
name's (``fused_sure`` > ``read_sure``) that costs nothing. Crossings are too rare on the
calibration group to choose the safety bars by (they only abstain or read more), so each
takes, in turn, the strictest candidate that crosses no more and costs the enrolled groups
no more than ``ENROLLED_LOSS`` of their crops named right before the safety bars, all of them
together within one ``SLACK`` of cost. A bar that only spares work (``ECONOMY``: which crops
are looked at again) takes the lowest candidate that names every crop as its most thorough
candidate does.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from calibration_scans import (  # noqa: E402
    DRAWN,
    SIZES,
    TABLES,
    drawn_table_sets,
    paths,
    scanned_tables,
)
from gate_looks import WRONG_COST, Look, answer, looks_of, score  # noqa: E402
from identity_parts import (  # noqa: E402
    HELD_OUT,
    TRAIN_SETS,
    enrol_and_test,
    mixed_enrolment,
    own_art_out,
)
from report_file import show_and_write  # noqa: E402
from scan_parts import frame_size  # noqa: E402

from vision.bonus import BonusReader  # noqa: E402
from vision.bonus_gate import BARS_FILE, GateBars  # noqa: E402
from vision.embedder import MODELS_DIR, Embedder  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Recogniser  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402
from vision.threads import SCAN_THREADS  # noqa: E402

# Drawn sets (vision/synth/procedural.py) of seeds from here on: no network trained on them,
# the bundle holds none, and the benchmark draws its own from 90,000.
DRAWN_SEEDS = 60_000
# A table's own enrolled tiles: what the decision must never cost.
ENROLLED_WEIGHT = 4
# The safety bars may cost the enrolled groups this share of their crops named right
# (a crop or two: the groups differ by no more between neighbouring candidates).
ENROLLED_LOSS = 0.0
# A bar leaves its value only for this share of the crops in cost (or for fewer crossings).
SLACK = 0.002
# The bars that only ever abstain or read more, and which way is stricter (+1: higher).
SAFETY = {"near_bonus": -1, "again_side": 1}
# Bars that spare work (a network run) without changing what is named: each takes the lowest
# candidate that names every crop as its last, the most work, does.
ECONOMY = ("again_below",)
# Left off, not searched: closing the width sweep's crossings with them cost the held-out sets,
# enrolled, their own tiles (bench/vision/README.md, seventeenth round), which the
# calibration group does not show: keep_similarity and keep_share (34 bonus tiles named right
# abstained on for 3 crossings), near_share (60 dragons and one bamboos for 1), reader_veto.
OFF = ("keep_similarity", "keep_share", "near_share", "reader_veto")
TUNED = (
    "gate_share",
    "side_margin",
    "read_sure",
    "unlike_below",
    "doubt",
    "clear_share",
    "clear_read",
    "fused_lean",
    "doubt_evidence",
)
# The bars searched, and their candidate values (the others keep their defaults).
SEARCH: dict[str, tuple[float, ...]] = {
    "gate_share": (0.01, 0.02, 0.05, 0.1, 0.2),
    "side_margin": (1.0, 1.5, 2.0, 2.5, 3.0),
    "read_sure": (0.6, 0.7, 0.75, 0.8, 0.85, 0.9),
    "fused_sure": (0.7, 0.8, 0.85, 0.9, 0.95, 1.01),
    "fused_lean": (0.05, 0.2, 0.5, 0.8),
    "near_bonus": (0.05, 0.1, 0.2, 0.5, 1.01),
    "unlike_below": (0.78, 0.82, 0.86),
    "doubt": (0.05, 0.1, 0.2),
    "clear_share": (0.01, 0.02, 0.05),
    "clear_read": (0.2, 0.3, 0.5),
    "doubt_evidence": (3.0, 4.0, 5.0, 6.0, 99.0),
    "again_side": (0.0, 0.3, 0.5, 0.7),
    "again_below": (0.8, 0.85, 0.9, 0.95, 1.01),
}
# Bars that take a searched bar's value with it: the dragons, the one bamboo and blanks are
# read from no larger a bonus share than the other kinds (the gate takes the smaller of the
# two), so a gate_share searched alone would leave them gated from 0.01.
TIED = {"gate_share": ("near_share",)}
# The networks the bars are chosen with (a test compares them with the committed files).
NETWORKS = (
    "tile_embed.onnx",
    "tile_embed.int8.onnx",
    "bonus_read.onnx",
    "bonus_read.int8.onnx",
    "default/prototypes.npz",
)


def mixed(embedder: Embedder, seed: int, per_kind: int, drawn: int) -> dict[str, list[Look]]:
    """The *never enrolled*, *enrolled, mixed* and *drawn sets, never enrolled* groups of one
    seed."""
    rng = np.random.default_rng(seed)
    sets = {name: load_set(name) for name in TRAIN_SETS}
    samples, enrolled = mixed_enrolment(sets, rng)
    recogniser = Recogniser.enrol(embedder, samples)
    recogniser.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    out: dict[str, list[Look]] = {"never enrolled": [], "enrolled, mixed": []}
    for name, faces in sets.items():
        rows = [(t, synthetic_crop(f, rng)) for t, f in faces.items() for _ in range(per_kind)]
        own = own_art_out(recogniser, name)
        for key, mine in (
            ("never enrolled", [r for r in rows if name not in enrolled[r[0]]]),
            ("enrolled, mixed", [r for r in rows if name in enrolled[r[0]]]),
        ):
            out[key] += looks_of(own, [c for _, c in mine], [t for t, _ in mine])
    rows = [
        (t, synthetic_crop(f, rng))
        for n in range(drawn)
        for t, f in procedural_set(DRAWN_SEEDS + seed * 100 + n).items()
        for _ in range(per_kind)
    ]
    out["drawn sets, never enrolled"] = looks_of(
        recogniser, [c for _, c in rows], [t for t, _ in rows]
    )
    return out


def at_widths(embedder: Embedder, seed: int, per_kind: int, widths: list[int]) -> list[Look]:
    """The *enrolled at a width* group."""
    rng = np.random.default_rng(seed)
    bundle = Recogniser.load(DEFAULT_MODEL_DIR)
    out: list[Look] = []
    for name in TRAIN_SETS:
        faces = load_set(name)
        for width in widths:
            enrol, tests = enrol_and_test(faces, rng, per_kind, width)
            recogniser = Recogniser.enrol(embedder, enrol)
            recogniser.with_background(bundle)
            own = own_art_out(recogniser, name)
            out += looks_of(own, [c for _, c in tests], [t for t, _ in tests])
    return out


def total(groups: dict[str, list[Look]], bars: GateBars) -> tuple[int, int]:
    """(crossings, cost) over every group, an enrolled group's cost weighed
    ``ENROLLED_WEIGHT`` times."""
    scores = {key: score(looks, bars) for key, looks in groups.items()}
    cost = sum(s["cost"] * (ENROLLED_WEIGHT if _enrolled(key) else 1) for key, s in scores.items())
    return sum(s["crossings"] for s in scores.values()), cost


def enrolled_right(groups: dict[str, list[Look]], bars: GateBars) -> int:
    """How many crops of the enrolled groups are named right."""
    return sum(
        answer(look, bars) == look.truth
        for key, looks in groups.items()
        if _enrolled(key)
        for look in looks
    )


def _enrolled(key: str) -> bool:
    return "enrolled" in key and "never" not in key


def allowed(bars: GateBars) -> bool:
    return bars.fused_sure > bars.read_sure


def choose(groups: dict[str, list[Look]], start: GateBars, passes: int = 2) -> GateBars:
    """The rule of choice (the module's doc)."""
    crops = sum(len(looks) for looks in groups.values())
    slack = SLACK * crops
    bars = start
    for _ in range(passes):
        for name in TUNED:
            now = total(groups, bars)
            trials = [(*total(groups, t), t) for t in _trials(bars, name)]
            crossed, cost, best = min(trials, key=lambda t: t[:2])
            if crossed < now[0] or (crossed == now[0] and cost <= now[1] - slack):
                bars = best
    # The reading by parts: the lowest bar above the name's that costs nothing.
    off = total(groups, _with(bars, "fused_sure", SEARCH["fused_sure"][-1]))
    free = [t for t in _trials(bars, "fused_sure") if total(groups, t) <= off]
    bars = min(free, key=lambda t: t.fused_sure)
    # The safety bars: fewest crossings, then the strictest that costs the enrolled groups at
    # most ENROLLED_LOSS of their right answers and stays within the budget (one slack of
    # cost between them, beyond what closing a crossing costs).
    budget = total(groups, bars)[1] + slack
    kept = enrolled_right(groups, bars) - ENROLLED_LOSS * sum(
        len(looks) for key, looks in groups.items() if _enrolled(key)
    )
    for name, stricter in SAFETY.items():
        trials = [(*total(groups, t), t) for t in _trials(bars, name)]
        fewest = min(crossed for crossed, _, _ in trials)
        if fewest < total(groups, bars)[0]:
            budget += min(cost for c, cost, _ in trials if c == fewest) - total(groups, bars)[1]
        fits = [
            t
            for c, cost, t in trials
            if c == fewest and cost <= budget and enrolled_right(groups, t) >= kept
        ]
        if fits:
            bars = max(fits, key=lambda t: stricter * getattr(t, name))
        elif fewest < total(groups, bars)[0]:
            bars = min((t for t in trials if t[0] == fewest), key=lambda t: t[1])[2]
    for name in ECONOMY:
        most = answers(groups, _with(bars, name, SEARCH[name][-1]))
        bars = next(t for t in _trials(bars, name) if answers(groups, t) == most)
    return bars


def answers(groups: dict[str, list[Look]], bars: GateBars) -> list[str | None]:
    """Every crop's answer under ``bars``, group by group."""
    return [answer(look, bars) for looks in groups.values() for look in looks]


def _trials(bars: GateBars, name: str) -> list[GateBars]:
    """``bars`` with each candidate value of ``name`` that the rule allows."""
    return [t for t in (_with(bars, name, v) for v in SEARCH[name]) if allowed(t)]


def _with(bars: GateBars, name: str, value: float) -> GateBars:
    """``bars`` with ``name`` (and the bars tied to it) at ``value``."""
    return dataclasses.replace(bars, **dict.fromkeys((name, *TIED.get(name, ())), value))


def trade(groups: dict[str, list[Look]], bars: GateBars) -> dict[str, dict[str, list[int]]]:
    """Each searched bar's candidates, the other bars as chosen: (crossings, cost)."""
    out: dict[str, dict[str, list[int]]] = {}
    for name, values in SEARCH.items():
        trials = {str(v): _with(bars, name, v) for v in values}
        out[name] = {v: list(total(groups, t)) for v, t in trials.items() if allowed(t)}
    return out


def networks() -> dict[str, str]:
    return {
        name: hashlib.sha256((MODELS_DIR / name).read_bytes()).hexdigest()[:16]
        for name in NETWORKS
        if (MODELS_DIR / name).exists()
    }


def calibration(args: argparse.Namespace, have: set[str]) -> Iterator[tuple[str, list[Look]]]:
    """The groups, each part measured unless ``have`` (the looks kept) holds it already."""
    embedder = Embedder()
    if "never enrolled" not in have:
        seeds: dict[str, list[Look]] = {}
        for seed in args.seeds:
            for key, looks in mixed(embedder, seed, args.per_kind, args.drawn).items():
                seeds.setdefault(key, []).extend(looks)
        yield from seeds.items()
    if "enrolled at a width" not in have:
        yield "enrolled at a width", at_widths(embedder, args.seeds[0], args.per_kind, args.widths)
    sizes = tuple(args.sizes)
    if not any(key.startswith(TABLES) for key in have):
        yield from scanned_tables(embedder, args.seeds[0], args.tables, args.hands, sizes).items()
    if args.drawn_tables and not any(key.startswith(DRAWN + TABLES) for key in have):
        drawn = drawn_table_sets(args.seeds[0], args.drawn_tables)
        yield from scanned_tables(
            embedder, args.seeds[0], args.tables, args.hands, sizes, drawn, DRAWN
        ).items()


def calibration_group(args: argparse.Namespace) -> dict[str, object]:
    """What the calibration group was made of, as the bars file records it."""
    return {
        "sets": TRAIN_SETS,
        "seeds": args.seeds,
        "per kind": args.per_kind,
        "widths": args.widths,
        "drawn sets a seed": args.drawn,
        "tables scanned a set and size": args.tables,
        "hands laid out a set and size": args.hands,
        "camera sizes": [f"{w}x{h}" for w, h in args.sizes],
        "drawn sets enrolled as tables": drawn_table_sets(args.seeds[0], args.drawn_tables),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12, 13])
    parser.add_argument("--per-kind", type=int, default=3)
    parser.add_argument("--drawn", type=int, default=8, help="drawn sets a seed")
    parser.add_argument("--widths", type=int, nargs="+", default=[18, 22, 28, 40])
    parser.add_argument("--tables", type=int, default=3, help="frames scanned a set and size")
    parser.add_argument("--hands", type=int, default=4, help="hands laid out a set and size")
    parser.add_argument(
        "--drawn-tables", type=int, default=4, help="drawn sets enrolled as tables and scanned"
    )
    parser.add_argument(
        "--sizes", nargs="+", type=frame_size, default=list(SIZES), help="camera sizes, WxH"
    )
    parser.add_argument("--out", type=Path, default=MODELS_DIR / BARS_FILE)
    parser.add_argument("--dry-run", action="store_true", help="choose, but write nothing")
    parser.add_argument(
        "--looks",
        type=Path,
        help="keep the measured looks in this file, and choose from those it holds (the "
        "parts it lacks are measured and added)",
    )
    args = parser.parse_args()
    if set(HELD_OUT) & set(TRAIN_SETS):
        raise SystemExit("a held-out set is among the training sets: nothing to calibrate on")
    SCAN_THREADS.apply()
    started = time.perf_counter()
    groups: dict[str, list[Look]] = {}
    if args.looks is not None and args.looks.exists():
        with args.looks.open("rb") as stored:
            groups = pickle.load(stored)
    have = set(groups)
    for key, looks in calibration(args, have):
        groups[key] = looks
        if args.looks is not None:  # kept as each part is measured
            with args.looks.open("wb") as kept:
                pickle.dump(groups, kept)
    measured = time.perf_counter() - started
    defaults = GateBars()
    chosen = choose(groups, defaults)
    before = GateBars.from_file(args.out) if args.out.exists() else defaults
    report = {
        "bars": dataclasses.asdict(chosen),
        "searched": sorted(SEARCH),
        "left off": list(OFF),
        "rule": __doc__.split("**The rule of choice**: ")[1].strip().replace("\n", " "),
        "costs": {"abstained": 1, "wrong": WRONG_COST, "enrolled groups weigh": ENROLLED_WEIGHT},
        "calibration group": calibration_group(args),
        "moved from the bars before (before, now; why: each bar's values below)": {
            name: [getattr(before, name), value]
            for name, value in dataclasses.asdict(chosen).items()
            if getattr(before, name) != value
        },
        "with the bars before": {key: score(looks, before) for key, looks in groups.items()},
        "with the defaults": {key: score(looks, defaults) for key, looks in groups.items()},
        "with these bars": {key: score(looks, chosen) for key, looks in groups.items()},
        "the enrolled scans not named right, by path (defaults, these bars)": {
            key: [paths(looks, defaults), paths(looks, chosen)]
            for key, looks in groups.items()
            if "scanned" in key
        },
        "each bar's values, the others as chosen (crossings, cost)": trade(groups, chosen),
        "networks": networks(),
        # The reader's probabilities as the bars saw them (its .json's "temperature", or its
        # 8-bit copy's).
        "reader temperatures": dataclasses.asdict(BonusReader().temperatures),
        "command": "bench/vision/choose_bars.py " + " ".join(sys.argv[1:]),
        "seconds": round(measured),
    }
    show_and_write(report, None if args.dry_run else args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
