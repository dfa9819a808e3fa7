"""Procedural tile art: as many different-looking tile sets as training needs.

Only ten art sets come from packages, and a recogniser trained on ten styles learns those
styles. Commercial sets share a grammar, though: dots are ringed circles in fixed layouts,
bamboos are jointed sticks, characters are a numeral over 萬, winds and dragons are single
characters, bonus tiles are a flower or season name with its number and a picture, or the
name alone, large, in a light ink (gold on ivory). This module draws that
grammar with random fonts (the Chinese fonts the set-up installs), colours, stroke widths,
sizes, corner indices and body colours, one SVG sheet per set rendered by rsvg-convert.

``varied=True`` (training) widens every choice from a generator of the set's own, so the sets
drawn without it stay as they were: more fonts (the training-only ones as well), inks and body
colours of any hue, heavier and lighter strokes, more pip and bamboo shapes, printed frames,
corner indices in other places and scripts, and half the bonus tiles drawn by the bonus-face
grammar (vision/synth/bonus_faces.py). ``assorted=True`` (training too) draws the suits, and in
some sets the characters and honours, in a fourth grammar's designs (vision/synth/assorted.py);
``unfamiliar=True`` in designs no training grammar has, for measuring only.
"""

from __future__ import annotations

import numpy as np

from vision.image import Image
from vision.labels import BLANK, CHINESE_LABELS
from vision.synth.artwork import FACE_H, FACE_W, render_faces

# Chinese faces from the font packages the set-up installs (the `dev` script): brush (kai),
# Song/Ming, rounded, heavy and Japanese designs, so no one lettering style is learned.
FONTS = (
    "AR PL UKai CN",
    "AR PL UMing CN",
    "WenQuanYi Zen Hei",
    "AR PL UKai TW",
    "AR PL KaitiM Big5",
    "AR PL KaitiM GB",
    "AR PL Mingti2L Big5",
    "AR PL SungtiL GB",
    "Noto Sans CJK TC",
    "Noto Serif CJK TC",
    "cwTeXKai",
    "cwTeXMing",
    "cwTeXHeiBold",
    "cwTeXYen",
    "cwTeXFangSong",
    "HanaMinA",
    "IPAMincho",
    "IPAGothic",
)
NUMERALS = "一二三四五六七八九"
# Some sets print the formal numeral for five (伍) or simplified characters (万, 发, 东).
FORMAL_FIVE = "伍"
WIND_CHARS = {"EW": "東", "SW": "南", "WW": "西", "NW": "北"}
BONUS_CHARS = {
    "F1": "梅",
    "F2": "蘭",
    "F3": "菊",
    "F4": "竹",
    "S1": "春",
    "S2": "夏",
    "S3": "秋",
    "S4": "冬",
}

