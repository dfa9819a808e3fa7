"""Suit and honour art that training never draws (``procedural_set(unfamiliar=True)``).

Measuring only: calibration sets whose dots, bamboos, characters, winds and dragons are
drawn in ways neither the plain nor the varied grammar of vision/synth/procedural.py has, so
that their photos abstain the way the held-out sets' do (art no network saw), and a rule for
those abstentions can be chosen without the held-out sets. The pips are rosettes, stars,
squares or dashed targets; the sticks strings of beads, zigzags, leaves or bones; the
lettering (the training fonts only, never the held-out ones) outlined, slanted, squeezed or
printed white on a badge; the white dragon a dashed frame, corner marks or a pale panel; the
inks of any hue. The layouts (how many pips and sticks, where) stay the grammar's, so every
kind reads as itself. Every choice comes from a generator of the set's own, apart from the
plain grammar's draws, and the bonus tiles are drawn as the plain grammar draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synth.artwork import FACE_H, FACE_W
from vision.synth.bonus_faces import TRAINING_FONTS
from vision.synth.procedural import NUMERALS, WIND_CHARS, any_hue, pick_one

PIPS = ("rosette", "star", "square", "target")
STICKS = ("beads", "zigzag", "leaf", "bone")
LETTERING = ("outline", "slant", "squeeze", "badge")
WHITE_DRAGONS = ("dashed", "corners", "panel")
# A generator stream no other grammar of procedural.py draws from (they use 1, 2 and 3).
STREAM = 4


@dataclass(frozen=True)
class UnfamiliarStyle:
    """One set's unfamiliar choices."""

    font: str
    pip: str
    stick: str
    lettering: str
    white_dragon: str
    inks: tuple[str, str, str]  # pips and sticks
    letter_ink: str  # numerals, winds
    accent: str  # 萬, 中 and the badges' ground
    green: str  # 發
    body: str
    stroke: float
    turn: float  # the pips' layout turned about the face's centre, in degrees

    @classmethod
    def draw(cls, seed: int) -> UnfamiliarStyle:
        rng = np.random.default_rng([seed, STREAM])
        return cls(
            font=pick_one(rng, TRAINING_FONTS),
            pip=pick_one(rng, PIPS),
            stick=pick_one(rng, STICKS),
            lettering=pick_one(rng, LETTERING),
            white_dragon=pick_one(rng, WHITE_DRAGONS),
            inks=(
                any_hue(rng, (0.5, 1.0), (0.3, 0.8)),
                any_hue(rng, (0.5, 1.0), (0.3, 0.8)),
                any_hue(rng, (0.5, 1.0), (0.3, 0.8)),
            ),
            letter_ink=any_hue(rng, (0.3, 1.0), (0.1, 0.45)),
            accent=any_hue(rng, (0.6, 1.0), (0.45, 0.85)),
            green=any_hue(rng, (0.6, 1.0), (0.3, 0.6)),
            body=any_hue(rng, (0.05, 0.35), (0.78, 0.97)),
            stroke=float(rng.uniform(1.0, 2.6)),
            turn=float(rng.uniform(-10, 10)),
        )


def face_body(
    st: UnfamiliarStyle,
    label: str,
    dots: dict[int, list[tuple[float, float]]],
    sticks: dict[int, list[tuple[float, float, int]]],
) -> str | None:
    """The SVG of a suit or honour face in ``st``'s art (the layouts of ``dots`` and
    ``sticks`` on a unit face); None for a bonus tile (drawn by the plain grammar)."""
    if label[1:] == "D" and label[0].isdigit():
        return _dots(st, int(label[0]), dots)
    if label[1:] == "B" and label[0].isdigit():
        return _bamboo(st, int(label[0]), sticks)
    if label[1:] == "C" and label[0].isdigit():
        numeral = _letter(st, 36, 27, 34, NUMERALS[int(label[0]) - 1], st.letter_ink)
        return numeral + _letter(st, 36, 68, 36, "萬", st.accent)
    if label in WIND_CHARS:
        return _letter(st, 36, 50, 46, WIND_CHARS[label], st.letter_ink)
    if label == "RD":
        return _letter(st, 36, 50, 50, "中", st.accent)
    if label == "GD":
        return _letter(st, 36, 50, 48, "發", st.green)
    if label == "WD":
        return _white_dragon(st)
    return None


