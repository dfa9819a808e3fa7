"""Training episodes: the first look trained as a table that never enrolled its set uses it.

At such a table a crop's vector meets prototypes made from *other* art sets (the bundled
``vision/models/default``: camera-like crops of the training sets), and the kind whose nearest
prototype is most like it wins. An episode imitates that: a few art sets give the prototypes
(the *support*, one crop of every face of each set, as make_default_model.py enrols them), and
queries come from other sets only. The loss (episode_training.py) is a softmax over the query's
best similarity to each kind's prototypes.

This module draws episodes and cuts their crops (numpy only, so its tests run without torch).
Held-out art never enters an episode: the held-out sets by name, and procedural seeds from
:data:`HELD_OUT_SEEDS_FROM` (the benchmark draws its never-trained sets there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from camera_effects import camera_extra

from vision.crops import CROP_H, CROP_W
from vision.labels import BACK, JOKER, LABELS
from vision.synth.artwork import PROCEDURAL_PREFIX, back_face, body_colour, joker_face, load_set
from vision.synth.crops import recolour, synthetic_crop
from vision.synth.procedural import procedural_set

Image = np.ndarray
HELD_OUT_SEEDS_FROM = 90_000  # bench/vision/identity_parts.py draws its unseen sets from here
PACKAGED_SEEDS_FROM, VARIED_SEEDS_FROM = 10_000, 30_000  # the training's procedural seeds
# The assorted grammar's (vision/synth/assorted.py) training seeds: 80000-89999, clear of the
# scene crops' (20000), the bundle's (50000), the calibration group's drawn sets (60000 +
# 100 x seed + n: 61100-61399 and 262400-262499), the 8-bit copy's (70000) and the benchmark's.
ASSORTED_SEEDS_FROM = 80_000


@dataclass(frozen=True)
class FaceSet:
    """One art set's faces by label index, and the name that tells it apart."""

    name: str
    faces: dict[int, Image]


@dataclass(frozen=True)
class Episode:
    """Support crops' faces (every face of each support set) and queries' faces (of other
    sets, only kinds the support has), each as (set name, label index, face)."""

    support: list[tuple[str, int, Image]]
    queries: list[tuple[str, int, Image]]

    @property
    def support_sets(self) -> set[str]:
        return {name for name, _, _ in self.support}

    @property
    def query_sets(self) -> set[str]:
        return {name for name, _, _ in self.queries}


def refuse_held_out(name: str, hold_out: tuple[str, ...] | list[str]) -> None:
    """Raise if ``name`` is held out of training (by name, or a procedural seed the benchmark
    keeps for sets never trained)."""
    if name in hold_out:
        raise ValueError(f"art set {name!r} is held out of training")
    seed = name[len(PROCEDURAL_PREFIX) :]
    if name.startswith(PROCEDURAL_PREFIX) and int(seed) >= HELD_OUT_SEEDS_FROM:
        raise ValueError(f"procedural seed {seed} is kept for the benchmark (>= 90000)")


def training_sets(
    names: list[str], procedural: int, varied: int, hold_out: list[str], assorted: int = 0
) -> tuple[list[FaceSet], list[FaceSet]]:
    """The packaged sets among ``names`` not held out, and the procedural sets (``procedural``
    of the first grammar, ``varied`` of the varied one, ``assorted`` of the assorted one),
    each with its faces."""
    packaged = []
    for name in names:
        if name in hold_out:
            continue
        faces = {LABELS.index(label): face for label, face in load_set(name).items()}
        packaged.append(FaceSet(name, faces))
    generated = []
    for seed, grammar in procedural_seeds(procedural, varied, assorted):
        name = f"{PROCEDURAL_PREFIX}{seed}"
        refuse_held_out(name, hold_out)
        faces_by_name = procedural_set(seed, **{grammar: True} if grammar else {})
        faces_by_name[JOKER] = joker_face(body_colour(faces_by_name), seed)
        faces_by_name[BACK] = back_face(seed)
        faces = {LABELS.index(label): face for label, face in faces_by_name.items()}
        generated.append(FaceSet(name, faces))
    return packaged, generated


def procedural_seeds(procedural: int, varied: int, assorted: int = 0) -> list[tuple[int, str]]:
    """The training's procedural sets: each seed and the grammar it is drawn by ("" plain,
    "varied", "assorted"), each grammar's seeds in a range of its own."""
    counts = {"": procedural, "varied": varied, "assorted": assorted}
    starts = {"": PACKAGED_SEEDS_FROM, "varied": VARIED_SEEDS_FROM, "assorted": ASSORTED_SEEDS_FROM}
    limits = {"": 10_000, "varied": 10_000, "assorted": HELD_OUT_SEEDS_FROM - ASSORTED_SEEDS_FROM}
    seeds = []
    for grammar, count in counts.items():
        if not 0 <= count <= limits[grammar]:
            what = f"--{grammar}" if grammar else "--procedural"
            raise ValueError(f"{what} {count}: from 0 to {limits[grammar]} sets (its seeds' range)")
        seeds += [(starts[grammar] + n, grammar) for n in range(count)]
    return seeds