# Dot and stick positions on a unit face (x, y in 0..1), as printed on most sets.
_DOTS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.27), (0.5, 0.73)],
    3: [(0.25, 0.2), (0.5, 0.5), (0.75, 0.8)],
    4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
    5: [(0.26, 0.24), (0.74, 0.24), (0.5, 0.5), (0.26, 0.76), (0.74, 0.76)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    7: [(0.2, 0.14), (0.5, 0.24), (0.8, 0.34), (0.3, 0.6), (0.7, 0.6), (0.3, 0.84), (0.7, 0.84)],
    8: [
        (0.3, 0.14),
        (0.7, 0.14),
        (0.3, 0.38),
        (0.7, 0.38),
        (0.3, 0.62),
        (0.7, 0.62),
        (0.3, 0.86),
        (0.7, 0.86),
    ],
    9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.22, 0.5, 0.78)],
}
_STICKS: dict[int, list[tuple[float, float, int]]] = {  # x, y, slant in degrees
    2: [(0.5, 0.28, 0), (0.5, 0.72, 0)],
    3: [(0.5, 0.28, 0), (0.3, 0.72, 0), (0.7, 0.72, 0)],
    4: [(0.3, 0.28, 0), (0.7, 0.28, 0), (0.3, 0.72, 0), (0.7, 0.72, 0)],
    5: [(0.22, 0.28, 0), (0.78, 0.28, 0), (0.5, 0.5, 0), (0.22, 0.72, 0), (0.78, 0.72, 0)],
    6: [(x, y, 0) for y in (0.28, 0.72) for x in (0.2, 0.5, 0.8)],
    7: [(0.5, 0.17, 0)] + [(x, y, 0) for y in (0.5, 0.83) for x in (0.2, 0.5, 0.8)],
    8: [
        (0.2, 0.28, 20),
        (0.4, 0.28, -20),
        (0.6, 0.28, 20),
        (0.8, 0.28, -20),
        (0.2, 0.72, -20),
        (0.4, 0.72, 20),
        (0.6, 0.72, -20),
        (0.8, 0.72, 20),
    ],
    9: [(x, y, 0) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}

_INKS = ("#1b3fa0", "#1d7a2e", "#c0201a", "#111111", "#2a6f8f", "#0d5c3a", "#8a1010")
# Bonus tiles printed with the name alone, as some sets do, often in gold or a pale colour:
# the name's strokes are all that tell 梅 from 蘭 from 菊 (no number, no picture to go by).
_LIGHT_INKS = ("#d4a017", "#c9a227", "#e0a020", "#b8860b", "#d98c3a", "#6fae5f", "#5d9bd1")
_NAME_ALONE_SHARE = 0.35


def pick_one(rng: np.random.Generator, options: tuple[str, ...] | list[str]) -> str:
    """One of ``options``, drawn from ``rng`` (every grammar draws its choices this way)."""
    return options[int(rng.integers(len(options)))]


def _text(
    x: float, y: float, size: float, text: str, font: str, fill: str, weight: str = "normal"
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{font}" font-size="{size:.1f}" '
        f'font-weight="{weight}" fill="{fill}" text-anchor="middle" '
        f'dominant-baseline="central">{text}</text>'
    )


def any_hue(rng: np.random.Generator, sat: tuple[float, float], val: tuple[float, float]) -> str:
    """A random colour of any hue with saturation and value drawn from the given ranges."""
    h, s, v = rng.uniform(0, 6), rng.uniform(*sat), rng.uniform(*val)
    k = np.array([5.0, 3.0, 1.0])
    rgb = v - v * s * np.clip(np.minimum(np.mod(k + h, 6), 4 - np.mod(k + h, 6)), 0, 1)
    return "#" + "".join(f"{round(float(c) * 255):02x}" for c in rgb)


def _varied_fonts() -> tuple[str, ...]:
    from vision.synth.bonus_faces import TRAINING_FONTS  # it imports this module

    return FONTS + tuple(f for f in TRAINING_FONTS if f not in FONTS)


class _Style:
    def __init__(
        self,
        rng: np.random.Generator,
        seed: int,
        varied: bool = False,
        cornered: bool = False,
        corner_font: str = "",
    ) -> None:
        self.rng = rng
        self.font = pick_one(rng, FONTS)
        self.body = pick_one(
            rng, ["#f4efe0", "#fbfbf6", "#efe6cc", "#e6efe4", "#e9eef5", "#f6ead8"]
        )
        self.dot_inks = [pick_one(rng, _INKS) for _ in range(3)]
        self.stick_ink = pick_one(rng, ("#1d7a2e", "#1b3fa0", "#0d5c3a", "#111111", "#2a6f8f"))
        self.stick_ink2 = pick_one(rng, _INKS)
        self.numeral_ink = pick_one(rng, ("#111111", "#1b3fa0", "#0d5c3a"))
        self.wan_ink = pick_one(rng, ("#c0201a", "#8a1010", "#111111"))
        self.wind_ink = pick_one(rng, ("#111111", "#1b3fa0", "#0d5c3a"))
        self.stroke = float(rng.uniform(1.2, 3.2))
        self.scale = float(rng.uniform(0.8, 1.05))
        self.index = rng.random() < 0.4  # small rank/letter in the corner
        self.ring = int(rng.integers(0, 3))  # dot style: plain, ringed, ringed with centre
        self.weight = "bold" if rng.random() < 0.4 else "normal"
        self.wan = "万" if rng.random() < 0.2 else "萬"
        self.fa = "发" if rng.random() < 0.15 else "發"
        self.east = "东" if rng.random() < 0.15 else "東"
        self.five = FORMAL_FIVE if rng.random() < 0.25 else NUMERALS[4]
        # Where the printer put things: a per-set squeeze and shift of every layout.
        self.squeeze = (float(rng.uniform(0.85, 1.1)), float(rng.uniform(0.85, 1.08)))
        self.shift = (float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
        self.dot_size = float(rng.uniform(0.8, 1.15))
        self.stick_width = float(rng.uniform(0.8, 1.4))
        self.joints = int(rng.integers(1, 3))  # knots across each bamboo stick
        self.bird = int(rng.integers(3))  # one bamboo: a bird, one big stick, or a ringed stick
        self.numeral_y = float(rng.uniform(0, 4))
        # Drawn apart from the set's other choices, so every set drawn before this grammar
        # had it is drawn the same, bonus tiles with a number and picture included.
        own = np.random.default_rng([seed, 1])
        self.name_alone = bool(own.random() < _NAME_ALONE_SHARE)
        self.name_ink = pick_one(own, _LIGHT_INKS)
        self.name_size = float(own.uniform(44, 58))
        # What only varied sets change (the defaults draw every other set as before).
        self.frame = ""
        self.index_at = (9.0, 9.0)
        self.index_font = "DejaVu Sans"
        self.index_chinese = False
        self.stick_style = 0
        self.bonus_drawn = False
        self.dot_spokes = 0
        if varied:
            _vary(self, np.random.default_rng([seed, 2]))
        # Bonus tiles lettered in a corner (procedural_set's ``cornered``), drawn apart too.
        self.seed = seed
        self.cornered = cornered
        corner = np.random.default_rng([seed, 3])
        self.corner_left = bool(corner.random() < 0.5)
        self.corner_ink = pick_one(corner, ("#c0201a", "#111111", "#1b3fa0", "#0d5c3a"))
        self.corner_font = corner_font  # "": the corner's name in the set's own font


def _vary(st: _Style, rng: np.random.Generator) -> None:
    """Widen a set's choices: fonts, inks, bodies, strokes, shapes, frames and indices."""
    st.font = pick_one(rng, _varied_fonts())
    if rng.random() < 0.6:  # inks of any hue, dark enough to print
        st.dot_inks = [any_hue(rng, (0.4, 1.0), (0.25, 0.75)) for _ in range(3)]
        st.stick_ink, st.stick_ink2 = (any_hue(rng, (0.4, 1.0), (0.2, 0.7)) for _ in range(2))
        st.numeral_ink, st.wind_ink = (any_hue(rng, (0.0, 1.0), (0.05, 0.5)) for _ in range(2))
        st.wan_ink = any_hue(rng, (0.5, 1.0), (0.3, 0.8))
    if rng.random() < 0.2:  # tinted bodies: jade, cream, blue, pink, yellowed ivory
        st.body = any_hue(rng, (0.08, 0.28), (0.8, 1.0))
    else:
        st.body = any_hue(rng, (0.0, 0.12), (0.86, 1.0))
    st.stroke = float(rng.uniform(0.8, 4.5))
    st.weight = "bold" if rng.random() < 0.45 else "normal"
    st.scale = float(rng.uniform(0.72, 1.1))
    st.ring = int(rng.integers(0, 5))  # 3: a coin with a square hole, 4: a double ring
    st.dot_spokes = int(rng.choice([0, 0, 6, 8, 12]))  # petals around the dot
    st.dot_size = float(rng.uniform(0.7, 1.25))
    st.stick_width = float(rng.uniform(0.6, 1.7))
    st.stick_style = int(rng.integers(0, 4))  # filled, outlined, waisted, thin with knots
    st.joints = int(rng.integers(1, 4))
    st.squeeze = (float(rng.uniform(0.78, 1.12)), float(rng.uniform(0.78, 1.1)))
    st.shift = (float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5)))
    st.index = rng.random() < 0.5
    st.index_at = _pick_point(rng, [(9.0, 9.0), (63.0, 9.0), (9.0, 87.0), (63.0, 87.0)])
    st.index_font = pick_one(rng, ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Condensed", st.font))
    st.index_chinese = rng.random() < 0.3
    st.bonus_drawn = rng.random() < 0.5
    if rng.random() < 0.35:  # a frame printed around the face, once or twice
        ink = any_hue(rng, (0.3, 1.0), (0.2, 0.7))
        width = float(rng.uniform(0.8, 3.0))
        insets = [float(rng.uniform(2, 8))]
        if rng.random() < 0.4:
            insets.append(insets[0] + float(rng.uniform(2.5, 5)))
        st.frame = "".join(
            f'<rect x="{i:.1f}" y="{i:.1f}" width="{FACE_W - 2 * i:.1f}" '
            f'height="{FACE_H - 2 * i:.1f}" rx="{rng.uniform(0, 6):.1f}" fill="none" '
            f'stroke="{ink}" stroke-width="{width:.1f}"/>'
            for i in insets
        )


def _pick_point(
    rng: np.random.Generator, options: list[tuple[float, float]]
) -> tuple[float, float]:
    return options[int(rng.integers(len(options)))]


def _place(st: _Style, x: float, y: float) -> tuple[float, float]:
    """A layout point moved by the set's squeeze (about the face centre) and shift."""
    cx, cy = FACE_W / 2, FACE_H / 2
    return (
        cx + (x - cx) * st.squeeze[0] + st.shift[0],
        cy + (y - cy) * st.squeeze[1] + st.shift[1],
    )


def _dots(st: _Style, n: int) -> str:
    w, h = FACE_W * st.scale, FACE_H * st.scale
    ox, oy = (FACE_W - w) / 2, (FACE_H - h) / 2
    r = {1: 0.32, 2: 0.19, 3: 0.15, 4: 0.17, 5: 0.15}.get(n, 0.12) * w * st.dot_size
    parts = []
    for i, (x, y) in enumerate(_DOTS[n]):
        cx, cy = _place(st, ox + x * w, oy + y * h)
        ink = st.dot_inks[i % len(st.dot_inks)] if n > 1 else st.dot_inks[2]
        parts.append(_spokes(st, cx, cy, r, ink))
        if st.ring == 0:
            parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{ink}"/>')
        elif st.ring >= 3:
            parts.append(_coin(st, cx, cy, r, ink))
        else:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r - st.stroke / 2:.1f}" '
                f'fill="none" stroke="{ink}" stroke-width="{st.stroke:.1f}"/>'
            )
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.45:.1f}" fill="{ink}"/>'
                if st.ring == 2
                else f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.55:.1f}" fill="none" '
                f'stroke="{ink}" stroke-width="{st.stroke * 0.7:.1f}"/>'
            )
    return "".join(parts)


