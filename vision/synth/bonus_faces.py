"""Bonus tiles drawn the many ways sets print them, for the bonus-tile reader (vision/bonus.py).

Every set prints on a flower or season tile what a person reads it by: its number, 1 to 4,
Arabic or Chinese, often small in a corner and often coloured, and its name, one character
(梅 蘭 菊 竹 for plum, orchid, chrysanthemum and bamboo; 春 夏 秋 冬 for the seasons), often
beside a picture of the plant or the season. This module draws those parts at random: the
name in one of the Chinese fonts the set-up installs (traditional or simplified), the number
in any corner or beside the name, a picture made of strokes and petals or none, in random
inks on a random body; on a third of them the name is in English instead (PLUM, ORC, SPRING),
as sets made for Western players print it, and some have a frame printed around. Half the
pictures are of the tile's own plant or season (plum blossom, orchid, chrysanthemum, bamboo,
a budding branch, a sun, a maple leaf, a snowflake), drawn loosely: sets draw them their own
way, and a reader must lean on them only as a person does. Names are sometimes tiny (9-16 px
on a 72 px face: a few pixels in the camera), numbers in any ink. ``fonts``
chooses the fonts, so that a measure can hold some out. Training also asks for a share of
sparse faces: the plant or season filling the face and the name small at an edge, often pale,
in Chinese or in English in any case, mostly with no number (as old sets and sets made for
Western players print them).
Faces are ``FACE_W x FACE_H``, as the packaged sets' (vision/synth/artwork.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vision.image import Image
from vision.synth.artwork import FACE_H, FACE_W, render_faces
from vision.synth.procedural import BONUS_CHARS

BONUS_KINDS = ("F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4")
# The name as traditional sets print it is the drawn sets' own (BONUS_CHARS); where simplified
# sets differ:
SIMPLIFIED = {"F2": "兰"}
# Sets made for Western players print the name in English, whole or cut short, often under a
# picture that fills most of the face and with no number.
ENGLISH = {
    "F1": ("PLUM", "Plum", "PLUM BLOSSOM"),
    "F2": ("ORCHID", "ORC", "Orchid"),
    "F3": ("MUM", "CHRYS", "Chrysanthemum", "CHRYSANTHEMUM", "Mum"),
    "F4": ("BAMBOO", "BAM", "Bamboo"),
    "S1": ("SPRING", "SPR", "Spring"),
    "S2": ("SUMMER", "SUM", "Summer"),
    "S3": ("AUTUMN", "AUT", "FALL", "Autumn"),
    "S4": ("WINTER", "WIN", "Winter"),
}
_ENGLISH_SHARE = 0.35
CHINESE_NUMBERS = "一二三四"

# The reader trains on these; the others (a rounded, two Ming and a Mincho design) are kept
# for measuring it on lettering it never saw. The first thirteen come with the project's
# Debian set-up; the rest (Kai, Song and Gothic designs, brush and handwritten hands) are
# installed for training only (bench/vision/README.md, "training fonts"), and training stops
# if one is missing rather than letter faces in a fallback font.
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
    *(
        "TW-Kai",  # fonts-cns11643-kai
        "TW-Sung",  # fonts-cns11643-sung
        "BabelStone Han",  # fonts-babelstone-han
        "LXGW WenKai",  # fonts-lxgw-wenkai: a handwritten Kai
        "WenQuanYi Micro Hei",  # fonts-wqy-microhei
        "VL Gothic",  # fonts-vlgothic
        "IPAexGothic",  # fonts-ipaexfont-gothic
        "Ume Gothic",  # fonts-horai-umefont
        "Ume Mincho",
        "Sawarabi Gothic",  # fonts-sawarabi-gothic
        "Sawarabi Mincho",  # fonts-sawarabi-mincho
        "MotoyaLCedar",  # fonts-motoya-l-cedar
        "MotoyaLMaru",  # fonts-motoya-l-maruberi: rounded
        "M PLUS 1",  # fonts-mplus
        "MisakiGothic",  # fonts-misaki: drawn on an 8-pixel grid
        "Klee One",  # fonts-klee: a pen hand
        "KouzanBrushFont",  # fonts-kouzan-mouhitsu: brush, regular, running and grass hands
        "KouzanBrushFontGyousyo",
        "KouzanBrushFontSousyo",
        "AoyagiKouzanFontT",  # fonts-aoyagi-kouzan-t: brush
    ),
)
HELD_OUT_FONTS = ("cwTeXYen", "HanaMinA", "AR PL Mingti2L Big5", "IPAMincho", "Noto Serif CJK TC")
# Two hands of the training-only fonts, held out as well: a brush (fonts-aoyagi-soseki) and a
# handwritten one (fonts-seto), to measure the reader on hands it never saw.
HELD_OUT_HANDS = ("AoyagiSosekiFont2", "SetoFont")
# English names and Arabic numbers: these for training; "DejaVu Serif" (and the held-out
# fonts' own Latin letters) for measuring.
TRAINING_LATIN = (
    "DejaVu Sans",
    "DejaVu Sans Mono",
    "DejaVu Sans Condensed",
    "Noto Sans CJK TC",
    "WenQuanYi Zen Hei",
    "IPAGothic",
)
# More Latin faces for training only (bench/vision/training_fonts.sh: sans, serif, geometric,
# rounded, pen and brush designs), besides the training CJK fonts' own Latin letters; training
# draws English names from all of them, and stops if one is missing.
TRAINING_LATIN_EXTRA = (
    "Liberation Sans",  # fonts-liberation
    "Liberation Serif",
    "Liberation Sans Narrow",
    "Nimbus Sans",  # fonts-urw-base35
    "Nimbus Roman",
    "URW Gothic",
    "URW Bookman",
    "C059",
    "P052",
    "FreeSans",  # fonts-freefont-ttf
    "FreeSerif",
    "Cantarell",  # fonts-cantarell
    "Open Sans",  # fonts-open-sans
    "Lato",  # fonts-lato
    "Roboto",  # fonts-roboto-unhinted
    "Roboto Condensed",
    "Nimbus Sans Narrow",
    "FreeMono",
    "M PLUS 1",
    "VL Gothic",
    "Klee One",
    "LXGW WenKai",
    "MotoyaLMaru",
)
HELD_OUT_LATIN = ("DejaVu Serif", "Noto Serif CJK TC", "IPAMincho")

_INKS = ("#1b3fa0", "#1d7a2e", "#c0201a", "#111111", "#2a6f8f", "#0d5c3a", "#8a1010", "#6a2c8f")
_LIGHT_INKS = ("#d4a017", "#c9a227", "#e0a020", "#b8860b", "#d98c3a", "#6fae5f", "#5d9bd1")
_PETALS = ("#c0201a", "#d0508a", "#e0a020", "#1d7a2e", "#6a2c8f", "#2a6f8f", "#e07020")
_BODIES = ("#f4efe0", "#fbfbf6", "#efe6cc", "#e6efe4", "#e9eef5", "#f6ead8", "#f0f0e8")


def _text(
    x: float,
    y: float,
    size: float,
    text: str,
    font: str,
    fill: str,
    weight: str,
    stroke: float = 0.0,
    turn: float = 0.0,
) -> str:
    """``stroke``: an outline in the same ink, as a heavier brush or ink spread prints it;
    ``turn``: degrees, as a hand writes it askew."""
    outline = f'stroke="{fill}" stroke-width="{stroke:.1f}" ' if stroke > 0 else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{font}" font-size="{size:.1f}" '
        f'font-weight="{weight}" fill="{fill}" {outline}text-anchor="middle" '
        f'dominant-baseline="central" transform="rotate({turn:.0f} {x:.1f} {y:.1f})">'
        f"{text}</text>"
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


def _picture_of(rng: np.random.Generator, kind: str, cx: float, cy: float, r: float) -> str:
    """Something of a plant or a season, not the tile's own (``kind`` unused)."""
    return _picture(rng, cx, cy, r)


