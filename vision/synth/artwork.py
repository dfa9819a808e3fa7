"""Tile face artwork, loaded from the Debian packages the set-up installs.

No third-party artwork is committed to the repository: the faces are rendered on first use
from the installed files (see docs/artwork.md for their licences) and cached as PNG under
``$MJTABLE_ARTWORK_CACHE`` (default ``~/.cache/mahjong-table/artwork``).

Every art set is a dict ``label -> face`` where a face is a BGR ``uint8`` image of
``FACE_H x FACE_W`` pixels showing the top of the tile (body colour and engraving, no sides).
Labels are those of vision/labels.py: the tile tokens of ``engine.tiles`` plus ``BLANK`` (a
spare tile without engraving) and ``BACK`` (a tile lying face down). The American Joker
(``J``) is generated: no packaged set has one.
"""

from __future__ import annotations

import functools
import gzip
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image import Image
from vision.labels import BACK, BLANK, CHINESE_LABELS, JOKER

FACE_W = 72
FACE_H = 96

KDE_DIR = Path("/usr/share/kmahjongglib/tilesets")
XMAHJONGG_DIR = Path("/usr/share/games/xmahjongg/tiles")
GNOME_DIR = Path("/usr/share/gnome-mahjongg/themes")
SYMBOLA_FONT = Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf")

KDE_SETS = ("alphabet", "classic", "default", "egypt", "jade", "traditional")


class ArtworkMissing(RuntimeError):
    """The package that provides an art set is not installed."""