def _spokes(st: _Style, cx: float, cy: float, r: float, ink: str) -> str:
    """Short petals around a dot, as older sets print them."""
    out = []
    for k in range(st.dot_spokes):
        a = 2 * np.pi * k / st.dot_spokes
        x0, y0 = cx + r * 0.95 * np.cos(a), cy + r * 0.95 * np.sin(a)
        x1, y1 = cx + r * 1.25 * np.cos(a), cy + r * 1.25 * np.sin(a)
        out.append(
            f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{ink}" '
            f'stroke-width="{max(0.8, st.stroke * 0.6):.1f}"/>'
        )
    return "".join(out)


def _coin(st: _Style, cx: float, cy: float, r: float, ink: str) -> str:
    """A coin with a square hole (ring 3) or two rings round a dot (ring 4)."""
    ring = (
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r - st.stroke / 2:.1f}" fill="none" '
        f'stroke="{ink}" stroke-width="{st.stroke:.1f}"/>'
    )
    if st.ring == 3:
        h = r * 0.35
        return (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.8:.1f}" fill="{ink}"/>'
            f'<rect x="{cx - h:.1f}" y="{cy - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" '
            f'fill="{st.body}"/>' + ring
        )
    return (
        ring + f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.62:.1f}" fill="none" '
        f'stroke="{ink}" stroke-width="{st.stroke * 0.8:.1f}"/>'
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.25:.1f}" fill="{ink}"/>'
    )


