"""A fourth grammar of suit art, for training (``procedural_set(assorted=True)``).

The first look names dots and bamboos of art it never saw poorly (they print no character
that a text rule could read), and more varied suit art is what teaches it that a pip is a pip
whatever its design. This grammar draws the suits in designs none of the other grammars of
vision/synth/procedural.py has, neither the plain and varied ones training draws nor the
unfamiliar one kept for measuring (vision/synth/unfamiliar.py), so those sets stay a fair
measure: pips as spirals, hexagons, flowers of petals, discs with a cross or discs of two
halves, filled or hollow, in two inks; sticks as canes with nodes and a leaf, ladders,
columns of blocks, arrows or brush strokes; the one bamboo a sprig or a bird of polygons;
the layouts spaced tighter or looser. Characters and honours change in fewer sets: a
training font (never a held-out one), and a shadow, a halo or a ring; the white dragon an
oval or two bars. Inks and body of any hue. Every choice comes from a generator stream of
the set's own, so the other grammars' sets are drawn as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synth.artwork import FACE_H, FACE_W
from vision.synth.bonus_faces import TRAINING_FONTS
from vision.synth.procedural import NUMERALS, WIND_CHARS, any_hue, pick_one

PIPS = ("spiral", "hexagon", "petals", "cross", "halves")
STICKS = ("cane", "ladder", "blocks", "arrow", "brush")
ONE_BAMBOO = ("sprig", "polybird")
LETTERING = ("shadow", "halo", "ring")
WHITE_DRAGONS = ("oval", "bars")
# A generator stream no other grammar of procedural.py draws from (they use 1 to 4).
STREAM = 5
# The share of sets whose characters and honours are lettered anew (the suits always are).
LETTERED_SHARE = 0.4


@dataclass(frozen=True)
class AssortedStyle:
    """One set's assorted choices."""

    pip: str
    hollow: bool  # pips drawn as outlines rather than filled
    stick: str
    one_bamboo: str
    lettered: bool  # characters and honours lettered anew too
    font: str
    lettering: str
    white_dragon: str
    inks: tuple[str, str, str]  # pips and sticks
    letter_ink: str  # numerals, winds
    accent: str  # 萬, 中, shadows, halos and rings
    green: str  # 發
    body: str
    stroke: float
    spread: float  # the layout spaced tighter (< 1) or looser (> 1) about the face's centre
    size: float  # the pips' and sticks' size against the plain grammar's

    @classmethod
    def draw(cls, seed: int) -> AssortedStyle:
        rng = np.random.default_rng([seed, STREAM])
        return cls(
            pip=pick_one(rng, PIPS),
            hollow=bool(rng.random() < 0.35),
            stick=pick_one(rng, STICKS),
            one_bamboo=pick_one(rng, ONE_BAMBOO),
            lettered=bool(rng.random() < LETTERED_SHARE),
            font=pick_one(rng, TRAINING_FONTS),
            lettering=pick_one(rng, LETTERING),
            white_dragon=pick_one(rng, WHITE_DRAGONS),
            inks=(
                any_hue(rng, (0.4, 1.0), (0.2, 0.75)),
                any_hue(rng, (0.4, 1.0), (0.2, 0.75)),
                any_hue(rng, (0.4, 1.0), (0.2, 0.75)),
            ),
            letter_ink=any_hue(rng, (0.2, 1.0), (0.05, 0.45)),
            accent=any_hue(rng, (0.5, 1.0), (0.4, 0.85)),
            green=any_hue(rng, (0.5, 1.0), (0.25, 0.6)),
            body=any_hue(rng, (0.0, 0.4), (0.75, 1.0)),
            stroke=float(rng.uniform(1.0, 3.0)),
            spread=float(rng.uniform(0.82, 1.12)),
            size=float(rng.uniform(0.8, 1.2)),
        )


def face_body(
    st: AssortedStyle,
    label: str,
    dots: dict[int, list[tuple[float, float]]],
    sticks: dict[int, list[tuple[float, float, int]]],
) -> str | None:
    """The SVG of a suit face in ``st``'s art (the layouts of ``dots`` and ``sticks`` on a
    unit face), of a character or honour where the set letters them anew; None where the
    face is left to the grammar it was drawn by (bonus tiles always)."""
    if label[1:] == "D" and label[0].isdigit():
        return _dots(st, int(label[0]), dots)
    if label[1:] == "B" and label[0].isdigit():
        return _bamboo(st, int(label[0]), sticks)
    if not st.lettered:
        return None
    if label[1:] == "C" and label[0].isdigit():
        numeral = _letter(st, 36, 27, 32, NUMERALS[int(label[0]) - 1], st.letter_ink)
        return numeral + _letter(st, 36, 67, 38, "萬", st.accent)
    if label in WIND_CHARS:
        return _letter(st, 36, 50, 48, WIND_CHARS[label], st.letter_ink)
    if label == "RD":
        return _letter(st, 36, 50, 52, "中", st.accent)
    if label == "GD":
        return _letter(st, 36, 50, 50, "發", st.green)
    if label == "WD":
        return _white_dragon(st)
    return None