def _plant(rng: np.random.Generator, kind: str, cx: float, cy: float, r: float) -> str:
    """A picture of what the tile is named after, as sets draw it: plum blossom (five round
    petals), orchid (long petals and leaves), chrysanthemum (many thin petals), bamboo
    (jointed stalks), and for the seasons a budding branch, a sun, a maple leaf, a snowflake.
    Drawn loosely and in varied inks: sets draw these their own way."""
    ink = str(rng.choice(_PETALS))
    stroke = float(rng.uniform(1.0, 2.4))
    parts: list[str] = []

    def petals(count: int, length: float, width: float, centre: str) -> None:
        turn = float(rng.uniform(0, 360))
        for k in range(count):
            a = turn + 360 * k / count
            parts.append(
                f'<ellipse cx="{cx:.1f}" cy="{cy - length / 2:.1f}" rx="{width:.1f}" '
                f'ry="{length / 2:.1f}" fill="{ink}" '
                f'transform="rotate({a:.0f} {cx:.1f} {cy:.1f})"/>'
            )
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.18:.1f}" fill="{centre}"/>')

    if kind == "F1":
        petals(5, r * 0.9, r * 0.38, "#5a1a1a")
    elif kind == "F2":
        for a in (-35.0, 0.0, 35.0):  # leaves
            parts.append(
                f'<path d="M{cx:.1f},{cy + r:.1f} Q{cx + r * np.sin(np.radians(a)) * 2:.1f},'
                f'{cy:.1f} {cx + r * np.sin(np.radians(a)) * 1.6:.1f},{cy - r:.1f}" '
                f'fill="none" stroke="#1d7a2e" stroke-width="{stroke:.1f}"/>'
            )
        petals(int(rng.integers(3, 6)), r * 0.8, r * 0.16, "#e0c020")
    elif kind == "F3":
        petals(int(rng.integers(14, 26)), r * 1.0, r * 0.08, "#c08020")
    elif kind == "F4":
        for dx in rng.uniform(-r * 0.7, r * 0.7, size=int(rng.integers(1, 4))):
            x = cx + float(dx)
            parts.append(
                f'<line x1="{x:.1f}" y1="{cy + r:.1f}" x2="{x:.1f}" y2="{cy - r:.1f}" '
                f'stroke="#2f8a2e" stroke-width="{stroke * 1.8:.1f}"/>'
            )
            for y in np.arange(cy - r + r * 0.5, cy + r, r * 0.5):
                parts.append(
                    f'<line x1="{x - stroke:.1f}" y1="{y:.1f}" x2="{x + stroke:.1f}" '
                    f'y2="{y:.1f}" stroke="#0d4c1a" stroke-width="1"/>'
                    f'<ellipse cx="{x + r * 0.35:.1f}" cy="{y - 2:.1f}" rx="{r * 0.35:.1f}" '
                    f'ry="{r * 0.08:.1f}" fill="#2f8a2e" transform="rotate(-30 {x:.1f} {y:.1f})"/>'
                )
    elif kind == "S1":
        parts.append(_picture(rng, cx, cy, r))  # a budding branch
        petals(5, r * 0.5, r * 0.2, "#e0c020")
    elif kind == "S2":
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.45:.1f}" fill="#f0c020"/>')
        for k in range(12):
            a = np.pi * k / 6
            parts.append(
                f'<line x1="{cx + r * 0.6 * np.cos(a):.1f}" y1="{cy + r * 0.6 * np.sin(a):.1f}" '
                f'x2="{cx + r * np.cos(a):.1f}" y2="{cy + r * np.sin(a):.1f}" stroke="#e07020" '
                f'stroke-width="{stroke:.1f}"/>'
            )
    elif kind == "S3":
        points = []
        for k in range(10):  # a maple leaf: a star of five lobes
            a = np.pi * k / 5 - np.pi / 2
            rr = r if k % 2 == 0 else r * 0.45
            points.append(f"{cx + rr * np.cos(a):.1f},{cy + rr * np.sin(a):.1f}")
        leaf = str(rng.choice(("#c0201a", "#e07020", "#b8860b", "#8a1010")))
        parts.append(f'<polygon points="{" ".join(points)}" fill="{leaf}"/>')
    else:
        snow = str(rng.choice(("#5d9bd1", "#2a6f8f", "#8fb8e0", "#1b3fa0")))
        for k in range(3):
            a = np.pi * k / 3
            dx, dy = r * np.cos(a), r * np.sin(a)
            parts.append(
                f'<line x1="{cx - dx:.1f}" y1="{cy - dy:.1f}" x2="{cx + dx:.1f}" '
                f'y2="{cy + dy:.1f}" stroke="{snow}" stroke-width="{stroke:.1f}"/>'
            )
    return "".join(parts)


