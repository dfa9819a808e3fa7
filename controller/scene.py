"""What the simulated camera sees: the table's face-up tiles laid out as players lay them.

``table_layout(view)`` turns the engine's public view (the same JSON the service publishes)
into a renderer :class:`vision.synth.layout.Layout`: each seat's discards in rows of six in front of
it, facing it, inside the wall ring; its sets and flowers along its rack strip; the dice in
the tray. A discard that is claimed leaves the discard area and reappears in the claimant's
set, as on a real table. Concealed kongs lie face down (the table shows no face of them).
A view whose seats lay ``exposures`` (3 to 6 tiles, Jokers among them) has them along the
rack strip in place of sets and flowers; a set of more than 144 tiles is discarded in deeper
rows of seven, and its flowers (``F``) are drawn with the set's own pictures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SEAT_ANGLE = {"E": 0.0, "S": 90.0, "W": 180.0, "N": 270.0}


Vec = tuple[float, float]


def _frame(seat: str, size: float) -> tuple[Vec, Vec, Vec]:
    """Origin at the middle of the seat's edge, 'along' (to the seat's right), 'inward'."""
    c = size / 2
    return {
        "E": ((c, size), (1.0, 0.0), (0.0, -1.0)),
        "S": ((size, c), (0.0, -1.0), (-1.0, 0.0)),
        "W": ((c, 0.0), (-1.0, 0.0), (0.0, 1.0)),
        "N": ((0.0, c), (0.0, 1.0), (1.0, 0.0)),
    }[seat]


def _at(seat: str, size: float, along: float, depth: float) -> tuple[float, float]:
    (ox, oy), (ax, ay), (ix, iy) = _frame(seat, size)
    return ox + ax * along + ix * depth, oy + ay * along + iy * depth


# A player drawing from the wall reaches over his rack to it: the middle of his fingers this
# far in from his edge (the wall ring lies 80-190 mm in; his discards begin at 215 mm).
REACH_DEPTH_MM = 150.0


def reaching_hand(seat: str, along: float, geometry: Any = None) -> tuple[float, float]:
    """Where ``seat``'s hand is (``vision.synth.layout.Layout.hand``) as it reaches for the wall
    ``along`` mm to the right of the middle of its edge."""
    from vision.geometry import TableGeometry

    geometry = geometry or TableGeometry()
    return _at(seat, geometry.size_mm, along, REACH_DEPTH_MM)


def table_layout(
    view: Mapping[str, Any], dice: Sequence[int] = (), geometry: Any = None,
    set_size: int = 144,
) -> Any:
    """A renderer layout of what ``view`` shows face up, on a table playing ``set_size``
    tiles."""
    from vision.geometry import TableGeometry
    from vision.labels import BACK
    from vision.synth.layout import DiePlacement, Layout, TilePlacement

    geometry = geometry or TableGeometry()
    size, tw, th = geometry.size_mm, geometry.tile_w_mm, geometry.tile_h_mm
    layout = Layout(tiles=[], dice=[])
    # With 152 tiles a seat discards up to 25 (152 less the deal, four ways): four rows of
    # seven reach 351 mm in, clear of the next seat's rows; with 144 or fewer, rows of six do.
    per_row = 7 if set_size > 144 else 6
    for seat, entry in view.get("seats", {}).items():
        angle = SEAT_ANGLE[seat]
        for k, tile in enumerate(entry.get("discards", [])):
            row, col = divmod(k, per_row)
            along = -per_row / 2 * tw + col * (tw + 3.0) + tw / 2
            depth = 80.0 + 110.0 + 25.0 + row * (th + 4.0) + th / 2
            x, y = _at(seat, size, along, depth)
            layout.tiles.append(TilePlacement(_face(tile, k), x, y, angle))
        if "exposures" in entry:
            _lay_exposures(layout, seat, entry["exposures"], geometry)
            continue
        # Each set has room for four, so a tile added to a pung (Law 42) moves nothing; sets
        # stand 50 mm apart, so the camera tells them apart. Flowers go to the right end.
        for m, meld in enumerate(entry.get("melds", [])):
            concealed = not meld.get("exposed", True)
            for j, tile in enumerate(meld["tiles"]):
                along = -330.0 + m * (4 * (tw + 1.0) + 50.0) + j * (tw + 1.0) + tw / 2
                x, y = _at(seat, size, along, 40.0)
                layout.tiles.append(TilePlacement(BACK if concealed else tile, x, y, angle))
        for k, tile in enumerate(entry.get("flowers", [])):
            x, y = _at(seat, size, 260.0 + k * 45.0, 40.0)
            layout.tiles.append(TilePlacement(tile, x, y, angle))
    c = size / 2
    for i, value in enumerate(dice):
        layout.dice.append(DiePlacement(int(value), c - 25 + 50 * i, c))
    return layout


def lay_pass(layout: Any, seat: str, count: int, geometry: Any = None) -> Any:
    """``layout`` with ``seat``'s Charleston pass: ``count`` tiles face down in a row at the
    front of its discard area, where a camera table has each player lay it for the receiver
    to take up (vision/observe.py counts them there)."""
    from vision.geometry import TableGeometry
    from vision.labels import BACK
    from vision.synth.layout import TilePlacement

    geometry = geometry or TableGeometry()
    tw, th = geometry.tile_w_mm, geometry.tile_h_mm
    for i in range(count):
        along = (i - (count - 1) / 2) * (tw + 3.0)
        x, y = _at(seat, geometry.size_mm, along, 80.0 + 110.0 + 25.0 + th / 2)
        layout.tiles.append(TilePlacement(BACK, x, y, SEAT_ANGLE[seat]))
    return layout


def _face(tile: str, k: int) -> str:
    """The picture a tile token is drawn with: an American flower (``F``, eight alike in
    play) is one of the set's eight flower and season pictures, as on a real American set."""
    if tile != "F":
        return tile
    return ("F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4")[k % 8]


