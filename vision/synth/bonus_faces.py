"""Bonus tiles drawn the many ways sets print them, for the bonus-tile reader (vision/bonus.py).

Every set prints on a flower or season tile what a person reads it by: its number, 1 to 4,
Arabic or Chinese, often small in a corner and often coloured, and its name, one character
(梅 蘭 菊 竹 for plum, orchid, chrysanthemum and bamboo; 春 夏 秋 冬 for the seasons), often
beside a picture of the plant or the season. This module draws those parts at random: the
name in one of the Chinese fonts the set-up installs (traditional or simplified), the number
in any corner or beside the name, a picture made of strokes and petals or none, in random
inks on a random body; on a fifth of them the name is in English instead (PLUM, ORC, SPRING),
as sets made for Western players print it, and some have a frame printed around. ``fonts``
chooses the fonts, so that a measure can hold some out.
Faces are ``FACE_W x FACE_H``, as the packaged sets' (vision/synth/artwork.py).
"""

from __future__ import annotations

import numpy as np

from vision.image import Image
from vision.synth.artwork import FACE_H, FACE_W, render_face_sheet

BONUS_KINDS = ("F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4")
# The name as traditional and as simplified sets print it.
NAMES = {
    "F1": "梅",
    "F2": "蘭",
    "F3": "菊",
    "F4": "竹",
    "S1": "春",
    "S2": "夏",
    "S3": "秋",
    "S4": "冬",
}
SIMPLIFIED = {"F2": "兰"}
# Sets made for Western players print the name in English, whole or cut short.
ENGLISH = {
    "F1": ("PLUM", "Plum"),
    "F2": ("ORCHID", "ORC", "Orchid"),
    "F3": ("MUM", "CHRYS", "Chrysanthemum", "Mum"),
    "F4": ("BAMBOO", "BAM", "Bamboo"),
    "S1": ("SPRING", "SPR", "Spring"),
    "S2": ("SUMMER", "SUM", "Summer"),
    "S3": ("AUTUMN", "AUT", "FALL", "Autumn"),
    "S4": ("WINTER", "WIN", "Winter"),
}
_ENGLISH_SHARE = 0.2
CHINESE_NUMBERS = "一二三四"

# The reader trains on these; the others (a rounded, two Ming and a Mincho design) are kept
# for measuring it on lettering it never saw.
TRAINING_FONTS = (
    "AR PL UKai CN",
    "AR PL UKai TW",
    "AR PL KaitiM Big5",
    "AR PL KaitiM GB",
    "AR PL SungtiL GB",
    "AR PL UMing CN",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK TC",
    "cwTeXKai",
    "cwTeXMing",
    "cwTeXHeiBold",
    "cwTeXFangSong",
    "IPAGothic",
)
HELD_OUT_FONTS = ("cwTeXYen", "HanaMinA", "AR PL Mingti2L Big5", "IPAMincho", "Noto Serif CJK TC")
_LATIN_FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono")

_INKS = ("#1b3fa0", "#1d7a2e", "#c0201a", "#111111", "#2a6f8f", "#0d5c3a", "#8a1010", "#6a2c8f")
_LIGHT_INKS = ("#d4a017", "#c9a227", "#e0a020", "#b8860b", "#d98c3a", "#6fae5f", "#5d9bd1")
_PETALS = ("#c0201a", "#d0508a", "#e0a020", "#1d7a2e", "#6a2c8f", "#2a6f8f", "#e07020")
_BODIES = ("#f4efe0", "#fbfbf6", "#efe6cc", "#e6efe4", "#e9eef5", "#f6ead8", "#f0f0e8")


def _text(x: float, y: float, size: float, text: str, font: str, fill: str, weight: str) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{font}" font-size="{size:.1f}" '
        f'font-weight="{weight}" fill="{fill}" text-anchor="middle" '
        f'dominant-baseline="central">{text}</text>'
    )


def _picture(rng: np.random.Generator, cx: float, cy: float, r: float) -> str:
    """Something of a plant or a season around (cx, cy): petals, leaves, a branch, a sun, a
    snowflake; what the packaged sets draw is far richer, and the reader must not rely on it."""
    ink = str(rng.choice(_PETALS))
    stroke = float(rng.uniform(1.0, 2.6))
    kind = int(rng.integers(5))
    parts = []
    if kind == 0:  # a flower
        petals = int(rng.integers(4, 8))
        for k in range(petals):
            a = 2 * np.pi * k / petals + rng.uniform(0, 0.5)
            parts.append(
                f'<circle cx="{cx + r * 0.6 * np.cos(a):.1f}" cy="{cy + r * 0.6 * np.sin(a):.1f}" '
                f'r="{r * 0.4:.1f}" fill="{ink}"/>'
            )
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.25:.1f}" fill="#e0c020"/>')
    elif kind == 1:  # leaves on a stem
        parts.append(
            f'<line x1="{cx:.1f}" y1="{cy + r:.1f}" x2="{cx + rng.uniform(-r, r) / 2:.1f}" '
            f'y2="{cy - r:.1f}" stroke="#1d7a2e" stroke-width="{stroke:.1f}"/>'
        )
        for k in range(int(rng.integers(2, 5))):
            a = float(rng.uniform(-60, 60))
            y = cy + r * (0.6 - 0.4 * k)
            parts.append(
                f'<ellipse cx="{cx:.1f}" cy="{y:.1f}" rx="{r * 0.5:.1f}" ry="{r * 0.18:.1f}" '
                f'fill="{ink}" transform="rotate({a:.0f} {cx:.1f} {y:.1f})"/>'
            )
    elif kind == 2:  # a branch
        x, y = cx - r, cy + r * 0.5
        for _ in range(int(rng.integers(3, 6))):
            nx, ny = x + rng.uniform(0.3, 0.7) * r, y - rng.uniform(0.1, 0.6) * r
            parts.append(
                f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{nx:.1f}" y2="{ny:.1f}" '
                f'stroke="#5a3a1a" stroke-width="{stroke:.1f}"/>'
                f'<circle cx="{nx:.1f}" cy="{ny:.1f}" r="{r * 0.15:.1f}" fill="{ink}"/>'
            )
            x, y = nx, ny
    elif kind == 3:  # a sun or a moon
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.6:.1f}" fill="none" '
            f'stroke="{ink}" stroke-width="{stroke:.1f}"/>'
        )
    else:  # a snowflake, or rays
        for k in range(int(rng.integers(3, 7))):
            a = np.pi * k / 3 + rng.uniform(0, 0.3)
            dx, dy = r * np.cos(a), r * np.sin(a)
            parts.append(
                f'<line x1="{cx - dx:.1f}" y1="{cy - dy:.1f}" x2="{cx + dx:.1f}" '
                f'y2="{cy + dy:.1f}" stroke="{ink}" stroke-width="{stroke:.1f}"/>'
            )
    return "".join(parts)