def _name_place(rng: np.random.Generator, layout: int) -> tuple[float, float, float]:
    """Where the name goes and how large, by layout."""
    if layout == 0:  # the name large in the middle
        nx, ny, size = 36.0, 48.0, float(rng.uniform(40, 58))
    elif layout == 1:  # a picture above, the name below
        nx, ny, size = 36.0, float(rng.uniform(64, 74)), float(rng.uniform(24, 36))
    elif layout == 2:  # the name down one side, the picture beside it
        nx, ny, size = rng.choice([16.0, 56.0]), rng.uniform(30, 70), rng.uniform(20, 30)
    elif layout == 3:  # the name small in a corner, nothing else but the number
        nx, ny, size = rng.choice([16.0, 56.0]), rng.choice([16.0, 80.0]), rng.uniform(18, 26)
    elif layout == 4:  # a large picture, the name tiny in a corner (a few pixels in the camera)
        nx, ny, size = rng.choice([10.0, 62.0]), rng.choice([12.0, 84.0]), rng.uniform(9, 16)
    else:  # the plant or season filling the face, the name small at the top, as old sets print
        nx, ny, size = rng.choice([14.0, 36.0, 58.0]), rng.uniform(10, 18), rng.uniform(11, 20)
    return nx + rng.uniform(-3, 3), ny + rng.uniform(-3, 3), size


