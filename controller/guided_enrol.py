"""Guided enrolment at the table: the camera sees the set laid out in rows in a documented
order, cuts each tile out, names it by its place, and enrols the table's own tiles.

The order (docs/build/enrolment.md): rows from the far side of the table (West) towards East,
each row read from left to right as East sees it: bamboo 1-9, characters 1-9, dots 1-9, the
winds and dragons, then the flowers and seasons, then the Jokers, as far as the set has them.
A *shot* is one photo of that layout; between shots the tiles are swapped for other tiles of
the same kinds. All shots but the last are enrolled and the last, held back, is named by that
enrolment: kinds named wrong there are *doubtful*. The model written is enrolled from every
shot, through the folder enrolment of `mjtable vision enroll` (its photos are kept beside it,
under ``samples/``, to enrol again from files).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import tiles

# Where the rows lie (table mm, for the rendered check of this procedure): inside the wall,
# clear of the dice tray; 47 mm from one tile's centre to the next along a row.
ROW_Y_MM = (235.0, 290.0, 345.0, 560.0, 615.0, 670.0)
COLUMN_X_MM = tuple(262.0 + 47.0 * i for i in range(9))
# Two tiles whose centres are this much further apart across the rows are in different rows.
ROW_GAP_MM = 25.0


def layout_rows(kinds: Sequence[str]) -> list[list[str]]:
    """The rows a person lays, in order, for a set holding ``kinds`` (tile codes)."""
    groups = [
        [f"{rank}B" for rank in range(1, 10)],
        [f"{rank}C" for rank in range(1, 10)],
        [f"{rank}D" for rank in range(1, 10)],
        ["EW", "SW", "WW", "NW", "RD", "GD", "WD"],
        ["F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4"],
        ["J"],
    ]
    wanted = set(kinds)
    return [row for row in ([k for k in g if k in wanted] for g in groups) if row]


def set_kinds(ruleset: str) -> list[str]:
    """The tile codes of the faces in the set ``ruleset`` is played with (its registry entry's
    ``tiles``). The 152-tile set's eight Flowers are interchangeable in play but printed as
    the four flowers and four seasons, so each face is enrolled; its Jokers are one face."""
    from engine.rulesets import entry

    faces = set()
    for tile in tiles.tile_set(entry(ruleset).tiles):
        faces |= set(tiles.BONUS_TILES) if tile == tiles.FLOWER else {tile}
    return [tiles.tile_name(t) for t in sorted(faces)]


@dataclass
class Shot:
    """One photo of the layout: its labelled crops, and what did not match the layout."""

    crops: list[tuple[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def cut_shot(frame: Any, geometry: Any, rows: list[list[str]]) -> Shot:
    """Calibrate from the markers, find the tiles, group them into rows across the table and
    name each by its place. A row with another number of tiles than the layout's is left out
    and said (which row, how many seen)."""
    from vision.calibration import CalibrationError, calibrate
    from vision.finder import find, tile_crops

    shot = Shot()
    try:
        calibration = calibrate(frame, geometry)
    except CalibrationError as exc:
        shot.problems.append(str(exc))
        return shot
    found = sorted((f for f in find(frame, calibration) if f.kind == "tile"), key=lambda f: f.y)
    seen: list[list[Any]] = []
    for tile in found:
        if seen and tile.y - seen[-1][-1].y <= ROW_GAP_MM:
            seen[-1].append(tile)
        else:
            seen.append([tile])
    if len(seen) != len(rows):
        shot.problems.append(f"{len(seen)} rows of tiles seen, the layout has {len(rows)}: "
                             f"rows {' / '.join(r[0] + '-' + r[-1] for r in rows)}")
    for number, (row, kinds) in enumerate(zip(seen, rows, strict=False), start=1):
        row.sort(key=lambda f: f.x)
        if len(row) != len(kinds):
            shot.problems.append(f"row {number} ({kinds[0]}-{kinds[-1]}): {len(row)} tiles "
                                 f"seen, {len(kinds)} expected")
            continue
        crops = tile_crops(frame, calibration, row)
        shot.crops += list(zip(kinds, crops, strict=True))
    return shot


def write_samples(shots: Sequence[Shot], folder: Path) -> int:
    """``folder/<CODE>/shot<N>.png`` for every crop (the form `mjtable vision enroll` reads)."""
    import cv2

    written = 0
    for number, shot in enumerate(shots, start=1):
        for label, crop in shot.crops:
            (folder / label).mkdir(parents=True, exist_ok=True)
            if not cv2.imwrite(str(folder / label / f"shot{number}.png"), crop):
                raise OSError(f"cannot write {folder / label}")
            written += 1
    return written


@dataclass
class Check:
    """The held-back shot named by the enrolment of the others."""

    right: int = 0
    total: int = 0
    doubtful: dict[str, str] = field(default_factory=dict)  # kind -> what it was taken for

    @property
    def accuracy(self) -> float:
        return self.right / self.total if self.total else 0.0


def check_held_back(enrolled: Sequence[Shot], held_back: Shot) -> Check:
    """Enrol ``enrolled`` (in a scratch folder) and name the held-back shot's crops with it."""
    from vision.enrol import enrol_folder
    from vision.identify import Recogniser

    check = Check()
    if not held_back.crops or not any(s.crops for s in enrolled):
        return check
    scratch = Path(tempfile.mkdtemp(prefix="mjtable-enrol-"))
    try:
        write_samples(enrolled, scratch / "samples")
        enrol_folder(scratch / "samples", scratch / "model")
        recogniser = Recogniser.load(scratch / "model")
        labels = [label for label, _ in held_back.crops]
        named = recogniser.identify([crop for _, crop in held_back.crops])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for label, ident in zip(labels, named, strict=True):
        check.total += 1
        if ident.label == label:
            check.right += 1
        else:
            check.doubtful[label] = ident.label or f"unsure ({ident.best}?)"
    return check


