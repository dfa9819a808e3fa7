"""Parts 1 and 2 of the vision benchmark (bench_vision.py): tile identity on camera-like crops.

1. *Held-out set, enrolled*: each art set held out of training enrolled from 3 crops a kind,
   ``per_kind`` fresh crops a kind named (and the same without enrolment).
2. *Mixed sets*: 3 enrolment crops a kind, each from a random set; crops of every set, split
   by whether that set was enrolled for that kind and whether the network ever saw it.

With another revision (``other``) its recogniser names the very crops in its own process, from
the same stored prototypes, with its own bonus-tile reader: the key ``at REV`` beside ``new``.
Every score counts a bonus tile named as any other kind, or the reverse (crossings), and
right / wrong / abstained.
"""

from __future__ import annotations

import collections
import copy
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from other_revision import OtherRevision  # noqa: E402

from vision.bonus_ocr import OcrBars  # noqa: E402
from vision.embedder import MODELS_DIR, Embedder  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Identity, Recogniser, enrolment_variants  # noqa: E402
from vision.labels import BACK, BLANK, CHINESE_LABELS, JOKER, LABELS  # noqa: E402
from vision.synth.artwork import ART_SETS, load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402

_SPLIT = json.loads((MODELS_DIR / "tile_embed.json").read_text())
HELD_OUT: list[str] = _SPLIT["held_out_sets"]
# The text recogniser's bars for the recognisers enrolled here (bench_vision.py --read-cuts
# sets ``min_width`` to the scanner's cut: what a live table reaches once its background
# reader has read the crops the gate left to the text, vision/table_text.py).
OCR_BARS = [OcrBars()]
TRAIN_SETS: list[str] = _SPLIT["train_sets"]
OUTCOMES = ("right", "wrong", "abstained")
BONUS_KINDS = frozenset(CHINESE_LABELS[34:42])


class Named(Protocol):
    @property
    def label(self) -> str | None: ...
    @property
    def best(self) -> str: ...


class NamedElsewhere(NamedTuple):
    """What another revision named a crop."""

    label: str | None
    best: str


def score_identities(ids: Sequence[Named], truth: list[str]) -> dict[str, Any]:
    answered = [(i.label, t) for i, t in zip(ids, truth, strict=True) if i.label is not None]
    correct = sum(1 for lab, t in answered if lab == t)
    best_correct = sum(1 for i, t in zip(ids, truth, strict=True) if i.best == t)
    # 32 kinds carry the same numerals, dots, sticks and characters in every set; the bonus
    # tiles, the white dragon and the one bamboo are pictures each maker draws their own way.
    own_art = {*CHINESE_LABELS[34:], "WD", "1B", JOKER, BLANK, BACK}
    common = [(i, t) for i, t in zip(ids, truth, strict=True) if t not in own_art]
    # Weighted as the faces of a 152-tile American set are: 4 of each of the 34 kinds, one of
    # each flower and season, 8 Jokers (what a photo of the table holds; blanks and backs are
    # not faces of play and are left out of this figure only).
    copies = {**dict.fromkeys(CHINESE_LABELS[:34], 4), **dict.fromkeys(CHINESE_LABELS[34:], 1)}
    copies[JOKER] = 8
    weighted = [(copies[t], i.label == t) for i, t in zip(ids, truth, strict=True) if t in copies]
    bonus_kinds = BONUS_KINDS
    bonus = [(i.label, t) for i, t in zip(ids, truth, strict=True) if t in bonus_kinds]
    # A bonus tile named as any other tile, or any other tile named as a bonus tile.
    crossings = collections.Counter(
        f"{t}->{i.label}"
        for i, t in zip(ids, truth, strict=True)
        if i.label is not None and (i.label in bonus_kinds) != (t in bonus_kinds)
    )
    crossed = sum(crossings.values())
    return {
        "n": len(truth),
        "bonus_n": len(bonus),
        "bonus_top1": sum(1 for lab, t in bonus if lab == t) / max(1, len(bonus)),
        "bonus_abstain": sum(1 for lab, _ in bonus if lab is None) / max(1, len(bonus)),
        "bonus_suit_crossings": crossed,
        "crossings": dict(crossings.most_common()),
        "top1": correct / len(truth),
        "top1_per_tile_of_a_set": sum(w for w, ok in weighted if ok) / sum(w for w, _ in weighted),
        "top1_no_abstain": best_correct / len(truth),
        "abstain": 1 - len(answered) / len(truth),
        "wrong": (len(answered) - correct) / len(truth),
        "acc_answered": correct / max(1, len(answered)),
        "top1_common_kinds": sum(1 for i, t in common if i.label == t) / max(1, len(common)),
    }


