"""Where the abstentions on single-tile photos come from, and what the text recogniser's rules
change: photos of sets never enrolled (64-128 pixels wide at the camera's own pixels, as part 2
of bench_bonus_ocr.py draws them) named several ways side by side, each tabulated by outcome,
kind group and set, with the abstentions by the rule that abstained (``Identity.why`` and
``how``) and kind group, and how the answers moved from d88e47d's way.

    .venv/bin/python bench/vision/photo_abstentions.py --group calibration [--photos 2] \\
        [--confirm 0.5] [--nameless 0.02 0.05] [--shares 0.05 0.1] [--json out.json]
    .venv/bin/python bench/vision/photo_abstentions.py --group held-out --photos 4 ...
        [--printed 0.3 0.5] [--printed-bonus 0.1 0.5] [--corners 0.5 0.8] [--detail]
    .venv/bin/python bench/vision/photo_abstentions.py --group calibration --drawn 40 \
        --cornered 12 --only-now --looks shifts contrast shifts+scales+turns+contrast:read \
        [--numbered 0.05 0.1] [--numbered-number 0.7 0.9] [--numbered-between]
    .venv/bin/python bench/vision/photo_abstentions.py --group calibration --drawn 40 \
        --cornered 12 --unfamiliar 20 --only-now --detail [--anew 0.5 0.9]

``--group calibration`` is what choices are made on: a table enrolled from a mix of the
training sets (3 crops a kind), each training set's photos of the kinds not enrolled from it
named with that set's own art left out of the bundled prototypes, and photos of sets drawn by
vision/synth/procedural.py from choose_bars.py's seeds (art no network saw). ``--group
held-out`` is part 2 of bench_bonus_ocr.py's photos to the pixel (the same seed): measured
only, never chosen on.

The ways: d88e47d's (``photos as before``: the nameless rule off), ``OcrBars.confirm_sure``
at each of ``--confirm`` (0.8 at d88e47d), and the nameless rule (``OcrBars.nameless_below``,
``nameless_share``) at each pair of ``--nameless`` and ``--shares``; with ``--only-now``
only d88e47d's and the bars as now. Then, each beside the bars as now (the abstentions they
answer, by the rule that abstained): the views of vision/photo_looks.py looked at before
abstaining (``--looks``: views joined by "+", ":embed" or ":read" for one network alone),
the bonus side's name read with its number (``OcrBars.numbered_sure`` at each of
``--numbered`` with each ``--numbered-number``; ``--numbered-between``: between the sides too),
and the print read best naming an abstention (``OcrBars.anew_sure`` at each of ``--anew``).
``--unfamiliar N`` adds to the calibration group N drawn sets of suit and honour art training
never draws (vision/synth/unfamiliar.py).
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from abstentions import outcome  # noqa: E402
from bench_bonus_ocr import mixed_table, photo_set  # noqa: E402
from bonus_data import HELD_OUT_SETS, require_fonts  # noqa: E402
from choose_bars import DRAWN_SEEDS  # noqa: E402
from identity_parts import (  # noqa: E402
    TRAIN_SETS,
    kind_group,
    mixed_enrolment,
    own_art_out,
)
from report_file import write_report  # noqa: E402

from vision.bonus_ocr import OcrBars  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Identity, Recogniser  # noqa: E402
from vision.photo_looks import PhotoLooks  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.bonus_faces import TRAINING_FONTS  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402

PHOTO_WIDTHS = (64, 128)
BEFORE = "photos as before"
NAMELESS = "nameless rule (85cdf4e)"
AS_NOW = "as now"
# The bars before the name read with its number (OcrBars.numbered_sure).
BASE = "fee24b0's bars"
# The bars before the print read best named an abstention (OcrBars.anew_sure).
PREVIOUS = "4646c9c's bars"
# The cornered sets' seeds follow the drawn sets' (DRAWN_SEEDS + 100 x seed + n), and the
# unfamiliar sets' (vision/synth/unfamiliar.py) the cornered ones'.
CORNERED_FROM = 60
UNFAMILIAR_FROM = 80


class Photos:
    """Photos to name: each with its truth, the set it shows, and the recogniser that names
    it (a training set's own art left out of the bundle, in the calibration group)."""

    def __init__(self) -> None:
        self.crops: list[np.ndarray] = []
        self.truth: list[str] = []
        self.owner: list[str] = []
        self.named_by: list[Recogniser] = []

    def add(self, shots: list[tuple[np.ndarray, str]], owner: str, by: Recogniser) -> None:
        for crop, label in shots:
            self.crops.append(crop)
            self.truth.append(label)
            self.owner.append(owner)
            self.named_by.append(by)


def held_out(per_face: int, seed: int) -> Photos:
    """Part 2 of bench_bonus_ocr.py's photos and table, drawn in its order."""
    rng, sets, mixed = mixed_table(seed)
    out = Photos()
    for name in HELD_OUT_SETS:
        out.add(photo_set(sets[name], per_face, rng, PHOTO_WIDTHS), name, mixed)
    return out


def calibration(
    per_face: int, drawn: int, seed: int, cornered: int = 0, unfamiliar: int = 0
) -> Photos:
    """The training sets' photos of kinds their table never enrolled, drawn sets',
    ``cornered`` drawn sets' whose bonus tiles are lettered small in a corner, and
    ``unfamiliar`` drawn sets' whose suits and honours are in art training never draws."""
    if drawn > CORNERED_FROM:
        raise ValueError(f"--drawn {drawn}: at most {CORNERED_FROM} (the cornered sets' seeds)")
    if cornered > UNFAMILIAR_FROM - CORNERED_FROM:
        raise ValueError(f"--cornered {cornered}: at most {UNFAMILIAR_FROM - CORNERED_FROM}")
    if unfamiliar > 100 - UNFAMILIAR_FROM:
        raise ValueError(f"--unfamiliar {unfamiliar}: at most {100 - UNFAMILIAR_FROM}")
    if unfamiliar:
        # Those sets letter in the training-only fonts: else in a fallback, and other photos.
        require_fonts(TRAINING_FONTS)
    rng = np.random.default_rng(seed)
    sets = {name: load_set(name) for name in TRAIN_SETS}
    samples, enrolled = mixed_enrolment(sets, rng)
    table = Recogniser.enrol(Embedder(), samples)
    table.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    out = Photos()
    for name, faces in sets.items():
        unseen = {label: face for label, face in faces.items() if name not in enrolled[label]}
        out.add(photo_set(unseen, per_face, rng, PHOTO_WIDTHS), name, own_art_out(table, name))
    for n in range(drawn):
        faces = procedural_set(DRAWN_SEEDS + seed * 100 + n)
        out.add(photo_set(faces, per_face, rng, PHOTO_WIDTHS), f"drawn#{n}", table)
    for n in range(cornered):
        faces = procedural_set(DRAWN_SEEDS + seed * 100 + CORNERED_FROM + n, cornered=True)
        out.add(photo_set(faces, per_face, rng, PHOTO_WIDTHS), f"cornered#{n}", table)
    for n in range(unfamiliar):
        faces = procedural_set(DRAWN_SEEDS + seed * 100 + UNFAMILIAR_FROM + n, unfamiliar=True)
        out.add(photo_set(faces, per_face, rng, PHOTO_WIDTHS), f"unfamiliar#{n}", table)
    return out


def ways(
    confirm: list[float],
    nameless: list[float],
    shares: list[float],
    printed: list[float],
    printed_bonus: list[float],
    corners: list[float] | None = None,
) -> dict[str, OcrBars]:
    """Each way's text bars: d88e47d's, 85cdf4e's (the nameless rule at its bars), each
    ``confirm_sure``, each pair of the nameless rule's bars, and each pair of the printed
    rule's (``printed_sure``, ``printed_bonus_below``) beside 85cdf4e's, with and without
    ``printed_anew``; and with ``corners``, da0d1ec's bars (``as now``) and the corner look at
    each ``corners_below``."""
    off = 0.0  # the printed rule, not at 85cdf4e; the name with its number, not before 3ae3182
    out = {
        BEFORE: OcrBars(nameless_below=0.0, printed_sure=off, numbered_sure=off, anew_sure=off),
        NAMELESS: OcrBars(printed_sure=off, numbered_sure=off, anew_sure=off),
    }
    out |= {
        f"printed {sure}{' anew' if anew else ''}, bonus below {below}": OcrBars(
            printed_sure=sure, printed_bonus_below=below, printed_anew=anew
        )
        for anew in (False, True)
        for sure in printed
        for below in printed_bonus
    }
    if corners:
        out[AS_NOW] = OcrBars(corners_below=0.0)
        out |= {f"corners below {bar}": OcrBars(corners_below=bar) for bar in corners}
    out |= {
        f"confirmed at {bar}": OcrBars(confirm_sure=bar, nameless_below=0.0, printed_sure=off)
        for bar in confirm
    }
    out |= {
        f"nameless below {below}, share {share}": OcrBars(
            nameless_below=below, nameless_share=share, printed_sure=off
        )
        for below in nameless
        for share in shares
    }
    return out


def named(
    photos: Photos, bars: OcrBars, looks: PhotoLooks | None = None
) -> tuple[list[Identity], float]:
    """Every photo's answer, each recogniser naming its own photos in one call (``looks``:
    with those views looked at before abstaining; else none), and the thread CPU a photo."""
    answers: list[Identity | None] = [None] * len(photos.crops)
    start = time.thread_time()
    for by in {id(r): r for r in photos.named_by}.values():
        mine = [n for n, r in enumerate(photos.named_by) if r is by]
        way = copy.copy(by)
        way.ocr_bars = bars
        way.photo_looks = looks or PhotoLooks()
        for n, answer in zip(mine, way.identify([photos.crops[n] for n in mine]), strict=True):
            answers[n] = answer
    ms = 1000 * (time.thread_time() - start) / len(photos.crops)
    return [a for a in answers if a is not None], ms


def tabulate(photos: Photos, answers: list[Identity]) -> dict[str, Any]:
    """Outcomes overall, by kind group and by set; the abstentions by rule and kind group."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    rules: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for answer, truth, owner in zip(answers, photos.truth, photos.owner, strict=True):
        said = outcome(answer.label, truth)
        group = kind_group(truth)
        for key in ("all", group, f"set {owner}"):
            counts[key]["n"] += 1
            counts[key][said] += 1
        if answer.label is None:
            rule = f"{answer.why} ({answer.how or 'not gated'})"
            rules[rule][group] += 1
            rules[rule]["all"] += 1
            rules[rule]["first look's best right"] += answer.best == truth
    ordered = sorted(rules.items(), key=lambda kv: -kv[1]["all"])
    return {
        "outcomes": {k: dict(c) for k, c in sorted(counts.items())},
        "abstained, by rule": {k: dict(c) for k, c in ordered},
    }


def changed(photos: Photos, before: list[Identity], after: list[Identity]) -> dict[str, int]:
    """How the answers moved from d88e47d's way: outcome before -> after, counted."""
    moves: collections.Counter[str] = collections.Counter()
    for b, a, truth in zip(before, after, photos.truth, strict=True):
        was, now = outcome(b.label, truth), outcome(a.label, truth)
        if was != now:
            moves[f"{was} -> {now}"] += 1
    return dict(moves)


def looks_ways(specs: list[str]) -> dict[str, PhotoLooks]:
    """Each ``--looks`` spec as a way: views joined by "+", then ":embed" or ":read" for the
    first look or the reader alone (both by default)."""
    out = {}
    for spec in specs:
        views, _, who = spec.partition(":")
        if who not in ("", "embed", "read"):
            raise SystemExit(f"--looks {spec}: after ':' give embed or read, not {who!r}")
        looks = PhotoLooks(tuple(views.split("+")), embed=who != "read", read=who != "embed")
        out[f"looks {spec}"] = looks
    return out


def numbered_ways(
    names: list[float], numbers: list[float], between: bool = False
) -> dict[str, OcrBars]:
    """As now, with the bonus side's name read with its number (``OcrBars.numbered_sure``,
    ``numbered_number``) at each pair of bars; ``between``: and between the sides too."""
    where = ", between the sides too" if between else ""
    return {
        f"numbered {sure}, number {number}{where}": OcrBars(
            numbered_sure=sure, numbered_number=number, numbered_between=between
        )
        for sure in names
        for number in numbers
    }


def named_again(photos: Photos, now: list[Identity], after: list[Identity]) -> dict[str, int]:
    """The abstentions of ``now`` that ``after`` answers, by the rule that abstained and how
    they came out."""
    moves: collections.Counter[str] = collections.Counter()
    for b, a, truth in zip(now, after, photos.truth, strict=True):
        if b.label is None and a.label is not None:
            moves[f"{b.why} ({b.how or 'not gated'}) -> {outcome(a.label, truth)}"] += 1
        elif b.label != a.label:
            moves[f"{outcome(b.label, truth)} -> {outcome(a.label, truth)}"] += 1
    return dict(moves)


def abstentions_read(photos: Photos, answers: list[Identity]) -> list[dict[str, Any]]:
    """Each abstention and crossing: its truth, set and name, the rule, the first look's best
    kind and its bonus share, and what the text recogniser reads on it (the best bonus name
    and number, the print of the first look's best kind and the print read best)."""
    out = []
    for n, answer in enumerate(answers):
        if outcome(answer.label, photos.truth[n]) not in ("abstained", "crossing"):
            continue
        ocr = photos.named_by[n].bonus_ocr
        reading = ocr.read([photos.crops[n]])[0] if ocr is not None else None
        row: dict[str, Any] = {
            "truth": photos.truth[n],
            "set": photos.owner[n],
            "named": answer.label,
            "why": f"{answer.why} ({answer.how or 'not gated'})",
            "best": answer.best,
            "confidence": round(answer.confidence, 3),
            "bonus share": round(answer.bonus_share, 3),
            "best other": [answer.best_other, round(answer.other_confidence, 3)],
            "best bonus": [answer.best_bonus, round(answer.bonus_confidence, 3)],
        }
        if reading is not None:
            top = max(reading.printed, key=lambda k: reading.printed[k])
            row |= {
                "text: bonus name": [reading.kind, round(reading.confidence, 3)],
                "text: number": [reading.number, round(reading.number_confidence, 3)],
                "text: best's print": round(reading.printed.get(answer.best, 0.0), 3),
                "text: print read best": [top, round(reading.printed[top], 3)],
            }
        out.append(row)
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", choices=("calibration", "held-out"), required=True)
    parser.add_argument("--photos", type=int, default=2, help="photos a face")
    parser.add_argument("--drawn", type=int, default=6, help="drawn sets (calibration)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--confirm", type=float, nargs="*", default=[0.5], help="confirm_sure")
    parser.add_argument("--nameless", type=float, nargs="*", default=[], help="nameless_below")
    parser.add_argument("--shares", type=float, nargs="*", default=[0.05], help="nameless_share")
    parser.add_argument(
        "--cornered", type=int, default=0, help="drawn sets lettered in a corner (calibration)"
    )
    parser.add_argument(
        "--unfamiliar",
        type=int,
        default=0,
        help="drawn sets of suit and honour art training never draws (calibration)",
    )
    parser.add_argument("--printed", type=float, nargs="*", default=[], help="printed_sure")
    parser.add_argument(
        "--printed-bonus", type=float, nargs="*", default=[0.5], help="printed_bonus_below"
    )
    parser.add_argument(
        "--detail",
        action="store_true",
        help="85cdf4e's and as now's abstentions and crossings: kind, looks and text",
    )
    parser.add_argument(
        "--corners", type=float, nargs="*", default=[], help="corners_below (the corner look)"
    )
    parser.add_argument(
        "--looks",
        nargs="*",
        default=[],
        help="views looked at before abstaining, e.g. shifts+scales or contrast:read",
    )
    parser.add_argument("--numbered", type=float, nargs="*", default=[], help="numbered_sure")
    parser.add_argument(
        "--numbered-number", type=float, nargs="*", default=[0.9], help="numbered_number"
    )
    parser.add_argument(
        "--numbered-between", action="store_true", help="numbered_between (with --numbered)"
    )
    parser.add_argument(
        "--anew", type=float, nargs="*", default=[], help="anew_sure (the print read best)"
    )
    parser.add_argument("--only-now", action="store_true", help="no ways but as now and --looks")
    parser.add_argument("--json", type=Path)
    return parser


def _way_row(
    photos: Photos, way: str, bars: OcrBars, looks: PhotoLooks | None = None
) -> tuple[list[Identity], dict[str, Any]]:
    """The photos' answers in one way, and its row of the report (printed as made)."""
    answers, ms = named(photos, bars, looks)
    row = {"ms a photo": round(ms, 2), **tabulate(photos, answers)}
    print(way, json.dumps(row["outcomes"]["all"]), f"{ms:.1f} ms", flush=True)
    return answers, row


def main() -> int:
    args = _parser().parse_args()
    if args.group == "held-out":
        photos = held_out(args.photos, args.seed)
    else:
        photos = calibration(args.photos, args.drawn, args.seed, args.cornered, args.unfamiliar)
    report: dict[str, Any] = {"group": args.group, "photos": len(photos.crops), "ways": {}}
    first: list[Identity] = []
    chosen = ways(
        args.confirm, args.nameless, args.shares, args.printed, args.printed_bonus, args.corners
    )
    if args.only_now:
        chosen = {BEFORE: chosen[BEFORE]}
    chosen[BASE] = OcrBars(numbered_sure=0.0, anew_sure=0.0)
    chosen[PREVIOUS] = OcrBars(anew_sure=0.0)
    chosen[AS_NOW] = OcrBars()
    now: list[Identity] = []
    base: list[Identity] = []
    previous: list[Identity] = []
    for way, bars in chosen.items():
        answers, row = _way_row(photos, way, bars)
        if way == BASE:
            base = answers
        if way == PREVIOUS:
            previous = answers
            row["moved from fee24b0's bars"] = named_again(photos, base, answers)
        if way == AS_NOW:
            now = answers
            row["moved from 4646c9c's bars"] = named_again(photos, previous, answers)
        if way == BEFORE:
            first = answers
        if way == NAMELESS and args.detail and not args.only_now:
            report["85cdf4e's abstentions and crossings"] = abstentions_read(photos, answers)
        else:
            row["moved from before"] = changed(photos, first, answers)
        if way in (PREVIOUS, AS_NOW) and args.detail:
            report[f"{way}: abstentions and crossings"] = abstentions_read(photos, answers)
        report["ways"][way] = row
    # Each beside the bars as now: the views looked at, then the name read with its number.
    beside: list[tuple[str, OcrBars, PhotoLooks | None]] = [
        (way, OcrBars(), looks) for way, looks in looks_ways(args.looks).items()
    ]
    numbered = numbered_ways(args.numbered, args.numbered_number, args.numbered_between)
    beside += [(way, bars, None) for way, bars in numbered.items()]
    beside += [(f"print read best at {bar}", OcrBars(anew_sure=bar), None) for bar in args.anew]
    for way, bars, looks in beside:
        answers, row = _way_row(photos, way, bars, looks)
        row["moved from as now"] = named_again(photos, now, answers)
        report["ways"][way] = row
        print("  ", json.dumps(row["moved from as now"]), flush=True)
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