def enrol_shots(shots: Sequence[Shot], kinds: Sequence[str], out: Path) -> dict[str, Any]:
    """Check the last shot against the others, then enrol every shot into ``out``."""
    from vision.enrol import enrol_folder

    usable = [s for s in shots if s.crops]
    check = check_held_back(usable[:-1], usable[-1]) if len(usable) >= 2 else Check()
    if out.exists():
        shutil.rmtree(out / "samples", ignore_errors=True)
    written = write_samples(shots, out / "samples")
    summary = enrol_folder(out / "samples", out)
    have = {label for s in shots for label, _ in s.crops}
    return {
        "model": str(out),
        "kinds": summary["kinds"],
        "images": written,
        "missing": [k for k in kinds if k not in have],
        "held_back": {"tiles": check.total, "right": check.right,
                      "accuracy": round(check.accuracy, 4)} if check.total else None,
        "doubtful": check.doubtful,
        "problems": {f"shot {n}": s.problems for n, s in enumerate(shots, 1) if s.problems},
    }


def rendered_shot(art: str, kinds: Sequence[str], seed: int, shot: int,
                  size: tuple[int, int] = (2304, 1296),
                  mislaid: dict[str, str] | None = None) -> Any:
    """A rendered photo of the layout, as a person lays it (each tile a few mm and degrees
    off its place, either way up), of one table (``seed``: its cloth, light and camera) and
    one shot (new tiles' wear and noise): how this procedure is tested and measured.
    ``mislaid``: the tile laid in a kind's place instead of it (a person's slip)."""
    import numpy as np

    from vision.geometry import TableGeometry
    from vision.synth.layout import Layout, TilePlacement
    from vision.synth.render import CameraPose, Style, render

    table = np.random.default_rng([seed, 31_337])
    style = Style.random(table, art)
    pose = CameraPose.overhead(table, *size)
    rng = np.random.default_rng([seed, shot, 4_242])
    placed = []
    for row, y in zip(layout_rows(kinds), ROW_Y_MM, strict=False):
        for label, x in zip(row, COLUMN_X_MM, strict=False):
            angle = float(rng.choice([0.0, 180.0]) + rng.uniform(-5, 5))
            laid = (mislaid or {}).get(label, label)
            placed.append(TilePlacement(laid, x + rng.uniform(-4, 4), y + rng.uniform(-4, 4),
                                        angle))
    return render(Layout(tiles=placed), style, rng, TableGeometry(), pose).image