def cache_dir() -> Path:
    env = os.environ.get("MJTABLE_ARTWORK_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "mahjong-table" / "artwork"


# -- KDE Mahjongg SVG tilesets ------------------------------------------------------------

_KDE_IDS: dict[str, str] = {}
for _r in range(1, 10):
    _KDE_IDS[f"{_r}C"] = f"CHARACTER_{_r}"
    _KDE_IDS[f"{_r}B"] = f"BAMBOO_{_r}"
    _KDE_IDS[f"{_r}D"] = f"ROD_{_r}"
# KDE numbers winds 1=N 2=S 3=E 4=W and dragons 1=white 2=green 3=red (checked by rendering).
_KDE_IDS.update({"NW": "WIND_1", "SW": "WIND_2", "EW": "WIND_3", "WW": "WIND_4"})
_KDE_IDS.update({"WD": "DRAGON_1", "GD": "DRAGON_2", "RD": "DRAGON_3"})
for _i in range(1, 5):
    _KDE_IDS[f"F{_i}"] = f"FLOWER_{_i}"
    _KDE_IDS[f"S{_i}"] = f"SEASON_{_i}"


def _rsvg(svg: Path, out: Path, width: int, height: int, element: str | None = None) -> None:
    cmd = ["rsvg-convert", "-w", str(width), "-h", str(height), "-o", str(out)]
    if element:
        cmd += ["-i", element]
    subprocess.run([*cmd, str(svg)], check=True, capture_output=True, timeout=60)


def _read_rgba(path: Path) -> NDArray[np.uint8]:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ArtworkMissing(f"could not read rendered artwork {path}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    if image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    return np.asarray(image, dtype=np.uint8)


def _over(base: Image, rgba: NDArray[np.uint8]) -> Image:
    alpha = rgba[:, :, 3:4].astype(np.float32) / 255.0
    mixed = rgba[:, :, :3].astype(np.float32) * alpha + base.astype(np.float32) * (1 - alpha)
    return np.asarray(np.clip(mixed, 0, 255), dtype=np.uint8)


def _kde_face_size(name: str) -> tuple[int, int]:
    text = (KDE_DIR / f"{name}.desktop").read_text(encoding="utf-8")
    w = re.search(r"^TileFaceWidth=(\d+)", text, re.M)
    h = re.search(r"^TileFaceHeight=(\d+)", text, re.M)
    return (int(w.group(1)) if w else 69, int(h.group(1)) if h else 89)


def _kde_element(svg: Path, tmp: Path, element: str, size: tuple[int, int]) -> NDArray[np.uint8]:
    """One element at its natural scale, cut to its drawn content, centred on a face.

    Element bounding boxes in these files are inconsistent (rsvg-convert's ``-w/-h`` stretch
    some faces wrongly), so the drawn pixels are what counts.
    """
    out = tmp / "element.png"
    subprocess.run(
        ["rsvg-convert", "-i", element, "-z", "1", "-o", str(out), str(svg)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    rgba = _read_rgba(out)
    ys, xs = np.nonzero(rgba[:, :, 3] > 8)
    face_w, face_h = size
    canvas = np.zeros((face_h, face_w, 4), np.uint8)
    if len(xs) == 0:
        return canvas
    content = rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    ch, cw = content.shape[:2]
    scale = min(1.0, face_w / cw, face_h / ch)
    if scale < 1.0:
        size = (max(1, round(cw * scale)), max(1, round(ch * scale)))
        content = np.asarray(cv2.resize(content, size), np.uint8)
        ch, cw = content.shape[:2]
    y0, x0 = (face_h - ch) // 2, (face_w - cw) // 2
    canvas[y0 : y0 + ch, x0 : x0 + cw] = content
    return canvas


def _kde_set(name: str) -> dict[str, Image]:
    path = KDE_DIR / f"{name}.svgz"
    if not path.exists():
        raise ArtworkMissing(f"{path} (Debian package kdegames-mahjongg-data-kf5)")
    size = _kde_face_size(name)
    faces: dict[str, Image] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        svg = tmp / "set.svg"
        svg.write_bytes(gzip.decompress(path.read_bytes()))
        # The face colour is the tile body's lightest large area (its top).
        body = _kde_element(svg, tmp, "TILE_1", (size[0] * 2, size[1] * 2))
        opaque = body[body[:, :, 3] > 250][:, :3]
        grey = opaque.astype(np.int32).sum(axis=1)
        colour = np.median(opaque[grey >= np.percentile(grey, 60)], axis=0).astype(np.uint8)
        for label, element in _KDE_IDS.items():
            base = np.empty((size[1], size[0], 3), np.uint8)
            base[:] = colour
            faces[label] = _fit(_over(base, _kde_element(svg, tmp, element, size)))
        faces[BLANK] = np.full((FACE_H, FACE_W, 3), colour, np.uint8)
    return faces


# -- xmahjongg GIF sheets -----------------------------------------------------------------

# `real.gif` (scanned real tiles, Mark Sanctuary): 9 x 5 grid.
_REAL_GRID: dict[str, tuple[int, int]] = {}
for _r in range(9):
    _REAL_GRID[f"{_r + 1}D"] = (0, _r)
    _REAL_GRID[f"{_r + 1}B"] = (1, _r)
    _REAL_GRID[f"{_r + 1}C"] = (2, _r)
for _i in range(4):
    _REAL_GRID[f"S{_i + 1}"] = (3, _i)
    _REAL_GRID[f"F{_i + 1}"] = (4, _i)
_REAL_GRID.update({"NW": (3, 4), "SW": (3, 5), "EW": (3, 6), "WW": (3, 7)})
_REAL_GRID.update({"GD": (4, 4), "WD": (4, 5), "RD": (4, 6), BLANK: (4, 7)})

# The order both xmahjongg's Dorothy sheets and GNOME's themes start with: dots, winds N W S E,
# red and green dragons, characters, bamboos.
_SHEET_SUITS_FIRST: tuple[str, ...] = (
    *(f"{r}D" for r in range(1, 10)),
    "NW",
    "WW",
    "SW",
    "EW",
    "RD",
    "GD",
    *(f"{r}C" for r in range(1, 10)),
    *(f"{r}B" for r in range(1, 10)),
)

# `dorothys.gif` / `dorwhite.gif` (Dorothy Robinson): 21 x 2 faces (rows 2-3 are highlights).
_DOROTHY_ORDER: tuple[str, ...] = (
    *_SHEET_SUITS_FIRST,
    "S1",
    "S2",
    "S3",
    "S4",
    "WD",
    "F4",
    "F2",
    "F1",
    "F3",
)


def _read_gif(name: str) -> Image:
    path = XMAHJONGG_DIR / name
    if not path.exists():
        raise ArtworkMissing(f"{path} (Debian package xmahjongg)")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ArtworkMissing(f"could not decode {path}")
    return np.asarray(image, dtype=np.uint8)


def _fit(crop: Image) -> Image:
    return np.asarray(cv2.resize(crop, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA), np.uint8)


def _real_set() -> dict[str, Image]:
    sheet = _read_gif("real.gif")
    cell_w, cell_h = sheet.shape[1] / 9, sheet.shape[0] / 5
    faces = {}
    for label, (row, col) in _REAL_GRID.items():
        x0, y0 = round(col * cell_w), round(row * cell_h)
        crop = sheet[y0 + 4 : round(y0 + cell_h) - 4, x0 + 4 : round(x0 + cell_w) - 4]
        faces[label] = _fit(crop)
    return faces


def _dorothy_set(name: str) -> dict[str, Image]:
    sheet = _read_gif(name)
    cell = 64
    faces = {}
    for index, label in enumerate(_DOROTHY_ORDER):
        row, col = divmod(index, 21)
        x0, y0 = col * cell, row * 80
        # The face sits up-left in its cell; the 3-D edge is to the right and below.
        crop = sheet[y0 + 3 : y0 + 72, x0 + 7 : x0 + 60]
        faces[label] = _fit(crop)
    faces[BLANK] = np.full_like(faces["1D"], np.median(faces["WD"][4:10, 4:10].reshape(-1, 3), 0))
    return faces


# -- GNOME Mahjongg theme sheets --------------------------------------------------------------

# One row of 43 tiles (a second row repeats them highlighted): dots, winds N W S E, red and
# green dragons, characters, bamboos, four flowers, the white dragon, four seasons, a blank.
# The flower order (orchid, chrysanthemum, plum, bamboo) is read from `smooth`'s characters.
_GNOME_ORDER: tuple[str, ...] = (
    *_SHEET_SUITS_FIRST,
    "F2",
    "F3",
    "F1",
    "F4",
    "WD",
    "S1",
    "S2",
    "S3",
    "S4",
    BLANK,
)
_GNOME_CELL = (96, 132)  # one tile with its 3-D edge (left and bottom) at the PNG themes' scale


def _gnome_set(file_name: str) -> dict[str, Image]:
    path = GNOME_DIR / file_name
    if not path.exists():
        raise ArtworkMissing(f"{path} (Debian package gnome-mahjongg)")
    cell_w, cell_h = _GNOME_CELL
    if path.suffix == ".svg":
        with tempfile.TemporaryDirectory() as tmp_name:
            out = Path(tmp_name) / "sheet.png"
            _rsvg(path, out, cell_w * len(_GNOME_ORDER), cell_h * 2)
            sheet = _read_rgba(out)
    else:
        sheet = _read_rgba(path)
    faces: dict[str, Image] = {}
    for index, label in enumerate(_GNOME_ORDER):
        x0 = index * cell_w
        # The face: right of the 3-D edge on the left, above the one at the bottom.
        crop = sheet[4:115, x0 + 10 : x0 + 92, :3]
        faces[label] = _fit(np.ascontiguousarray(crop))
    return faces


# -- Symbola glyphs -----------------------------------------------------------------------

_SYMBOLA_CODES: dict[str, int] = {
    "EW": 0x1F000,
    "SW": 0x1F001,
    "WW": 0x1F002,
    "NW": 0x1F003,
    "RD": 0x1F004,
    "GD": 0x1F005,
    "WD": 0x1F006,
    "F1": 0x1F022,
    "F2": 0x1F023,
    "F3": 0x1F025,
    "F4": 0x1F024,
    "S1": 0x1F026,
    "S2": 0x1F027,
    "S3": 0x1F028,
    "S4": 0x1F029,
}
for _r in range(9):
    _SYMBOLA_CODES[f"{_r + 1}C"] = 0x1F007 + _r
    _SYMBOLA_CODES[f"{_r + 1}B"] = 0x1F010 + _r
    _SYMBOLA_CODES[f"{_r + 1}D"] = 0x1F019 + _r


def _symbola_set() -> dict[str, Image]:
    if not SYMBOLA_FONT.exists():
        raise ArtworkMissing(f"{SYMBOLA_FONT} (Debian package fonts-symbola)")
    faces: dict[str, Image] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for label, code in _SYMBOLA_CODES.items():
            svg = tmp / "g.svg"
            svg.write_text(
                '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="360">'
                '<rect width="300" height="360" fill="#f3eedf"/>'
                '<text x="150" y="330" font-family="Symbola" font-size="380" '
                f'text-anchor="middle">&#x{code:X};</text></svg>'
            )
            _rsvg(svg, tmp / "g.png", 300, 360)
            image = _read_rgba(tmp / "g.png")[:, :, :3]
            faces[label] = _crop_inside_frame(np.asarray(image, np.uint8))
    faces[BLANK] = np.full((FACE_H, FACE_W, 3), (223, 238, 243), np.uint8)
    return faces


def _crop_inside_frame(image: Image) -> Image:
    """Symbola draws each tile with an outline: keep what is inside it."""
    dark = (cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) < 128).astype(np.uint8)
    ys, xs = np.nonzero(dark)
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    pad_x, pad_y = (x1 - x0) // 14, (y1 - y0) // 20
    return _fit(image[y0 + pad_y : y1 - pad_y, x0 + pad_x : x1 - pad_x])


# -- generated tiles: the American Joker and tile backs ---------------------------------------

_JOKER_INKS = ((40, 40, 200), (170, 60, 20), (40, 130, 30), (30, 30, 30), (150, 40, 150))


def joker_face(body: NDArray[np.uint8], variant: int) -> Image:
    """An American Joker: the word JOKER on the set's body colour, in one of several styles."""
    face = np.empty((FACE_H, FACE_W, 3), np.uint8)
    face[:] = body
    ink = _JOKER_INKS[variant % len(_JOKER_INKS)]
    style = variant // len(_JOKER_INKS) % 3
    if style == 0:  # the word across the middle, a star above
        cv2.putText(face, "JOKER", (4, 56), cv2.FONT_HERSHEY_DUPLEX, 0.6, ink, 2, cv2.LINE_AA)
        cv2.drawMarker(face, (36, 26), ink, cv2.MARKER_STAR, 20, 2)
    elif style == 1:  # the letters stacked down the tile
        for i, letter in enumerate("JOKER"):
            cv2.putText(
                face, letter, (26, 20 + i * 17), cv2.FONT_HERSHEY_SIMPLEX, 0.6, ink, 2, cv2.LINE_AA
            )
    else:  # a framed word with a diamond below
        cv2.rectangle(face, (6, 8), (65, 87), ink, 2)
        cv2.putText(face, "JOKER", (9, 40), cv2.FONT_HERSHEY_TRIPLEX, 0.5, ink, 1, cv2.LINE_AA)
        pts = np.array([[36, 52], [48, 66], [36, 80], [24, 66]], np.int32)
        cv2.fillPoly(face, [pts], ink)
    return face


BACK_COLOURS: tuple[tuple[int, int, int], ...] = (
    (60, 120, 40),
    (150, 90, 30),
    (40, 150, 200),
    (60, 60, 170),
    (150, 80, 150),
    (40, 100, 80),
)


def back_face(variant: int) -> Image:
    """A face-down tile: the coloured back of the tile, plain or with a faint pattern."""
    colour = np.array(BACK_COLOURS[variant % len(BACK_COLOURS)], np.uint8)
    face = np.empty((FACE_H, FACE_W, 3), np.uint8)
    face[:] = colour
    if variant // len(BACK_COLOURS) % 2:
        lighter = tuple(int(min(255, c + 35)) for c in colour)
        cv2.circle(face, (FACE_W // 2, FACE_H // 2), 18, lighter, 2, cv2.LINE_AA)
    return face


# -- the registry -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArtSet:
    name: str
    source: str  # the package and file it comes from
    licence: str
    load: Callable[[], dict[str, Image]]


def _kde(name: str) -> ArtSet:
    return ArtSet(
        f"kde-{name}",
        f"kdegames-mahjongg-data-kf5: {KDE_DIR}/{name}.svgz",
        "GPL-2.0-or-later",
        lambda: _kde_set(name),
    )


ART_SETS: dict[str, ArtSet] = {
    **{f"kde-{n}": _kde(n) for n in KDE_SETS},
    "xmj-real": ArtSet(
        "xmj-real", f"xmahjongg: {XMAHJONGG_DIR}/real.gif", "GPL-2.0-or-later", _real_set
    ),
    "xmj-dorothys": ArtSet(
        "xmj-dorothys",
        f"xmahjongg: {XMAHJONGG_DIR}/dorothys.gif",
        "GPL-2.0-or-later",
        lambda: _dorothy_set("dorothys.gif"),
    ),
    "xmj-dorwhite": ArtSet(
        "xmj-dorwhite",
        f"xmahjongg: {XMAHJONGG_DIR}/dorwhite.gif",
        "GPL-2.0-or-later",
        lambda: _dorothy_set("dorwhite.gif"),
    ),
    "gnome-smooth": ArtSet(
        "gnome-smooth",
        f"gnome-mahjongg: {GNOME_DIR}/smooth.png",
        "GPL-2.0-or-later",
        lambda: _gnome_set("smooth.png"),
    ),
    "gnome-postmodern": ArtSet(
        "gnome-postmodern",
        f"gnome-mahjongg: {GNOME_DIR}/postmodern.svg",
        "GPL-2.0-or-later",
        lambda: _gnome_set("postmodern.svg"),
    ),
    "symbola": ArtSet(
        "symbola", f"fonts-symbola: {SYMBOLA_FONT}", "free for any use (Symbola)", _symbola_set
    ),
}


def body_colour(faces: dict[str, Image]) -> NDArray[np.uint8]:
    """The colour of the tile's face, read from its blank (or the corners of any face)."""
    sample = faces.get(BLANK, faces["1D"])
    return np.asarray(np.median(sample[2:12, 2:12].reshape(-1, 3), axis=0), np.uint8)


# Sets that draw all four flowers (and all four seasons) alike: their bonus tiles cannot be told
# apart, so they are left out rather than taught as different kinds.
# gnome-postmodern's are pictures with no name or number, so which is which is unknown.
_SAME_BONUS_ART = frozenset({"kde-egypt", "gnome-postmodern"})


PROCEDURAL_PREFIX = "procedural#"


@functools.lru_cache(maxsize=16)
def _procedural_faces(seed: int) -> dict[str, Image]:
    from vision.synth.procedural import procedural_set  # it draws with this module's sizes

    faces = procedural_set(seed)
    faces[JOKER] = joker_face(body_colour(faces), seed)
    faces[BACK] = back_face(seed)
    return faces


def load_set(name: str) -> dict[str, Image]:
    """All faces of one art set, rendered once and then read from the cache.

    Adds the generated faces every set lacks: Jokers (``J``) in the set's body colour and a
    tile back. Raises :class:`ArtworkMissing` if the set's package is not installed.
    ``procedural#SEED`` names a random set drawn by :mod:`vision.synth.procedural` (not cached on
    disk: drawing one takes a tenth of a second).
    """
    if name.startswith(PROCEDURAL_PREFIX) and name[len(PROCEDURAL_PREFIX) :].isdigit():
        return dict(_procedural_faces(int(name[len(PROCEDURAL_PREFIX) :])))
    if name not in ART_SETS:
        raise KeyError(f"unknown art set {name!r}; known: {', '.join(ART_SETS)}")
    folder = cache_dir() / name
    faces: dict[str, Image] = {}
    if folder.is_dir():
        for label in (*CHINESE_LABELS, BLANK):
            image = cv2.imread(str(folder / f"{label}.png"), cv2.IMREAD_COLOR)
            if image is None:
                faces = {}
                break
            faces[label] = np.asarray(image, np.uint8)
    if not faces:
        faces = ART_SETS[name].load()
        folder.mkdir(parents=True, exist_ok=True)
        for label, image in faces.items():
            cv2.imwrite(str(folder / f"{label}.png"), image)
    if name in _SAME_BONUS_ART:
        for label in (*CHINESE_LABELS[34:42],):
            faces.pop(label, None)
    index = list(ART_SETS).index(name)
    faces[JOKER] = joker_face(body_colour(faces), index)
    faces[BACK] = back_face(index)
    return faces


def available_sets() -> list[str]:
    """The art sets whose packages are installed here."""
    found = []
    for name in ART_SETS:
        try:
            load_set(name)
        except (ArtworkMissing, subprocess.SubprocessError, OSError):
            continue
        found.append(name)
    return found


def render_faces(faces: list[str], cols: int = 16, timeout: float = 120) -> list[Image]:
    """Draw SVG faces (each FACE_W x FACE_H, at the origin) laid ``cols`` a row on one sheet
    (:func:`render_face_sheet`), and each cut from it again, in their order."""
    cells = []
    for i, face in enumerate(faces):
        r, c = divmod(i, cols)
        cells.append(f'<g transform="translate({c * FACE_W} {r * FACE_H})">{face}</g>')
    sheet = render_face_sheet(cells, cols, timeout)
    out = []
    for i in range(len(faces)):
        r, c = divmod(i, cols)
        face_px = sheet[r * FACE_H : (r + 1) * FACE_H, c * FACE_W : (c + 1) * FACE_W]
        out.append(np.ascontiguousarray(face_px, np.uint8))
    return out


def render_face_sheet(cells: list[str], cols: int, timeout: float = 120) -> NDArray[np.uint8]:
    """Draw SVG face cells (each already translated to its place on a ``cols``-wide grid of
    FACE_W x FACE_H faces) as one sheet through rsvg-convert: one process for a whole set."""
    rows = (len(cells) + cols - 1) // cols
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * FACE_W}" '
        f'height="{rows * FACE_H}">' + "".join(cells) + "</svg>"
    )
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "sheet.svg").write_text(svg, encoding="utf-8")
        subprocess.run(
            ["rsvg-convert", "-o", str(tmp / "sheet.png"), str(tmp / "sheet.svg")],
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        read = cv2.imread(str(tmp / "sheet.png"), cv2.IMREAD_COLOR)
    if read is None:
        raise RuntimeError("rsvg-convert produced no image")
    return np.asarray(read, np.uint8)