def _english(rng: np.random.Generator, kind: str, latin: tuple[str, ...]) -> tuple[str, float]:
    """The English name along the bottom or the top, in varied faces, weights and sizes; and
    its size."""
    word = str(rng.choice(ENGLISH[kind]))
    wy = float(rng.choice([84.0, 12.0, 84.0]))
    wsize = min(20.0, 100.0 / len(word)) * float(rng.uniform(0.7, 1.05))
    weight = "bold" if rng.random() < 0.4 else "normal"
    font, ink = str(rng.choice(latin)), str(rng.choice(_INKS))  # drawn in this order
    return _text(36, wy, wsize, word, font, ink, weight), wsize


def _number(
    rng: np.random.Generator, number: int, font: str, latin: tuple[str, ...], beside: bool
) -> str:
    """The number in a corner (or beside the name), Arabic or Chinese, in any ink."""
    chinese = rng.random() < 0.4
    numeral = CHINESE_NUMBERS[number - 1] if chinese else str(number)
    num_font = font if chinese else str(rng.choice(latin))
    num_ink = str(rng.choice(_INKS + _LIGHT_INKS + _PETALS))
    corners = [(9.0, 10.0), (63.0, 10.0), (9.0, 86.0), (63.0, 86.0)]
    cx, cy = corners[int(rng.integers(4))]
    if beside:
        cx, cy = 36 + rng.choice([-26.0, 26.0]), 48 + rng.uniform(-20, 20)
    size = float(rng.uniform(9, 22))
    ring = ""
    if rng.random() < 0.15:  # some sets print the number in a ring or a seal
        ring = (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{size * 0.7:.1f}" fill="none" '
            f'stroke="{num_ink}" stroke-width="1.2"/>'
        )
    return ring + _text(cx, cy, size, numeral, num_font, num_ink, "bold")


