"""Dragon and wind faces lettered in a font, as the tiles a bonus-tile reader must never name.

A dragon or a wind is, like a flower or a season, one large character on the face (中 發 for
the red and green dragons, 東 南 西 北 for the winds), often coloured, the winds often with a
small Latin letter in a corner where a bonus tile prints its number. The bonus reader
(vision/bonus.py) learns "no bonus tile" from such faces drawn in its training fonts, beside
the dragons and winds of the sets it trains on. ``fonts`` chooses the fonts, so that training
never letters one in a held-out font.
Faces are ``FACE_W x FACE_H``, as the packaged sets' (vision/synth/artwork.py).
"""

from __future__ import annotations

import numpy as np

from vision.image import Image
from vision.synth.artwork import FACE_H, FACE_W, render_faces

# Each honour's character, the inks sets print it in, and the corner letter a wind may carry.
HONOURS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "RD": ("中", ("#c0201a", "#8a1010", "#d0302a"), ""),
    "GD": ("發", ("#1d7a2e", "#0d5c3a", "#2f8f3f", "#111111"), ""),
    "EW": ("東", ("#111111", "#1b3fa0", "#2a6f8f"), "E"),
    "SW": ("南", ("#111111", "#1b3fa0", "#2a6f8f"), "S"),
    "WW": ("西", ("#111111", "#1b3fa0", "#2a6f8f"), "W"),
    "NW": ("北", ("#111111", "#1b3fa0", "#2a6f8f"), "N"),
}
_SIMPLIFIED_GREEN = "发"
_BODIES = ("#f4efe0", "#fbfbf6", "#efe6cc", "#e6efe4", "#e9eef5", "#f6ead8", "#f0f0e8")


def _honour_svg(rng: np.random.Generator, kind: str, fonts: tuple[str, ...]) -> str:
    char, inks, letter = HONOURS[kind]
    if kind == "GD" and rng.random() < 0.25:
        char = _SIMPLIFIED_GREEN
    font = str(rng.choice(fonts))
    ink = str(rng.choice(inks))
    size = rng.uniform(30, 54)
    x, y = 36 + rng.uniform(-4, 4), 48 + rng.uniform(-8, 8)
    weight = "bold" if rng.random() < 0.3 else "normal"
    svg = f'<rect width="{FACE_W}" height="{FACE_H}" fill="{rng.choice(_BODIES)}"/>'
    svg += (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{font}" font-size="{size:.1f}" '
        f'font-weight="{weight}" fill="{ink}" text-anchor="middle" dominant-baseline="central" '
        f'transform="rotate({rng.uniform(-6, 6):.0f} {x:.1f} {y:.1f})">{char}</text>'
    )
    if letter and rng.random() < 0.5:  # a wind's letter where a bonus tile has its number
        lx, ly = rng.choice([10.0, 62.0]), rng.choice([12.0, 84.0])
        svg += (
            f'<text x="{lx:.1f}" y="{ly:.1f}" font-family="DejaVu Sans" '
            f'font-size="{rng.uniform(9, 15):.1f}" fill="{rng.choice(inks)}" '
            f'text-anchor="middle" dominant-baseline="central">{letter}</text>'
        )
    return svg


def honour_faces(seed: int, count: int, fonts: tuple[str, ...]) -> list[tuple[str, Image]]:
    """``count`` random dragon and wind faces (kind, image) lettered in ``fonts``, in one
    rendering."""
    rng = np.random.default_rng(seed)
    names = tuple(HONOURS)
    kinds = [names[int(k)] for k in rng.integers(len(names), size=count)]
    faces = render_faces([_honour_svg(rng, kind, fonts) for kind in kinds])
    return list(zip(kinds, faces, strict=True))