def _stick(
    cx: float,
    cy: float,
    length: float,
    width: float,
    slant: float,
    ink: str,
    stroke: float,
    joints: int = 1,
    style: int = 0,
) -> str:
    if style == 3:  # a thin stick, the knots drawn across it
        width = max(2.0, width * 0.5)
    x, y = cx - width / 2, cy - length / 2
    knots = "".join(
        f'<line x1="{x:.1f}" y1="{ky:.1f}" x2="{x + width:.1f}" y2="{ky:.1f}" '
        f'stroke="white" stroke-width="{stroke * 0.6:.1f}"/>'
        for ky in (y + length * (k + 1) / (joints + 1) for k in range(joints))
    )
    if style == 1:  # outlined: the knots in ink
        shape = (
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{length:.1f}" '
            f'rx="{width / 2.5:.1f}" fill="none" stroke="{ink}" stroke-width="{stroke:.1f}"/>'
        )
        knots = knots.replace('stroke="white"', f'stroke="{ink}"')
    elif style == 2:  # waisted between the knots
        shape = (
            f'<ellipse cx="{cx:.1f}" cy="{y + length * 0.25:.1f}" rx="{width / 2:.1f}" '
            f'ry="{length * 0.27:.1f}" fill="{ink}"/><ellipse cx="{cx:.1f}" '
            f'cy="{y + length * 0.75:.1f}" rx="{width / 2:.1f}" ry="{length * 0.27:.1f}" '
            f'fill="{ink}"/>'
        )
    else:
        shape = (
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{length:.1f}" '
            f'rx="{width / 2.5:.1f}" fill="{ink}"/>'
        )
    return f'<g transform="rotate({slant:.0f} {cx:.1f} {cy:.1f})">{shape}{knots}</g>'