def _lay_exposures(layout: Any, seat: str, exposures: Sequence[Sequence[str]],
                   geometry: Any) -> None:
    """American exposures (3 to 6 tiles, Jokers among them) along the rack strip, 40 mm
    apart; a Joker exchanged keeps its place, so the natural lands where the Joker lay."""
    from vision.synth.layout import TilePlacement

    tw = geometry.tile_w_mm
    along = -330.0
    for m, tiles in enumerate(exposures):
        for j, tile in enumerate(tiles):
            x, y = _at(seat, geometry.size_mm, along + j * (tw + 1.0) + tw / 2, 40.0)
            layout.tiles.append(TilePlacement(_face(tile, 4 * m + j), x, y, SEAT_ANGLE[seat]))
        along += len(tiles) * (tw + 1.0) + 40.0


def shown_hand_layout(
    tiles: Sequence[str], seat: str, gaps_mm: Sequence[float] = (), geometry: Any = None
) -> Any:
    """A renderer layout of a hand laid out face up on ``seat``'s rack strip to be scored:
    its tiles in one row along the seat's edge, centred on it, facing the seat, touching or
    ``gaps_mm`` apart (one gap fewer than tiles)."""
    from vision.geometry import TableGeometry
    from vision.synth.layout import Layout, TilePlacement

    geometry = geometry or TableGeometry()
    tw = geometry.tile_w_mm
    gaps = [0.0, *gaps_mm] if len(gaps_mm) else [0.0] * len(tiles)
    along, ends = [], 0.0
    for gap in gaps:
        ends += float(gap) + tw
        along.append(ends - tw / 2)
    middle = (along[0] + along[-1]) / 2
    layout = Layout(tiles=[], dice=[])
    for tile, a in zip(tiles, along, strict=True):
        x, y = _at(seat, geometry.size_mm, a - middle, 40.0)
        layout.tiles.append(TilePlacement(tile, x, y, SEAT_ANGLE[seat]))
    return layout


# The hand shown at Mah-jongg lies in a second row on the rack strip, in front of the sets
# (their row is centred 40 mm in; this one's inner edge stays within a tile of the strip).
SHOWN_ROW_MM = 76.0
WINNING_APART_MM = 4.0


def lay_hand_shown(
    layout: Any,
    seat: str,
    tiles: Sequence[str],
    winning: str = "",
    geometry: Any = None,
    stood_on_end: bool = False,
) -> Any:
    """``layout`` with ``seat``'s hand laid face up to be scored (Law 80): its tiles touching
    in a row centred on the seat's edge, facing it; ``winning`` (the tile drawn last, which
    Law 80 stands on end) taken from them and laid sideways at the row's right-hand end,
    where an overhead camera can read it (``stood_on_end``: stood on end there, as the Law
    has it, showing the camera its end only)."""
    from vision.geometry import TableGeometry
    from vision.synth.layout import TilePlacement
    from vision.synth.render import ON_END

    geometry = geometry or TableGeometry()
    tw, th = geometry.tile_w_mm, geometry.tile_h_mm
    upright = list(tiles)
    if winning:
        upright.remove(winning)
    width = len(upright) * tw + (WINNING_APART_MM + th if winning else 0.0)
    start = -width / 2
    angle = SEAT_ANGLE[seat]
    for k, tile in enumerate(upright):
        x, y = _at(seat, geometry.size_mm, start + k * tw + tw / 2, SHOWN_ROW_MM)
        layout.tiles.append(TilePlacement(_face(tile, k), x, y, angle))
    if winning:
        along = start + len(upright) * tw + WINNING_APART_MM + th / 2
        x, y = _at(seat, geometry.size_mm, along, SHOWN_ROW_MM)
        if stood_on_end:
            layout.tiles.append(TilePlacement(ON_END, x, y, angle))
        else:
            layout.tiles.append(TilePlacement(winning, x, y, (angle + 90.0) % 360))
    return layout
