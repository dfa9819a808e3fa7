"""What the bonus-tile reader (vision/bonus.py) trains and is measured on.

Bonus faces drawn in the training fonts (vision/synth/bonus_faces.py), the bonus tiles of
the packaged art sets and of the drawn (procedural) sets, and every other face of those sets
as the tiles a bonus tile must never be taken for. Held out of training: the packaged sets
``xmj-real`` (scans of a real set), ``kde-traditional`` and ``gnome-smooth``, the fonts of
``HELD_OUT_FONTS`` and every drawn set lettered in one of them. Each face becomes camera-like
crops (vision/synth/crops.py: body and rim, cloth at the edges, 18-43 px a tile, blur, noise,
light, JPEG, either way up), fresh every time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
# The training-only fonts (bench/vision/README.md, "training fonts"), unpacked under build/ and
# seen through their own fontconfig file by every rendering this process starts.
EXTRA_FONTS_CONF = ROOT / "build" / "fonts" / "fonts.conf"
if EXTRA_FONTS_CONF.exists():
    os.environ.setdefault("FONTCONFIG_FILE", str(EXTRA_FONTS_CONF))

from vision.bonus import NOT_BONUS  # noqa: E402
from vision.crops import CROP_H, CROP_W  # noqa: E402
from vision.image import Image  # noqa: E402
from vision.synth.artwork import ART_SETS, load_set  # noqa: E402
from vision.synth.bonus_faces import (  # noqa: E402
    BONUS_KINDS,
    HELD_OUT_FONTS,
    HELD_OUT_HANDS,
    TRAINING_FONTS,
    TRAINING_LATIN,
    TRAINING_LATIN_EXTRA,
    bonus_faces,
    drawn_bonus_faces,
)
from vision.synth.crops import recolour, synthetic_crop  # noqa: E402
from vision.synth.honour_faces import honour_faces  # noqa: E402
from vision.synth.procedural import FONTS  # noqa: E402

HELD_OUT_SETS = ("xmj-real", "kde-traditional", "gnome-smooth")
KINDS = (*BONUS_KINDS, NOT_BONUS)
# The faces that are not bonus tiles but look most like one: a dragon or a wind drawn as one
# character or a picture, the bird or bamboo of the one bamboo, the dense dots of the seven to
# nine of dots (issue 33: the readers that named more bonus tiles took a green dragon, an eight
# of dots and a one bamboo for a season).
HARD_KINDS = ("RD", "GD", "WD", "EW", "SW", "WW", "NW", "1B", "7D", "8D", "9D")

T = TypeVar("T")

# A face and what the reader must answer: 0-7 the bonus kinds, 8 not a bonus tile.
Faces = list[tuple[int, Image]]


def missing_fonts(fonts: tuple[str, ...]) -> list[str]:
    """The fonts fontconfig does not know (a face lettered in one would silently fall back)."""
    listed = subprocess.run(
        ["fc-list", ":", "family"], capture_output=True, text=True, check=True
    ).stdout
    known = {name.replace("\\-", "-") for line in listed.splitlines() for name in line.split(",")}
    return [f for f in fonts if f not in known]


def require_fonts(fonts: tuple[str, ...]) -> None:
    missing = missing_fonts(fonts)
    if missing:
        raise SystemExit(
            f"fonts not installed: {', '.join(missing)} (bench/vision/README.md, training fonts)"
        )


def procedural_font(seed: int) -> str:
    """The font a drawn set is lettered in (its style's first draw, vision/synth/procedural.py)."""
    return FONTS[int(np.random.default_rng(seed).integers(len(FONTS)))]


def _split(faces: dict[str, Image]) -> tuple[Faces, Faces]:
    bonus = [(BONUS_KINDS.index(k), f) for k, f in faces.items() if k in BONUS_KINDS]
    other = [(KINDS.index(NOT_BONUS), f) for k, f in faces.items() if k not in BONUS_KINDS]
    return bonus, other


def art_faces(sets: list[str]) -> tuple[Faces, Faces]:
    """The bonus faces and the other faces of packaged or drawn sets."""
    bonus: Faces = []
    other: Faces = []
    for name in sets:
        b, o = _split(load_set(name))
        bonus += b
        other += o
    return bonus, other


def hard_faces(sets: list[str]) -> Faces:
    """The faces of ``HARD_KINDS`` in packaged or drawn sets, each answered "no bonus tile"."""
    none = KINDS.index(NOT_BONUS)
    return [(none, load_set(name)[kind]) for name in sets for kind in HARD_KINDS]


def drawn_sets(count: int, fonts: tuple[str, ...], first: int = 0) -> list[str]:
    """``count`` drawn sets lettered in ``fonts`` (seeds from ``first`` on)."""
    names: list[str] = []
    seed = first
    while len(names) < count:
        if procedural_font(seed) in fonts:
            names.append(f"procedural#{seed}")
        seed += 1
    return names


# Training's English names and Arabic numbers: the project's Latin faces and those installed
# for training only; and the share of font-drawn faces that are a picture with a small name.
TRAINING_LATIN_ALL = (*TRAINING_LATIN, *TRAINING_LATIN_EXTRA)
SPARSE = 0.4
# A name lettered smaller than this on the 72 px face (under 5-7 px at the table camera's
# 18-28 px a tile) is already as hard to read as a camera makes it: training never softens
# such a face further (``training_pools``' "fonts_tiny").
TINY_NAME_PX = 18.0


def font_faces(
    count: int,
    fonts: tuple[str, ...],
    seed: int,
    latin: tuple[str, ...] | None = None,
    sparse: float = 0.0,
) -> Faces:
    drawn = in_sheets(count, seed, lambda s, n: bonus_faces(s, n, fonts, latin, sparse))
    return [(BONUS_KINDS.index(k), f) for k, f in drawn]


def in_sheets(count: int, seed: int, draw: Callable[[int, int], list[T]]) -> list[T]:
    """``count`` faces drawn 256 to a sheet: ``draw(sheet_seed, how_many)`` for each sheet,
    its seed ``seed * 1000`` plus the faces before it (so a count's faces are seed for seed
    the first of a larger count's)."""
    out: list[T] = []
    for n in range(0, count, 256):
        out += draw(seed * 1000 + n, min(256, count - n))
    return out


def sized_font_faces(
    count: int, fonts: tuple[str, ...], seed: int, latin: tuple[str, ...], sparse: float
) -> tuple[Faces, Faces]:
    """:func:`font_faces` (the same faces), split by the size of the name: (names of
    ``TINY_NAME_PX`` and more, tiny names)."""
    plain: Faces = []
    tiny: Faces = []
    for face in in_sheets(count, seed, lambda s, n: drawn_bonus_faces(s, n, fonts, latin, sparse)):
        pool = tiny if face.name_px < TINY_NAME_PX else plain
        pool.append((BONUS_KINDS.index(face.kind), face.image))
    return plain, tiny


def font_honour_faces(count: int, fonts: tuple[str, ...], seed: int) -> Faces:
    """``count`` dragons and winds lettered in ``fonts`` (vision/synth/honour_faces.py), each
    answered "no bonus tile"."""
    none = KINDS.index(NOT_BONUS)
    return [(none, f) for _, f in in_sheets(count, seed, lambda s, n: honour_faces(s, n, fonts))]


def training_sets(drawn: int) -> tuple[list[str], list[str]]:
    """The packaged sets and the drawn sets training draws from (never a held-out one)."""
    packaged = [s for s in ART_SETS if s not in HELD_OUT_SETS]
    return packaged, drawn_sets(drawn, TRAINING_FONTS)


def training_pools(
    fonts_count: int, drawn: int, seed: int, honours: int = 0, sparse: float = SPARSE
) -> dict[str, Faces]:
    """Everything training draws from, by source; the font-drawn faces in two pools, "fonts"
    and "fonts_tiny" (names under ``TINY_NAME_PX``, never softened further); "hard": the
    training sets' faces of ``HARD_KINDS`` and ``honours`` dragons and winds lettered in the
    training fonts (drawn after every other pool, so those stay seed for seed); ``sparse``:
    the share of font-drawn faces drawn sparse (a picture filling the face, the name small)."""
    require_fonts(TRAINING_FONTS + TRAINING_LATIN_EXTRA)
    packaged, drawn_names = training_sets(drawn)
    art_bonus, art_other = art_faces(packaged)
    drawn_bonus, drawn_other = art_faces(drawn_names)
    fonts, tiny = sized_font_faces(fonts_count, TRAINING_FONTS, seed, TRAINING_LATIN_ALL, sparse)
    hard = hard_faces(packaged + drawn_names)
    if honours:
        hard += font_honour_faces(honours, TRAINING_FONTS, seed + 1)
    return {
        "fonts": fonts,
        "fonts_tiny": tiny,
        "sets_bonus": art_bonus,
        "drawn_bonus": drawn_bonus,
        "sets_other": art_other,
        "other": drawn_other,
        "hard": hard,
    }


def held_out_pools(fonts_count: int, drawn: int) -> dict[str, Faces]:
    """What training never saw: faces in the held-out fonts, drawn sets lettered in them, and
    the held-out packaged sets (bonus tiles, and every other face); and faces in two
    training-only hands held out (a brush and a handwritten one)."""
    require_fonts(HELD_OUT_FONTS + HELD_OUT_HANDS)
    sets_bonus, sets_other = art_faces(list(HELD_OUT_SETS))
    drawn_bonus, drawn_other = art_faces(drawn_sets(drawn, HELD_OUT_FONTS, first=100_000))
    return {
        "fonts": font_faces(fonts_count, HELD_OUT_FONTS, 99_991),
        "hands": font_faces(fonts_count, HELD_OUT_HANDS, 99_992),
        "drawn_bonus": drawn_bonus,
        "sets_bonus": sets_bonus,
        "other": sets_other + drawn_other,
    }


def crops_of(
    faces: Faces,
    rng: np.random.Generator,
    count: int,
    colour: bool = True,
    narrow: float = 0.0,
    soft: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` camera-like crops of faces drawn at random: (count, 3, H, W) BGR 0-255 and
    their answers; ``narrow``: the share seen at the table camera's own 18-28 px a tile (the
    rest at 18-43); ``soft``: the share further blurred and flattened (``softened``)."""
    pick = rng.integers(len(faces), size=count)
    xs = np.empty((count, 3, CROP_H, CROP_W), np.float32)
    ys = np.empty(count, np.int64)
    for i, k in enumerate(pick):
        answer, face = faces[int(k)]
        width = int(rng.integers(18, 29)) if narrow > 0 and rng.random() < narrow else None
        crop = synthetic_crop(face, rng, camera_width=width)
        if soft > 0 and rng.random() < soft:
            crop = softened(crop, rng)
        xs[i] = (recolour(crop, rng) if colour else crop).transpose(2, 0, 1)
        ys[i] = answer
    return xs, ys


def softened(crop: Image, rng: np.random.Generator) -> Image:
    """A crop further out of focus and lower in contrast, as a dim table or a worn set shows a
    small name (every kind of face gets it, so that softness says nothing of the answer)."""
    x = np.asarray(cv2.GaussianBlur(crop.astype(np.float32), (0, 0), rng.uniform(0.5, 1.3)))
    mean = x.mean(axis=(0, 1), keepdims=True)
    x = mean + (x - mean) * rng.uniform(0.45, 0.85)
    return np.clip(x, 0, 255).astype(np.uint8)