def _bamboo(st: _Style, n: int) -> str:
    if n == 1 and st.bird == 1:  # one big stick
        return _stick(36, 48, 70 * st.scale, 14, 0, st.stick_ink, st.stroke, 3)
    if n == 1 and st.bird == 2:  # a stick in a ring
        return (
            f'<circle cx="36" cy="48" r="{26 * st.scale:.1f}" fill="none" '
            f'stroke="{st.stick_ink2}" stroke-width="{st.stroke * 1.5:.1f}"/>'
        ) + _stick(36, 48, 40 * st.scale, 10, 0, st.stick_ink, st.stroke, 2)
    if n == 1:  # the bird
        ink, ink2 = st.stick_ink, st.stick_ink2
        return (
            f'<ellipse cx="36" cy="52" rx="{15 * st.scale:.1f}" ry="{22 * st.scale:.1f}" '
            f'fill="{ink}"/><circle cx="40" cy="{26 * st.scale + 4:.1f}" r="8" fill="{ink2}"/>'
            f'<polygon points="47,{26 * st.scale + 2:.1f} 58,{26 * st.scale + 6:.1f} '
            f'47,{26 * st.scale + 9:.1f}" fill="{ink2}"/>'
            f'<polygon points="36,68 18,92 54,92" fill="{ink2}"/>'
        )
    length = FACE_H * {2: 0.36, 3: 0.36, 4: 0.36, 5: 0.3}.get(n, 0.26) * st.scale
    width = FACE_W * 0.11 * st.stick_width
    parts = []
    for i, (x, y, slant) in enumerate(_STICKS[n]):
        ink = st.stick_ink2 if (n in (5, 7, 9) and i % 3 == 1) else st.stick_ink
        cx, cy = _place(st, x * FACE_W, y * FACE_H)
        parts.append(
            _stick(cx, cy, length, width, slant, ink, st.stroke, st.joints, st.stick_style)
        )
    return "".join(parts)