def flat_faces(sets: list[FaceSet]) -> list[tuple[int, Image]]:
    """Every face of ``sets`` as (label index, face), set by set."""
    return [(label, face) for s in sets for label, face in s.faces.items()]


def _pick_sets(
    packaged: list[FaceSet],
    generated: list[FaceSet],
    count: int,
    taken: set[str],
    rng: np.random.Generator,
    packaged_share: float,
) -> list[FaceSet]:
    """``count`` sets not in ``taken`` (each a packaged one with ``packaged_share``, while any
    is left), added to ``taken``."""
    chosen: list[FaceSet] = []
    for _ in range(count):
        free = [[s for s in pool if s.name not in taken] for pool in (packaged, generated)]
        if not free[0] and not free[1]:
            raise ValueError(f"too few art sets for an episode ({len(taken)} taken)")
        source = free[0] if free[0] and (rng.random() < packaged_share or not free[1]) else free[1]
        pick = source[int(rng.integers(len(source)))]
        chosen.append(pick)
        taken.add(pick.name)
    return chosen


def draw_episode(
    packaged: list[FaceSet],
    generated: list[FaceSet],
    rng: np.random.Generator,
    hold_out: list[str],
    support_sets: int = 3,
    query_sets: int = 2,
    queries: int = 48,
    packaged_share: float = 0.5,
) -> Episode:
    """Support sets, then query sets apart from them; ``queries`` query faces drawn evenly over
    the query sets' faces whose kind the support has (the others could not be named)."""
    taken: set[str] = set()
    support = _pick_sets(packaged, generated, support_sets, taken, rng, packaged_share)
    others = _pick_sets(packaged, generated, query_sets, taken, rng, packaged_share)
    kinds = {label for s in support for label in s.faces}
    candidates = [(s.name, lab, f) for s in others for lab, f in s.faces.items() if lab in kinds]
    picks = rng.integers(len(candidates), size=queries)
    episode = Episode(
        [(s.name, lab, f) for s in support for lab, f in s.faces.items()],
        [candidates[int(k)] for k in picks],
    )
    for name in episode.support_sets | episode.query_sets:
        refuse_held_out(name, hold_out)
    return episode


def render_crops(
    faces: list[tuple[int, Image]], rng: np.random.Generator, strength: float
) -> tuple[np.ndarray, np.ndarray]:
    """Camera-like crops of ``faces`` (synthetic_crop, recoloured, half of them with
    camera_effects.py's extras) as network input in [-1, 1], and their label indices."""
    xs = np.empty((len(faces), 3, CROP_H, CROP_W), np.float32)
    ys = np.empty(len(faces), np.int64)
    for i, (label, face) in enumerate(faces):
        crop = recolour(synthetic_crop(face, rng, strength=strength), rng)
        if rng.random() < 0.5:  # what synthetic_crop does not imitate (camera_effects.py)
            crop = camera_extra(crop, rng)
        xs[i] = crop.transpose(2, 0, 1)
        ys[i] = label
    return xs / 127.5 - 1.0, ys


def vary_scene_crops(
    crops: np.ndarray,
    labels: np.ndarray,
    rng: np.random.Generator,
    size: int,
    among: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` of the finder-cut crops (bench/vision/scene_crops.py; only those at the
    indices ``among`` if given), already camera-like: only turned, shifted a pixel or two,
    relit and recoloured (network input, labels)."""
    if among is None:
        idx = rng.integers(len(labels), size=size)
    else:
        idx = among[rng.integers(len(among), size=size)]
    xs = np.empty((size, 3, CROP_H, CROP_W), np.float32)
    for i, k in enumerate(idx):
        crop = crops[k]
        if rng.random() < 0.5:
            crop = crop[::-1, ::-1]
        dx, dy = rng.integers(-2, 3, size=2)
        crop = np.roll(crop, (int(dy), int(dx)), axis=(0, 1))
        gain = rng.uniform(0.8, 1.15) * (1 + rng.normal(0, 0.05, size=3))
        crop = np.clip(crop.astype(np.float32) * gain, 0, 255)
        xs[i] = recolour(crop, rng).transpose(2, 0, 1)
    return xs / 127.5 - 1.0, labels[idx].astype(np.int64)