def _face_svg(
    rng: np.random.Generator, kind: str, fonts: tuple[str, ...], latin: tuple[str, ...]
) -> tuple[str, float]:
    """One bonus face: the name somewhere, the number somewhere, maybe a picture; and the
    name's size."""
    font = str(rng.choice(fonts))
    weight = "bold" if rng.random() < 0.3 else "normal"
    name = SIMPLIFIED.get(kind, BONUS_CHARS[kind]) if rng.random() < 0.25 else BONUS_CHARS[kind]
    light = rng.random() < 0.2
    ink = str(rng.choice(_LIGHT_INKS if light else _INKS))
    body = f'<rect width="{FACE_W}" height="{FACE_H}" fill="{rng.choice(_BODIES)}"/>'
    english = rng.random() < _ENGLISH_SHARE
    layout = 1 if english and rng.random() < 0.5 else int(rng.integers(6))
    nx, ny, size = _name_place(rng, layout)
    if layout == 5:
        own = rng.random() < 0.8
        draw = _plant if own else _picture_of
        body += draw(
            rng, kind, 36 + rng.uniform(-4, 4), 58 + rng.uniform(-4, 4), rng.uniform(24, 32)
        )
    elif layout == 4 or (rng.random() < 0.6 and layout != 3):
        px = 72 - nx if layout == 2 else 36 + rng.uniform(-6, 6)
        py = 30 if layout == 1 else 48 if layout in (2, 4) else rng.choice([22.0, 74.0])
        scale = rng.uniform(16, 24) if layout in (1, 4) else rng.uniform(9, 16)
        if rng.random() < 0.5:  # the plant or the season's own picture
            body += _plant(rng, kind, px, py, scale)
        else:
            body += _picture(rng, px, py, scale)
    if english:
        word, size = _english(rng, kind, latin)
        body += word
    else:
        stroke = float(rng.uniform(0.4, 2.0)) if rng.random() < 0.3 else 0.0
        turn = float(rng.uniform(-8, 8))
        body += _text(nx, ny, size, name, font, ink, weight, stroke, turn)
    if rng.random() < 0.15:  # a frame printed around the face
        inset = float(rng.uniform(3, 9))
        body += (
            f'<rect x="{inset:.1f}" y="{inset:.1f}" width="{FACE_W - 2 * inset:.1f}" '
            f'height="{FACE_H - 2 * inset:.1f}" fill="none" stroke="{rng.choice(_INKS)}" '
            f'stroke-width="{rng.uniform(1, 3):.1f}"/>'
        )
    no_number = 0.5 if english or layout == 5 else 0.15
    if rng.random() >= no_number:  # many sets print no number
        beside = layout == 0 and rng.random() < 0.3
        body += _number(rng, int(kind[1]), font, latin, beside)
    return body, float(size)


def pale_ink(ink: str, body: str, share: float) -> str:
    """``ink`` blended ``share`` of the way to ``body``: a worn or pale print, low in contrast."""
    a, b = (np.array([int(c[i : i + 2], 16) for i in (1, 3, 5)], float) for c in (ink, body))
    mixed = np.round(a + (b - a) * share).astype(int)
    return "#" + "".join(f"{int(v):02x}" for v in mixed)


def _cased(rng: np.random.Generator, word: str) -> str:
    """The word in capitals, in small letters or capitalised, as sets print it."""
    pick = rng.random()
    return word.lower() if pick < 0.2 else word.title() if pick < 0.45 else word.upper()


def _edge_row(rng: np.random.Generator, top: bool, size: float) -> float:
    """The name's middle, near the top or the bottom edge and within the face."""
    inset = size * 0.6 + float(rng.uniform(1, 6))
    return inset if top else FACE_H - inset


def _sparse_face_svg(
    rng: np.random.Generator, kind: str, fonts: tuple[str, ...], latin: tuple[str, ...]
) -> tuple[str, float]:
    """A face as the sets the reader reads worst print it: the plant or season filling most of
    the face, and the name small (a few pixels in the camera), often pale, often in English in
    any Latin face and case, mostly with no number (``xmj-real``'s and ``kde-traditional``'s
    kind of face); and the name's size."""
    body_ink = str(rng.choice(_BODIES))
    body = f'<rect width="{FACE_W}" height="{FACE_H}" fill="{body_ink}"/>'
    english = rng.random() < 0.45
    top = rng.random() < (0.25 if english else 0.7)  # the name above the picture, or below
    cy = 60.0 if top else 38.0
    if rng.random() < 0.9:
        draw = _plant if rng.random() < 0.75 else _picture_of
        body += draw(
            rng, kind, 36 + rng.uniform(-5, 5), cy + rng.uniform(-4, 4), rng.uniform(22, 32)
        )
    ink = str(rng.choice(_INKS + _PETALS if not english else _INKS))
    if rng.random() < 0.35:
        ink = pale_ink(ink, body_ink, float(rng.uniform(0.3, 0.65)))
    if english:
        word = _cased(rng, str(rng.choice(ENGLISH[kind])))
        size = min(22.0, 95.0 / len(word)) * float(rng.uniform(0.45, 1.05))
        nx = 36.0 if rng.random() < 0.7 else float(rng.choice([22.0, 50.0]))
        font, ny = str(rng.choice(latin)), _edge_row(rng, top, size)
        weight = "bold" if rng.random() < 0.35 else "normal"
        body += _text(nx, ny, size, word, font, ink, weight)
    else:
        name = SIMPLIFIED.get(kind, BONUS_CHARS[kind]) if rng.random() < 0.2 else BONUS_CHARS[kind]
        nx = float(rng.choice([12.0, 36.0, 60.0])) + float(rng.uniform(-3, 3))
        size, font = float(rng.uniform(8, 18)), str(rng.choice(fonts))
        ny = _edge_row(rng, top, size)
        stroke = float(rng.uniform(0.3, 1.2)) if rng.random() < 0.3 else 0.0
        body += _text(nx, ny, size, name, font, ink, "normal", stroke, float(rng.uniform(-6, 6)))
    if rng.random() < 0.25:  # a number after all, small, in a corner
        body += _number(rng, int(kind[1]), str(rng.choice(fonts)), latin, False)
    return body, size