def _text(st: AssortedStyle, x: float, y: float, size: float, text: str, paint: str) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{st.font}" font-size="{size:.1f}" '
        f'text-anchor="middle" dominant-baseline="central" {paint}>{text}</text>'
    )


def _letter(st: AssortedStyle, x: float, y: float, size: float, text: str, ink: str) -> str:
    """One character in the set's lettering."""
    if st.lettering == "shadow":  # a copy in the accent, offset down and right, beneath
        return _text(st, x + 1.8, y + 1.8, size, text, f'fill="{st.accent}"') + _text(
            st, x, y, size, text, f'fill="{ink}"'
        )
    if st.lettering == "halo":  # a wide stroke of the accent under the ink's fill
        halo = f'fill="{st.accent}" stroke="{st.accent}" stroke-width="{st.stroke * 1.6:.1f}"'
        return _text(st, x, y, size, text, halo) + _text(st, x, y, size, text, f'fill="{ink}"')
    ring = (  # a thin ring round the character
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size * 0.62:.1f}" fill="none" '
        f'stroke="{st.accent}" stroke-width="{st.stroke * 0.8:.1f}"/>'
    )
    return ring + _text(st, x, y, size * 0.85, text, f'fill="{ink}"')


def _spread(st: AssortedStyle, x: float, y: float) -> tuple[float, float]:
    """A layout point (on the whole face) moved toward or away from the face's centre."""
    cx, cy = FACE_W / 2, FACE_H / 2
    return cx + (x - cx) * st.spread, cy + (y - cy) * st.spread


def _dots(st: AssortedStyle, n: int, layout: dict[int, list[tuple[float, float]]]) -> str:
    r = {1: 0.31, 2: 0.18, 3: 0.14, 4: 0.16, 5: 0.14}.get(n, 0.11) * FACE_W * st.size
    r = min(r, 0.36 * FACE_W) if n == 1 else min(r, 0.19 * FACE_W / max(1.0, st.spread))
    parts = []
    for i, (x, y) in enumerate(layout[n]):
        cx, cy = _spread(st, x * FACE_W, y * FACE_H)
        ink = st.inks[i % 3] if n > 1 else st.inks[2]
        second = st.inks[(i + 1) % 3] if n > 1 else st.inks[0]
        parts.append(_pip(st, cx, cy, r, ink, second))
    return "".join(parts)


def _paint(st: AssortedStyle, ink: str) -> str:
    """A shape's paint: filled with ``ink``, or its outline in it for hollow pips."""
    if st.hollow:
        return f'fill="none" stroke="{ink}" stroke-width="{st.stroke:.1f}"'
    return f'fill="{ink}"'


