"""How deep a row of tiles, or rows of them one behind another, may measure, and how many
tiles fill a blob.
"""

from __future__ import annotations

from vision.geometry import TableGeometry

from .found import PX_PER_MM

# Rows of tiles one blob may hold: a seat's discards lie in rows of six, three or four rows
# deep late in a hand, and the few millimetres between rows vanish under blur and shadow.
MAX_ROWS = 4


def one_row_mm(g: TableGeometry) -> float:
    """The deepest a blob of one row of tiles can measure (its tiles turned either way)."""
    return float(1.6 * g.tile_w_mm + 4)


def two_rows_mm(g: TableGeometry) -> float:
    """The deepest a blob of two rows of upright tiles can measure (with blur and shadow)."""
    return float(2 * g.tile_h_mm + 16)


def fills(area: float, tiles: int, g: TableGeometry) -> bool:
    """Whether so many tiles fill a blob of this area (in pixels), its gaps and shadows with
    them."""
    return area <= 1.35 * max(1, tiles) * g.tile_w_mm * g.tile_h_mm * PX_PER_MM**2