def _face_svg(st: _Style, label: str) -> str:
    f, rng = st.font, st.rng
    s = st.scale
    if label[1:] == "D" and label[0].isdigit():
        body = _dots(st, int(label[0]))
    elif label[1:] == "B" and label[0].isdigit():
        body = _bamboo(st, int(label[0]))
    elif label[1:] == "C" and label[0].isdigit():
        rank = int(label[0])
        numeral = st.five if rank == 5 else NUMERALS[rank - 1]
        body = _text(36, 26 + st.numeral_y, 34 * s, numeral, f, st.numeral_ink, st.weight) + _text(
            36, 66 + st.numeral_y / 2, 40 * s, st.wan, f, st.wan_ink, st.weight
        )
    elif label in WIND_CHARS:
        char = st.east if label == "EW" else WIND_CHARS[label]
        body = _text(36, 50, 52 * s, char, f, st.wind_ink, st.weight)
        if st.index:
            body += _text(10, 10, 12, label[0], "DejaVu Sans", st.wind_ink, "bold")
    elif label == "RD":
        body = _text(36, 50, 56 * s, "中", f, "#c0201a", st.weight)
    elif label == "GD":
        body = _text(36, 50, 52 * s, st.fa, f, pick_one(rng, ("#1d7a2e", "#0d5c3a")), st.weight)
    elif label == "WD":
        ink = pick_one(rng, ("#1b3fa0", "#111111", "#2a6f8f"))
        style = int(rng.integers(3))
        if style == 0:
            body = (
                f'<rect x="14" y="16" width="44" height="64" fill="none" stroke="{ink}" '
                f'stroke-width="{st.stroke * 1.8:.1f}"/>'
            )
        elif style == 1:
            body = _text(36, 50, 50 * s, "白", f, ink, st.weight)
        else:
            body = (
                f'<rect x="12" y="14" width="48" height="68" fill="none" stroke="{ink}" '
                f'stroke-width="{st.stroke:.1f}"/><rect x="18" y="20" width="36" '
                f'height="56" fill="none" stroke="{ink}" stroke-width="{st.stroke:.1f}"/>'
            )
    elif label in BONUS_CHARS and st.cornered:
        body = _cornered_bonus(st, label)
    elif label in BONUS_CHARS and st.bonus_drawn:
        body = _drawn_bonus(st, label)
    elif label in BONUS_CHARS:
        ink = pick_one(rng, _INKS)
        number = label[1]
        petal = pick_one(rng, ("#c0201a", "#d0508a", "#e0a020", "#1d7a2e"))
        body = _text(36, 68, 34 * s, BONUS_CHARS[label], f, ink, st.weight) + _text(
            60, 12, 14, number, "DejaVu Sans", pick_one(rng, _INKS), "bold"
        )
        cx, cy = 30 + float(rng.uniform(-4, 4)), 30
        if label[0] == "F":  # a flower drawn above the name
            for k in range(5):
                a = 2 * np.pi * k / 5
                body += (
                    f'<circle cx="{cx + 8 * np.cos(a):.1f}" cy="{cy + 8 * np.sin(a):.1f}" '
                    f'r="5" fill="{petal}"/>'
                )
            body += f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="#e0c020"/>'
        else:  # a season: a sun, a branch, a leaf or a snowflake, abstracted
            body += (
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="10" fill="none" stroke="{petal}" '
                f'stroke-width="{st.stroke:.1f}"/>'
            )
        if st.name_alone:  # the same draws made, then the name alone drawn instead
            body = _text(36, 48, st.name_size * s, BONUS_CHARS[label], f, st.name_ink, st.weight)
    else:
        raise KeyError(label)
    index = ""
    if st.index and label[0].isdigit():
        mark = NUMERALS[int(label[0]) - 1] if st.index_chinese else label[0]
        x, y = st.index_at
        index = _text(x, y, 12, mark, st.index_font, st.numeral_ink, "bold")
    return body + st.frame + index


def _cornered_bonus(st: _Style, label: str) -> str:
    """A bonus face as many commercial sets print it: a large picture filling the face, the
    name and its number small in a top corner (a quarter of the face or less)."""
    own = np.random.default_rng([st.seed, 3, list(BONUS_CHARS).index(label)])
    petal = pick_one(own, ("#c0201a", "#d0508a", "#e0a020", "#1d7a2e", "#1b3fa0"))
    cx, cy = 36 + float(own.uniform(-4, 4)), 58 + float(own.uniform(-4, 4))
    if label[0] == "F":  # a flower: six petals on a stem
        picture = "".join(
            f'<ellipse cx="{cx + 14 * np.cos(a):.1f}" cy="{cy + 18 * np.sin(a):.1f}" rx="9" '
            f'ry="12" fill="{petal}" opacity="0.85"/>'
            for a in np.linspace(0, 2 * np.pi, 6, endpoint=False)
        )
        picture += (
            f'<path d="M{cx:.1f},{cy:.1f} L{cx + float(own.uniform(-20, 20)):.1f},92" '
            f'stroke="#2d6b2d" stroke-width="{st.stroke * 1.5:.1f}" fill="none"/>'
        )
    else:  # a season: a landscape, hills under a sun
        picture = (
            f'<circle cx="{cx + 12:.1f}" cy="{cy - 16:.1f}" r="9" fill="{petal}"/>'
            f'<path d="M4,92 L4,80 L22,{cy:.1f} L38,78 L54,{cy + 6:.1f} L68,76 L68,92 Z" '
            f'fill="#2d6b2d" opacity="0.8"/>'
        )
    x = 13 if st.corner_left else 59
    size = float(own.uniform(11, 15))
    font = st.corner_font or st.font
    name = _text(x, 14, size, BONUS_CHARS[label], font, st.corner_ink, st.weight)
    number = _text(72 - x, 14, size * 0.9, label[1], "DejaVu Sans", st.corner_ink, "bold")
    return picture + name + number