def _score(recogniser: Recogniser, crops: list[np.ndarray], truth: list[str]) -> dict[str, Any]:
    return score_identities(recogniser.identify(crops), truth)


def _scores(
    methods: dict[str, Any],
    crops: list[np.ndarray],
    truth: list[str],
    other: tuple[OtherRevision, Path] | None,
) -> dict[str, Any]:
    """Every method's score on the crops, and the other revision's with ``new``'s stored
    prototypes."""
    out = {method: _score(r, crops, truth) for method, r in methods.items()}
    if other is not None:
        revision, folder = other
        named = [NamedElsewhere(*i) for i in revision.identify(crops, folder)]
        out[f"at {revision.rev}"] = score_identities(named, truth)
    return out


def _stored(
    methods: dict[str, Any], other: OtherRevision | None
) -> tuple[OtherRevision, Path] | None:
    """With another revision, ``new`` (and ``new`` without the reader) as both sides load it
    from the stored model: the same prototypes to the bit on both sides."""
    if other is None:
        return None
    shared, folder = other.shared_model(methods["new"])
    shared.ocr_bars = OCR_BARS[0]
    no_reader = copy.copy(shared)
    no_reader.bonus_reader = None
    methods["new"], methods["new, no bonus reader"] = shared, no_reader
    return other, folder


def recognisers(embedder: Embedder, samples: list[tuple[str, np.ndarray]]) -> dict[str, Any]:
    """The enrolment methods compared side by side on the same crops:
    ``old``: one prototype per photo, leave-one-out fit, one look at each crop (the method
    before 2026-12);
    ``new, one look``: each photo augmented into 12 prototypes, leave-one-photo-out fit, the
    bundled prototypes kept behind the enrolled ones;
    ``new``: that, and crops named with confidence under 0.7 looked at again through four
    3-px shifts (what ``mjtable vision enroll`` and the scanner now do);
    ``new+tta``: every test crop averaged over four 3-px shifts (5x the embedding)."""
    old = Recogniser.enrol(embedder, samples, augment=False)
    old.retry_below = 0.0
    new = Recogniser.enrol(embedder, samples)
    new.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    new.ocr_bars = OCR_BARS[0]
    one_look = copy.copy(new)
    one_look.retry_below = 0.0
    tta = copy.copy(new)
    tta.shift_px = 3
    no_reader = copy.copy(new)
    no_reader.bonus_reader = None
    return {
        "old": old,
        "new, one look": one_look,
        "new, no bonus reader": no_reader,
        "new": new,
        "new+tta": tta,
    }


Labelled = list[tuple[str, np.ndarray]]


def enrol_and_test(
    faces: dict[str, np.ndarray],
    rng: np.random.Generator,
    per_kind: int,
    width: int | None = None,
) -> tuple[Labelled, Labelled]:
    """A set's crops: 3 a kind to enrol, then ``per_kind`` a kind to name, drawn from ``rng``
    in that order (at a fixed tile ``width`` in pixels, or the camera's usual range)."""

    def draw(count: int) -> Labelled:
        return [
            (lab, synthetic_crop(f, rng, camera_width=width))
            for lab, f in faces.items()
            for _ in range(count)
        ]

    enrol = draw(3)
    return enrol, draw(per_kind)