def _letter(st: UnfamiliarStyle, x: float, y: float, size: float, text: str, ink: str) -> str:
    """One character in the set's lettering."""
    base = (
        f'font-family="{st.font}" font-size="{size:.1f}" text-anchor="middle" '
        f'dominant-baseline="central"'
    )
    if st.lettering == "outline":  # the strokes' edges only
        return (
            f'<text x="{x:.1f}" y="{y:.1f}" {base} fill="none" stroke="{ink}" '
            f'stroke-width="{st.stroke * 0.6:.1f}">{text}</text>'
        )
    if st.lettering == "slant":
        return (
            f'<g transform="translate({x:.1f} {y:.1f}) skewX(-16)"><text x="0" y="0" {base} '
            f'fill="{ink}">{text}</text></g>'
        )
    if st.lettering == "squeeze":  # narrow and tall
        return (
            f'<g transform="translate({x:.1f} {y:.1f}) scale(0.7 1.12)"><text x="0" y="0" '
            f'{base} fill="{ink}">{text}</text></g>'
        )
    half = size * 0.62  # a badge: white on a rounded ground of the ink
    return (
        f'<rect x="{x - half:.1f}" y="{y - half:.1f}" width="{2 * half:.1f}" '
        f'height="{2 * half:.1f}" rx="{half * 0.4:.1f}" fill="{ink}"/>'
        f'<text x="{x:.1f}" y="{y:.1f}" {base} fill="{st.body}">{text}</text>'
    )


def _turned(st: UnfamiliarStyle, x: float, y: float) -> tuple[float, float]:
    """A layout point (on the whole face) turned by the set's ``turn`` about the centre."""
    cx, cy = FACE_W / 2, FACE_H / 2
    a = np.deg2rad(st.turn)
    dx, dy = x - cx, y - cy
    return cx + dx * np.cos(a) - dy * np.sin(a), cy + dx * np.sin(a) + dy * np.cos(a)


def _dots(st: UnfamiliarStyle, n: int, layout: dict[int, list[tuple[float, float]]]) -> str:
    r = {1: 0.3, 2: 0.18, 3: 0.14, 4: 0.16, 5: 0.14}.get(n, 0.11) * FACE_W
    parts = []
    for i, (x, y) in enumerate(layout[n]):
        cx, cy = _turned(st, 6 + x * (FACE_W - 12), 6 + y * (FACE_H - 12))
        parts.append(_pip(st, cx, cy, r, st.inks[i % 3] if n > 1 else st.inks[2]))
    return "".join(parts)


def _pip(st: UnfamiliarStyle, cx: float, cy: float, r: float, ink: str) -> str:
    if st.pip == "rosette":  # small discs round a centre
        petals = "".join(
            f'<circle cx="{cx + r * 0.62 * np.cos(a):.1f}" cy="{cy + r * 0.62 * np.sin(a):.1f}" '
            f'r="{r * 0.36:.1f}" fill="{ink}"/>'
            for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)
        )
        return petals + f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.25:.1f}" fill="{ink}"/>'
    if st.pip == "star":  # an eight-pointed star
        points = " ".join(
            f"{cx + rr * np.cos(a):.1f},{cy + rr * np.sin(a):.1f}"
            for k, a in enumerate(np.linspace(0, 2 * np.pi, 16, endpoint=False))
            for rr in ((r if k % 2 == 0 else r * 0.5),)
        )
        return f'<polygon points="{points}" fill="{ink}"/>'
    if st.pip == "square":  # a diamond in a square
        h = r * 0.85
        return (
            f'<rect x="{cx - h:.1f}" y="{cy - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" '
            f'fill="none" stroke="{ink}" stroke-width="{st.stroke:.1f}"/>'
            f'<polygon points="{cx:.1f},{cy - h * 0.7:.1f} {cx + h * 0.7:.1f},{cy:.1f} '
            f'{cx:.1f},{cy + h * 0.7:.1f} {cx - h * 0.7:.1f},{cy:.1f}" fill="{ink}"/>'
        )
    return (  # a target whose outer ring is dashed
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.9:.1f}" fill="none" stroke="{ink}" '
        f'stroke-width="{st.stroke * 1.2:.1f}" stroke-dasharray="{r * 0.35:.1f} '
        f'{r * 0.2:.1f}"/><circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.4:.1f}" fill="{ink}"/>'
    )