def _pip(st: AssortedStyle, cx: float, cy: float, r: float, ink: str, second: str) -> str:
    if st.pip == "spiral":  # an open spiral of two and a half turns
        t = np.linspace(0.0, 5 * np.pi, 40)
        rr = r * (0.12 + 0.88 * t / t[-1])
        pts = " ".join(
            f"{cx + a * np.cos(b):.1f},{cy + a * np.sin(b):.1f}" for a, b in zip(rr, t, strict=True)
        )
        width = max(1.2, r * 0.16) * (0.7 if st.hollow else 1.0)
        return (
            f'<polyline points="{pts}" fill="none" stroke="{ink}" stroke-width="{width:.1f}" '
            f'stroke-linecap="round"/>'
        )
    if st.pip == "hexagon":  # a hexagon, a smaller one of the second ink inside
        outer = _polygon(cx, cy, r, 6, 0.0)
        inner = _polygon(cx, cy, r * 0.45, 6, np.pi / 6)
        return (
            f'<polygon points="{outer}" {_paint(st, ink)}/>'
            f'<polygon points="{inner}" fill="{second}"/>'
        )
    if st.pip == "petals":  # five long petals round a centre of the second ink
        petals = "".join(
            f'<ellipse cx="{cx + r * 0.5 * np.cos(a):.1f}" cy="{cy + r * 0.5 * np.sin(a):.1f}" '
            f'rx="{r * 0.5:.1f}" ry="{r * 0.22:.1f}" transform="rotate({np.rad2deg(a):.0f} '
            f'{cx + r * 0.5 * np.cos(a):.1f} {cy + r * 0.5 * np.sin(a):.1f})" '
            f"{_paint(st, ink)}/>"
            for a in np.linspace(-np.pi / 2, 1.5 * np.pi, 5, endpoint=False)
        )
        return petals + f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.2:.1f}" fill="{second}"/>'
    if st.pip == "cross":  # a disc crossed by two bars of the body's colour (or the ink)
        bar = st.body if not st.hollow else ink
        w = max(1.2, r * 0.22)
        return (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.92:.1f}" {_paint(st, ink)}/>'
            f'<rect x="{cx - r * 0.92:.1f}" y="{cy - w / 2:.1f}" width="{r * 1.84:.1f}" '
            f'height="{w:.1f}" fill="{bar}"/><rect x="{cx - w / 2:.1f}" y="{cy - r * 0.92:.1f}" '
            f'width="{w:.1f}" height="{r * 1.84:.1f}" fill="{bar}"/>'
        )
    # halves: a disc split down a slant, each half of its own ink
    a = np.deg2rad(35.0)
    dx, dy = r * 0.92 * np.cos(a), r * 0.92 * np.sin(a)
    rr = r * 0.92
    half = (
        f'<path d="M{cx - dx:.1f},{cy - dy:.1f} A{rr:.1f},{rr:.1f} 0 0 1 {cx + dx:.1f},'
        f'{cy + dy:.1f} Z" fill="{ink}"/><path d="M{cx + dx:.1f},{cy + dy:.1f} A{rr:.1f},'
        f'{rr:.1f} 0 0 1 {cx - dx:.1f},{cy - dy:.1f} Z" '
    )
    return half + (_paint(st, second) + "/>")


def _polygon(cx: float, cy: float, r: float, sides: int, turn: float) -> str:
    return " ".join(
        f"{cx + r * np.cos(a):.1f},{cy + r * np.sin(a):.1f}"
        for a in turn + np.linspace(0, 2 * np.pi, sides, endpoint=False)
    )


def _bamboo(st: AssortedStyle, n: int, layout: dict[int, list[tuple[float, float, int]]]) -> str:
    if n == 1:
        return _sprig(st) if st.one_bamboo == "sprig" else _polybird(st)
    length = FACE_H * {2: 0.36, 3: 0.36, 4: 0.36, 5: 0.29}.get(n, 0.25) * min(st.size, 1.05)
    parts = []
    for i, (x, y, slant) in enumerate(layout[n]):
        ink = st.inks[1] if (n in (5, 7, 9) and i % 3 == 1) else st.inks[0]
        cx, cy = _spread(st, x * FACE_W, y * FACE_H)
        parts.append(_stick(st, cx, cy, length, slant, ink))
    return "".join(parts)