def _face_svg(rng: np.random.Generator, kind: str, fonts: tuple[str, ...]) -> str:
    """One bonus face: the name somewhere, the number somewhere, maybe a picture."""
    font = str(rng.choice(fonts))
    weight = "bold" if rng.random() < 0.3 else "normal"
    name = SIMPLIFIED.get(kind, NAMES[kind]) if rng.random() < 0.25 else NAMES[kind]
    number = int(kind[1])
    light = rng.random() < 0.2
    ink = str(rng.choice(_LIGHT_INKS if light else _INKS))
    body = f'<rect width="{FACE_W}" height="{FACE_H}" fill="{rng.choice(_BODIES)}"/>'
    layout = int(rng.integers(4))
    picture = rng.random() < 0.6 and layout != 3
    if layout == 0:  # the name large in the middle
        nx, ny, size = 36.0, 48.0, float(rng.uniform(40, 58))
    elif layout == 1:  # a picture above, the name below
        nx, ny, size = 36.0, float(rng.uniform(64, 74)), float(rng.uniform(24, 36))
    elif layout == 2:  # the name down one side, the picture beside it
        nx, ny, size = rng.choice([16.0, 56.0]), rng.uniform(30, 70), rng.uniform(20, 30)
    else:  # the name small in a corner, nothing else but the number
        nx, ny, size = rng.choice([16.0, 56.0]), rng.choice([16.0, 80.0]), rng.uniform(18, 26)
    nx, ny = nx + rng.uniform(-3, 3), ny + rng.uniform(-3, 3)
    if picture:
        px = 72 - nx if layout == 2 else 36 + rng.uniform(-6, 6)
        py = 30 if layout == 1 else 48 if layout == 2 else rng.choice([22.0, 74.0])
        body += _picture(rng, px, py, rng.uniform(9, 16))
    if rng.random() < _ENGLISH_SHARE:  # the English name along the bottom or the top
        word = str(rng.choice(ENGLISH[kind]))
        wy = float(rng.choice([84.0, 12.0]))
        wsize = min(16.0, 110.0 / len(word)) * float(rng.uniform(0.8, 1.1))
        wfont = str(rng.choice(_LATIN_FONTS))
        body += _text(36, wy, wsize, word, wfont, str(rng.choice(_INKS)), "bold")
    else:
        body += _text(nx, ny, size, name, font, ink, weight)
    if rng.random() < 0.15:  # a frame printed around the face
        inset = float(rng.uniform(3, 9))
        body += (
            f'<rect x="{inset:.1f}" y="{inset:.1f}" width="{FACE_W - 2 * inset:.1f}" '
            f'height="{FACE_H - 2 * inset:.1f}" fill="none" stroke="{rng.choice(_INKS)}" '
            f'stroke-width="{rng.uniform(1, 3):.1f}"/>'
        )
    if rng.random() < 0.9:  # a few sets print no number
        chinese = rng.random() < 0.4
        numeral = CHINESE_NUMBERS[number - 1] if chinese else str(number)
        num_font = font if chinese else str(rng.choice(_LATIN_FONTS))
        num_ink = str(rng.choice(_INKS))
        corners = [(9.0, 10.0), (63.0, 10.0), (9.0, 86.0), (63.0, 86.0)]
        cx, cy = corners[int(rng.integers(4))]
        if layout == 0 and rng.random() < 0.3:  # the number beside the name
            cx, cy = 36 + rng.choice([-26.0, 26.0]), 48 + rng.uniform(-20, 20)
        body += _text(cx, cy, rng.uniform(11, 18), numeral, num_font, num_ink, "bold")
    return body


def bonus_faces(
    seed: int, count: int, fonts: tuple[str, ...] = TRAINING_FONTS
) -> list[tuple[str, Image]]:
    """``count`` random bonus faces (kind, image), drawn in ``fonts``, in one rendering."""
    rng = np.random.default_rng(seed)
    kinds = [BONUS_KINDS[int(k)] for k in rng.integers(len(BONUS_KINDS), size=count)]
    cols = 16
    cells = [
        f'<g transform="translate({(i % cols) * FACE_W} {(i // cols) * FACE_H})">'
        f"{_face_svg(rng, kind, fonts)}</g>"
        for i, kind in enumerate(kinds)
    ]
    sheet = render_face_sheet(cells, cols)
    out = []
    for i, kind in enumerate(kinds):
        r, c = divmod(i, cols)
        face = sheet[r * FACE_H : (r + 1) * FACE_H, c * FACE_W : (c + 1) * FACE_W]
        out.append((kind, np.ascontiguousarray(face, np.uint8)))
    return out