def _bamboo(st: UnfamiliarStyle, n: int, layout: dict[int, list[tuple[float, float, int]]]) -> str:
    if n == 1:  # a fan-tailed bird of circles, unlike the grammar's three designs
        a, b = st.inks[0], st.inks[1]
        tail = "".join(
            f'<ellipse cx="{36 + 16 * np.cos(t):.1f}" cy="{64 + 16 * np.sin(t):.1f}" rx="6" '
            f'ry="11" transform="rotate({np.rad2deg(t) + 90:.0f} {36 + 16 * np.cos(t):.1f} '
            f'{64 + 16 * np.sin(t):.1f})" fill="{b}"/>'
            for t in np.linspace(0.15 * np.pi, 0.85 * np.pi, 5)
        )
        return (
            tail + f'<circle cx="36" cy="50" r="13" fill="{a}"/>'
            f'<circle cx="36" cy="28" r="8" fill="{a}"/>'
            f'<circle cx="38" cy="26" r="2" fill="{st.body}"/>'
        )
    length = FACE_H * {2: 0.34, 3: 0.34, 4: 0.34, 5: 0.28}.get(n, 0.24)
    parts = []
    for i, (x, y, slant) in enumerate(layout[n]):
        ink = st.inks[1] if (n in (5, 7, 9) and i % 3 == 1) else st.inks[0]
        parts.append(_stick(st, x * FACE_W, y * FACE_H, length, slant, ink))
    return "".join(parts)


def _stick(st: UnfamiliarStyle, cx: float, cy: float, length: float, slant: int, ink: str) -> str:
    w = FACE_W * 0.1
    top = cy - length / 2
    if st.stick == "beads":  # a string of beads
        shape = "".join(
            f'<circle cx="{cx:.1f}" cy="{top + length * (k + 0.5) / 4:.1f}" '
            f'r="{length / 8.5:.1f}" fill="{ink}"/>'
            for k in range(4)
        )
    elif st.stick == "zigzag":
        ys = np.linspace(top, top + length, 6)
        pts = " ".join(f"{cx + (w / 2 if k % 2 else -w / 2):.1f},{y:.1f}" for k, y in enumerate(ys))
        shape = (
            f'<polyline points="{pts}" fill="none" stroke="{ink}" '
            f'stroke-width="{st.stroke * 1.4:.1f}" stroke-linejoin="round"/>'
        )
    elif st.stick == "leaf":  # pointed at both ends, a vein down the middle
        shape = (
            f'<path d="M{cx:.1f},{top:.1f} Q{cx + w:.1f},{cy:.1f} {cx:.1f},{top + length:.1f} '
            f'Q{cx - w:.1f},{cy:.1f} {cx:.1f},{top:.1f} Z" fill="{ink}"/>'
            f'<line x1="{cx:.1f}" y1="{top + 2:.1f}" x2="{cx:.1f}" y2="{top + length - 2:.1f}" '
            f'stroke="{st.body}" stroke-width="0.8"/>'
        )
    else:  # a bone: a thin shaft with wide knobs at the ends
        shape = (
            f'<rect x="{cx - w * 0.2:.1f}" y="{top:.1f}" width="{w * 0.4:.1f}" '
            f'height="{length:.1f}" fill="{ink}"/>'
            + "".join(
                f'<rect x="{cx - w * 0.6:.1f}" y="{ky - 1.6:.1f}" width="{w * 1.2:.1f}" '
                f'height="3.2" rx="1.2" fill="{ink}"/>'
                for ky in (top, top + length)
            )
        )
    return f'<g transform="rotate({slant} {cx:.1f} {cy:.1f})">{shape}</g>'


def _white_dragon(st: UnfamiliarStyle) -> str:
    ink = st.inks[2]
    if st.white_dragon == "dashed":
        return (
            f'<rect x="13" y="15" width="46" height="66" rx="5" fill="none" stroke="{ink}" '
            f'stroke-width="{st.stroke * 1.5:.1f}" stroke-dasharray="6 3"/>'
        )
    if st.white_dragon == "corners":  # an L at each corner, nothing between
        marks = []
        for x, y, dx, dy in ((12, 14, 1, 1), (60, 14, -1, 1), (12, 82, 1, -1), (60, 82, -1, -1)):
            marks.append(
                f'<polyline points="{x + 14 * dx},{y} {x},{y} {x},{y + 14 * dy}" fill="none" '
                f'stroke="{ink}" stroke-width="{st.stroke * 1.6:.1f}"/>'
            )
        return "".join(marks)
    return (  # a pale panel with a thin border
        f'<rect x="14" y="16" width="44" height="64" rx="3" fill="{ink}" fill-opacity="0.25" '
        f'stroke="{ink}" stroke-width="{st.stroke:.1f}"/>'
    )