def _stick(st: AssortedStyle, cx: float, cy: float, length: float, slant: int, ink: str) -> str:
    w = FACE_W * 0.1
    top, bottom = cy - length / 2, cy + length / 2
    if st.stick == "cane":  # segments that swell to dark nodes, a small leaf at one node
        nodes = [top + length * k / 3 for k in range(4)]
        shape = f'<rect x="{cx - w * 0.35:.1f}" y="{top:.1f}" width="{w * 0.7:.1f}" '
        shape += f'height="{length:.1f}" fill="{ink}" fill-opacity="0.75"/>'
        shape += "".join(
            f'<ellipse cx="{cx:.1f}" cy="{ny:.1f}" rx="{w * 0.55:.1f}" ry="1.6" fill="{ink}"/>'
            for ny in nodes
        )
        ny = nodes[1]
        shape += (
            f'<path d="M{cx:.1f},{ny:.1f} Q{cx + w * 1.1:.1f},{ny - 5:.1f} {cx + w * 1.3:.1f},'
            f'{ny - 1:.1f} Q{cx + w * 0.8:.1f},{ny + 1.5:.1f} {cx:.1f},{ny:.1f} Z" '
            f'fill="{st.inks[2]}"/>'
        )
    elif st.stick == "ladder":  # two rails and rungs
        rails = "".join(
            f'<line x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="{ink}" '
            f'stroke-width="{st.stroke:.1f}"/>'
            for x in (cx - w * 0.4, cx + w * 0.4)
        )
        rungs = "".join(
            f'<line x1="{cx - w * 0.4:.1f}" y1="{ry:.1f}" x2="{cx + w * 0.4:.1f}" y2="{ry:.1f}" '
            f'stroke="{ink}" stroke-width="{st.stroke * 0.8:.1f}"/>'
            for ry in np.linspace(top + length * 0.15, bottom - length * 0.15, 4)
        )
        shape = rails + rungs
    elif st.stick == "blocks":  # a column of small blocks, the middle one of the second ink
        h = length / 3.6
        shape = "".join(
            f'<rect x="{cx - w * 0.45:.1f}" y="{top + k * (h + length * 0.1):.1f}" '
            f'width="{w * 0.9:.1f}" height="{h:.1f}" '
            f'fill="{st.inks[2] if k == 1 else ink}"/>'
            for k in range(3)
        )
    elif st.stick == "arrow":  # a shaft, a head at the top, feathers at the foot
        shape = (
            f'<line x1="{cx:.1f}" y1="{top + 4:.1f}" x2="{cx:.1f}" y2="{bottom:.1f}" '
            f'stroke="{ink}" stroke-width="{st.stroke:.1f}"/><polygon points="{cx:.1f},'
            f'{top:.1f} {cx + w * 0.5:.1f},{top + 7:.1f} {cx - w * 0.5:.1f},{top + 7:.1f}" '
            f'fill="{ink}"/>'
            + "".join(
                f'<line x1="{cx:.1f}" y1="{fy:.1f}" x2="{cx + sx * w * 0.5:.1f}" '
                f'y2="{fy + 3:.1f}" stroke="{ink}" stroke-width="{st.stroke * 0.7:.1f}"/>'
                for fy in (bottom - 7, bottom - 3.5)
                for sx in (-1, 1)
            )
        )
    else:  # brush: a stroke wide at the top, tapering to a point, ticks at its nodes
        shape = (
            f'<path d="M{cx - w * 0.45:.1f},{top:.1f} Q{cx - w * 0.2:.1f},{cy:.1f} '
            f"{cx + w * 0.1:.1f},{bottom:.1f} Q{cx + w * 0.05:.1f},{cy:.1f} "
            f'{cx + w * 0.5:.1f},{top + 1:.1f} Z" fill="{ink}"/>'
            + "".join(
                f'<line x1="{cx - w * 0.6:.1f}" y1="{ty:.1f}" x2="{cx - w * 0.2:.1f}" '
                f'y2="{ty - 2:.1f}" stroke="{ink}" stroke-width="{st.stroke * 0.6:.1f}"/>'
                for ty in (top + length * 0.35, top + length * 0.65)
            )
        )
    return f'<g transform="rotate({slant} {cx:.1f} {cy:.1f})">{shape}</g>'


def _sprig(st: AssortedStyle) -> str:
    """The one bamboo as a slanting cane with leaves off its nodes."""
    a, b = st.inks[0], st.inks[1]
    stem = (
        f'<line x1="26" y1="86" x2="46" y2="12" stroke="{a}" '
        f'stroke-width="{st.stroke * 2.2:.1f}" stroke-linecap="round"/>'
    )
    leaves = "".join(
        f'<path d="M{x:.1f},{y:.1f} Q{x + d * 12:.1f},{y - 10:.1f} {x + d * 22:.1f},{y - 4:.1f} '
        f'Q{x + d * 10:.1f},{y + 2:.1f} {x:.1f},{y:.1f} Z" fill="{b}"/>'
        for x, y, d in ((42.5, 25, 1), (38.2, 41, -1), (33.9, 57, 1), (29.6, 73, -1))
    )
    return stem + leaves


def _polybird(st: AssortedStyle) -> str:
    """The one bamboo as a bird of polygons: a kite of a body, a wing, a square head."""
    a, b = st.inks[0], st.inks[1]
    return (
        f'<polygon points="36,30 52,54 36,74 22,52" fill="{a}"/>'
        f'<polygon points="36,46 60,38 44,62" fill="{b}"/>'
        f'<rect x="30" y="16" width="12" height="12" fill="{a}"/>'
        f'<polygon points="42,20 50,22 42,25" fill="{b}"/>'
        + "".join(
            f'<line x1="36" y1="74" x2="{x}" y2="92" stroke="{b}" stroke-width="{st.stroke:.1f}"/>'
            for x in (24, 36, 48)
        )
    )


def _white_dragon(st: AssortedStyle) -> str:
    ink = st.inks[2]
    if st.white_dragon == "oval":
        return (
            f'<ellipse cx="36" cy="48" rx="23" ry="32" fill="none" stroke="{ink}" '
            f'stroke-width="{st.stroke * 1.6:.1f}"/>'
        )
    return "".join(  # two thick bars, above and below
        f'<rect x="14" y="{y}" width="44" height="9" rx="2" fill="{ink}"/>' for y in (16, 71)
    )
