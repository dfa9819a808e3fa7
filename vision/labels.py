"""What the recogniser names a tile: a tile token of ``engine.tiles``, or one of the labels
for what is not a face (a blank spare, a tile lying face down)."""

from __future__ import annotations

from engine.tiles import tile_name

BLANK = "BLANK"
BACK = "BACK"
JOKER = "J"

# The 42 tiles every complete art set has: 34 kinds, 4 flowers, 4 seasons.
CHINESE_LABELS: tuple[str, ...] = tuple(tile_name(t) for t in range(42))
# What the recogniser knows: the 42, the American Joker, a blank spare and a face-down tile.
LABELS: tuple[str, ...] = (*CHINESE_LABELS, JOKER, BLANK, BACK)
