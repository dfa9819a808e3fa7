"""The rules engine: pure Python, no I/O, no clock, no threads."""

from engine.errors import EngineError, MalformedInput, RuleViolation
from engine.tiles import Tile, TileError, parse_tile, parse_tiles, tile_name

__all__ = [
    "EngineError",
    "MalformedInput",
    "RuleViolation",
    "Tile",
    "TileError",
    "parse_tile",
    "parse_tiles",
    "tile_name",
]