def _drawn_bonus(st: _Style, label: str) -> str:
    """A bonus face by the bonus-face grammar (names, numbers and pictures in many layouts)
    on the set's own body colour."""
    from vision.synth.bonus_faces import TRAINING_FONTS, TRAINING_LATIN, bonus_face_svg

    return bonus_face_svg(st.rng, label, TRAINING_FONTS, TRAINING_LATIN, st.body)


def procedural_set(
    seed: int,
    varied: bool = False,
    cornered: bool = False,
    corner_font: str = "",
    unfamiliar: bool = False,
    assorted: bool = False,
) -> dict[str, Image]:
    """One random tile set: every face of ``CHINESE_LABELS`` plus a blank; ``varied``: drawn
    from the wider choices training uses (the module's docstring); ``cornered``: its bonus
    tiles a large picture with the name and number small in a corner (the other faces as
    drawn without it), the name in ``corner_font`` where given (held-out fonts and hands);
    ``unfamiliar``: its suits and honours in art training never draws, on a body of its own
    (vision/synth/unfamiliar.py; for measuring only); ``assorted``: its suits (and in some
    sets its characters and honours) in a fourth grammar's designs, on a body of its own
    (vision/synth/assorted.py; for training)."""
    labels = list(CHINESE_LABELS)
    svgs = face_svgs(seed, varied, cornered, corner_font, unfamiliar, assorted)
    drawn = render_faces(svgs, cols=7, timeout=60)
    faces: dict[str, Image] = dict(zip(labels, drawn, strict=True))
    body_bgr = drawn[0][2, 2].copy()  # a corner of the first face: the body alone
    faces[BLANK] = np.full((FACE_H, FACE_W, 3), body_bgr, np.uint8)
    return faces


def face_svgs(
    seed: int,
    varied: bool = False,
    cornered: bool = False,
    corner_font: str = "",
    unfamiliar: bool = False,
    assorted: bool = False,
) -> list[str]:
    """The SVG of each face of ``CHINESE_LABELS`` in the set :func:`procedural_set` draws
    (its arguments), each on the set's body."""
    if unfamiliar and assorted:
        raise ValueError("a set is drawn unfamiliar (to measure) or assorted (to train), not both")
    rng = np.random.default_rng(seed)
    st = _Style(rng, seed, varied, cornered, corner_font)
    labels = list(CHINESE_LABELS)
    if assorted:
        # Imported here: it takes this module's numerals and wind characters.
        from vision.synth.assorted import AssortedStyle
        from vision.synth.assorted import face_body as assorted_body

        mine = AssortedStyle.draw(seed)
        st.body = mine.body  # before drawing: a coin's hole and a drawn bonus face take it
    svgs = [_face_svg(st, label) for label in labels]
    if assorted:
        for n, label in enumerate(labels):
            svgs[n] = assorted_body(mine, label, _DOTS, _STICKS) or svgs[n]
    if unfamiliar:
        from vision.synth.unfamiliar import UnfamiliarStyle, face_body

        own = UnfamiliarStyle.draw(seed)
        st.body = own.body
        for n, label in enumerate(labels):
            svgs[n] = face_body(own, label, _DOTS, _STICKS) or svgs[n]
    return [f'<rect width="{FACE_W}" height="{FACE_H}" fill="{st.body}"/>{svg}' for svg in svgs]