def held_out_enrolled(
    embedder: Embedder,
    per_kind: int,
    rng: np.random.Generator,
    other: OtherRevision | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    unseen: dict[str, dict[str, np.ndarray]] = {name: load_set(name) for name in HELD_OUT}
    for seed in range(3):  # procedural sets drawn with seeds training never used
        unseen[f"procedural#{90_000 + seed}"] = procedural_set(90_000 + seed)
    for name, faces in unseen.items():
        enrol, tests = enrol_and_test(faces, rng, per_kind)
        methods = recognisers(embedder, enrol)
        against = _stored(methods, other)
        out[name] = _scores(methods, [c for _, c in tests], [lab for lab, _ in tests], against)
        # The same set without enrolment: only the bundled prototypes of other sets.
        default = Recogniser.load(DEFAULT_MODEL_DIR)
        out[name + " (not enrolled)"] = _score(
            default, [c for _, c in tests], [lab for lab, _ in tests]
        )
    return out


def identity_by_width(
    embedder: Embedder, per_kind: int, widths: list[int], rng: np.random.Generator
) -> dict[str, Any]:
    """Part 1 again at fixed tile widths in the camera's pixels, enrolment photos and test
    crops alike (the owner enrols with the table's own camera): how the held-out sets' top-1
    depends on the pixels a tile covers, which the camera's resolution and height decide."""
    out: dict[str, Any] = collections.defaultdict(dict)
    for case in width_cases(embedder, per_kind, widths, rng):
        out[case.name][str(case.width)] = _score(case.recogniser, case.crops, case.truth)
    return dict(out)


class WidthCase(NamedTuple):
    name: str
    width: int
    recogniser: Recogniser
    crops: list[np.ndarray]
    truth: list[str]


def width_cases(
    embedder: Embedder, per_kind: int, widths: list[int], rng: np.random.Generator
) -> Iterator[WidthCase]:
    """Each held-out set at each width: the set enrolled there (``new``) and its test crops,
    drawn from ``rng`` in the same order every time (bench/vision/crossings.py replays them)."""
    for name in HELD_OUT:
        faces = load_set(name)
        for width in widths:
            enrol, tests = enrol_and_test(faces, rng, per_kind, width)
            new = recognisers(embedder, enrol)["new"]
            yield WidthCase(name, width, new, [c for _, c in tests], [lab for lab, _ in tests])


def mixed_enrolment(
    sets: dict[str, dict[str, np.ndarray]], rng: np.random.Generator
) -> tuple[Labelled, dict[str, set[str]]]:
    """3 crops a kind, each from a set drawn from those that have the kind: a table enrolled
    from a mix of sets; and, for each kind, the sets its crops came from."""
    enrolled: dict[str, set[str]] = {}
    samples: Labelled = []
    for label in LABELS:
        having = [n for n, f in sets.items() if label in f]
        for _ in range(3):
            name = having[int(rng.integers(len(having)))]
            enrolled.setdefault(label, set()).add(name)
            samples.append((label, synthetic_crop(sets[name][label], rng)))
    return samples, enrolled


def never_enrolled_start(
    embedder: Embedder, per_kind: int, seed: int
) -> tuple[np.random.Generator, dict[str, dict[str, np.ndarray]], Recogniser, dict[str, set[str]]]:
    """Where part 2 of ``bench_vision.py --seed SEED`` stands before its crops are drawn, for
    the scripts that replay them: the generator past part 1's draws (made only to keep its
    place), the sets, the table enrolled from a mix of them (``new``) and, for each kind, the
    sets its enrolment came from."""
    rng = np.random.default_rng(seed)
    unseen = {name: load_set(name) for name in HELD_OUT}
    for n in range(3):
        unseen[f"procedural#{90_000 + n}"] = procedural_set(90_000 + n)
    for faces in unseen.values():
        enrol_and_test(faces, rng, per_kind)
    sets = {name: load_set(name) for name in ART_SETS}
    samples, enrolled = mixed_enrolment(sets, rng)
    return rng, sets, recognisers(embedder, samples)["new"], enrolled


def mixed_sets(
    embedder: Embedder,
    per_kind: int,
    rng: np.random.Generator,
    other: OtherRevision | None = None,
) -> dict[str, Any]:
    """Part 2. Beside the three groups, *never enrolled, own art out of the bundle*: the
    training sets' crops named with that set's own art left out of the bundled prototypes (a
    table's set unlike anything bundled, as a real one is; the bars of the decision are
    chosen on it, the held-out sets only measured). Every group holds, for ``new``, where
    its abstentions and wrong answers come from (:func:`breakdown`)."""
    sets = {name: load_set(name) for name in ART_SETS}
    samples, enrolled = mixed_enrolment(sets, rng)
    methods = recognisers(embedder, samples)
    against = _stored(methods, other)
    groups: dict[str, list[tuple[str, str, np.ndarray]]] = {
        "enrolled set": [],
        "never enrolled": [],
        "never enrolled, never trained": [],
    }
    for name, faces in sets.items():
        for label, face in faces.items():
            for _ in range(max(1, per_kind // 2)):
                crop = synthetic_crop(face, rng)
                if name in enrolled[label]:
                    key = "enrolled set"
                elif name in HELD_OUT:
                    key = "never enrolled, never trained"
                else:
                    key = "never enrolled"
                groups[key].append((name, label, crop))
                if key == "never enrolled, never trained":
                    groups["never enrolled"].append((name, label, crop))
    out: dict[str, Any] = {}
    for key, rows in groups.items():
        if rows:
            out[key] = _scores(methods, [c for *_, c in rows], [t for _, t, _ in rows], against)
            out[key]["breakdown"] = breakdown(methods["new"], rows)
    trained = [row for row in groups["never enrolled"] if row[0] in TRAIN_SETS]
    out["never enrolled, own art out of the bundle"] = _outside_the_bundle(methods, trained, other)
    return out


def _outside_the_bundle(
    methods: dict[str, Any],
    rows: list[tuple[str, str, np.ndarray]],
    other: OtherRevision | None,
) -> dict[str, Any]:
    """``new`` (with and without the reader, and the other revision) on each training set's
    crops, that set's own art left out of the bundled prototypes."""
    named: dict[str, list[Any]] = collections.defaultdict(list)
    truth: list[str] = []
    ordered: list[tuple[str, str, np.ndarray]] = []
    for name in TRAIN_SETS:
        mine = [row for row in rows if row[0] == name]
        if not mine:
            continue
        crops = [c for *_, c in mine]
        new = own_art_out(methods["new"], name)
        no_reader = copy.copy(new)
        no_reader.bonus_reader = None
        named["new"] += new.identify(crops)
        named["new, no bonus reader"] += no_reader.identify(crops)
        if other is not None:
            _, folder = other.shared_model(new)
            named[f"at {other.rev}"] += [NamedElsewhere(*i) for i in other.identify(crops, folder)]
        truth += [t for _, t, _ in mine]
        ordered += mine
    out: dict[str, Any] = {m: score_identities(ids, truth) for m, ids in named.items()}
    out["breakdown"] = breakdown_of(named["new"], ordered)
    return out


def own_art_out(recogniser: Recogniser, name: str) -> Recogniser:
    """A copy of ``recogniser`` whose bundled prototypes leave out the training set ``name``'s
    own art (a table's set unlike anything bundled, as a real one is)."""
    owner = _owners()
    if len(owner) != len(recogniser.background_labels):
        raise RuntimeError("the bundled prototypes are not the training sets' (rebuild them)")
    keep = owner != name
    out = copy.copy(recogniser)
    out.background_labels = [
        lab for lab, k in zip(recogniser.background_labels, keep, strict=True) if k
    ]
    out.background = recogniser.background[keep]
    return out


_OWNERS: list[np.ndarray] = []


def _owners() -> np.ndarray:
    """The training set each bundled prototype was enrolled from, in order: as
    make_default_model.py recorded it, else as it enrols them all."""
    if not _OWNERS:
        with np.load(DEFAULT_MODEL_DIR / "prototypes.npz") as data:
            recorded = data["sources"] if "sources" in data.files else None
        if recorded is None:
            recorded = np.array([n for n in TRAIN_SETS for _ in _bundled_prototypes(n)])
        _OWNERS.append(recorded)
    return _OWNERS[0]


def _bundled_prototypes(name: str) -> list[str]:
    """The bundled prototypes of one training set, in the order make_default_model.py enrols
    them: 3 photos a face, each into its enrolment variants."""
    variants = len(enrolment_variants(np.zeros((64, 48, 3), np.uint8)))
    return [label for label in load_set(name) for _ in range(3 * variants)]


def kind_group(label: str) -> str:
    if label in BONUS_KINDS:
        return "bonus"
    if label in CHINESE_LABELS[27:34]:
        return "honour"
    if label in CHINESE_LABELS[:27]:
        return "suit"
    return "joker, blank, back"


def breakdown(recogniser: Recogniser, rows: list[tuple[str, str, np.ndarray]]) -> dict[str, Any]:
    """:func:`breakdown_of` the recogniser's answers."""
    return breakdown_of(recogniser.identify([c for *_, c in rows]), rows)


def breakdown_of(
    ids: Sequence[Identity], rows: list[tuple[str, str, np.ndarray]]
) -> dict[str, Any]:
    """Where the abstentions and wrong answers come from: right / wrong / abstained by kind
    group (suits, honours, bonus tiles, the rest) and by set; the abstentions by the reason
    the recogniser gave (Identity.why) and kind group; the wrong answers by the groups of the
    true and the named kind."""
    tally: dict[str, dict[str, collections.Counter[str]]] = {
        "by group": collections.defaultdict(collections.Counter),
        "by set": collections.defaultdict(collections.Counter),
        "abstained, by reason": collections.defaultdict(collections.Counter),
    }
    wrong: collections.Counter[str] = collections.Counter()
    for (name, truth, _), named in zip(rows, ids, strict=True):
        group = kind_group(truth)
        outcome = (
            "abstained" if named.label is None else "right" if named.label == truth else "wrong"
        )
        for part, key in (("by group", group), ("by set", name)):
            tally[part][key]["n"] += 1
            tally[part][key][outcome] += 1
        if named.label is None:
            tally["abstained, by reason"][named.why or "?"][group] += 1
        elif outcome == "wrong":
            wrong[f"{group} -> {kind_group(named.label)}"] += 1
    out: dict[str, Any] = {"n": len(rows)}
    for part in ("by group", "by set"):
        out[part] = {
            key: {"n": c["n"], **{o: round(c[o] / c["n"], 4) for o in OUTCOMES}}
            for key, c in sorted(tally[part].items())
        }
    out["abstained, by reason"] = {
        why: {"share of all": round(sum(c.values()) / len(rows), 4), **c}
        for why, c in sorted(
            tally["abstained, by reason"].items(), key=lambda kv: -sum(kv[1].values())
        )
    }
    out["wrong, true group -> named group"] = dict(wrong.most_common())
    return out