def bonus_face_svg(
    rng: np.random.Generator,
    kind: str,
    fonts: tuple[str, ...] = TRAINING_FONTS,
    latin: tuple[str, ...] = TRAINING_LATIN,
    body: str | None = None,
) -> str:
    """One random face of ``kind`` as SVG on a face-sized cell; ``body``: the tile's colour in
    place of a random one (a drawn tile set's bonus tiles on its own body)."""
    svg, _ = _face_svg(rng, kind, fonts, latin)
    if body is None:
        return svg
    first = svg.index("/>") + 2  # the body rectangle is drawn first
    return f'<rect width="{FACE_W}" height="{FACE_H}" fill="{body}"/>' + svg[first:]


def _one_face(
    rng: np.random.Generator,
    kind: str,
    fonts: tuple[str, ...],
    latin: tuple[str, ...],
    sparse: float,
) -> tuple[str, float]:
    if sparse > 0 and rng.random() < sparse:  # no draw at 0: the faces stay seed for seed
        return _sparse_face_svg(rng, kind, fonts, latin)
    return _face_svg(rng, kind, fonts, latin)


class DrawnFace(NamedTuple):
    """A drawn bonus face, and the size its name was lettered at (px on the 72 px face)."""

    kind: str
    image: Image
    name_px: float


def bonus_faces(
    seed: int,
    count: int,
    fonts: tuple[str, ...] = TRAINING_FONTS,
    latin: tuple[str, ...] | None = None,
    sparse: float = 0.0,
) -> list[tuple[str, Image]]:
    """``count`` random bonus faces (kind, image), drawn in ``fonts`` (names and Chinese
    numbers) and ``latin`` (English names and Arabic numbers: by default the training Latin
    fonts, or the held-out ones when ``fonts`` are the held-out fonts), in one rendering;
    ``sparse``: the share drawn as a picture with a small name (``_sparse_face_svg``); at 0 the
    faces are those drawn before it existed, seed for seed."""
    return [(f.kind, f.image) for f in drawn_bonus_faces(seed, count, fonts, latin, sparse)]


def drawn_bonus_faces(
    seed: int,
    count: int,
    fonts: tuple[str, ...] = TRAINING_FONTS,
    latin: tuple[str, ...] | None = None,
    sparse: float = 0.0,
) -> list[DrawnFace]:
    """:func:`bonus_faces`, each with the size of its name (the same faces, seed for seed)."""
    if latin is None:
        held_out = set(HELD_OUT_FONTS) | set(HELD_OUT_HANDS)
        latin = HELD_OUT_LATIN if set(fonts) <= held_out else TRAINING_LATIN
    rng = np.random.default_rng(seed)
    kinds = [BONUS_KINDS[int(k)] for k in rng.integers(len(BONUS_KINDS), size=count)]
    drawn = [_one_face(rng, kind, fonts, latin, sparse) for kind in kinds]
    faces = render_faces([svg for svg, _ in drawn])
    return [
        DrawnFace(kind, face, name_px)
        for kind, face, (_, name_px) in zip(kinds, faces, drawn, strict=True)
    ]
