"""Finding tiles and dice on the table, in millimetres.

The frame is flattened through the calibration to a top-down image at ``PX_PER_MM`` where a
tile always measures ``tile_w x tile_h`` millimetres. Everything that is not cloth (far from
its colour, or, on a table whose tiles are near that colour, clearly brighter) is a blob; a
blob one tile deep is a row of touching tiles, cut at the seams (the dark rounded rims where
two tiles meet) into pieces whose lengths are tile widths (upright) or tile lengths (turned
sideways, as a claimed tile is); a blob two to four tiles deep (a seat's discard rows, joined
by blur and shadow late in a hand) is first cut into rows (either way, when it is about as
long as it is deep), and its pieces must share the body colour of the table's other tiles to
count as tiles. Squares of the die's
size are dice (measured on the die's white body, its shadow left out), and a blob
that two such squares explain is two dice at rest against each other (vision/dice_pair.py).
What fits neither (a hand over the table, a heap) is reported as an obstruction and its tiles
are simply not seen in that frame.

The package, stage by stage: ``topdown`` (the table flattened), ``cloth`` (what lies on the
cloth), ``on_cloth`` (the table flattened only where something lies on the cloth), ``blobs``
(its blobs), ``dice_blobs`` (one die or two), ``split`` (a blob's tiles: ``outline`` for its
rows' direction, ``one_row`` and ``cutting`` to cut a row at its seams, ``seams`` for where
they are, ``deep_rows`` for rows one behind another), ``strips`` (every row of the frame cut
out and profiled at once), ``body`` (the set's body colour that tiles cut from deep rows must
show), ``finding`` (every blob looked at, every row cut at once, then each blob's tiles) and
``crops`` (each tile cut from the camera frame). ``found`` holds what is reported, ``sizes``
what a tile and rows of tiles measure (fast medians and percentiles are ``vision.stats``).
"""

from .body import set_body
from .cloth import Cloth, cloth_mask, cloth_of
from .crops import cut_quad, tile_crop, tile_crops, tile_quads
from .finding import Changed, TilesFound, find, find_changed
from .found import PX_PER_MM, Box, Found
from .on_cloth import Flattened, flatten_on_cloth
from .sizes import MAX_ROWS
from .topdown import rectify

__all__ = [
    "MAX_ROWS",
    "PX_PER_MM",
    "Box",
    "Changed",
    "Cloth",
    "Flattened",
    "Found",
    "TilesFound",
    "cloth_mask",
    "cloth_of",
    "cut_quad",
    "find",
    "find_changed",
    "flatten_on_cloth",
    "rectify",
    "set_body",
    "tile_crop",
    "tile_crops",
    "tile_quads",
]
