"""What an observation names, read for the engine: its seat and its tiles, each checked.

Shared by every family's mirror (``controller/families/``). A tile the recogniser named that is
no tile at all, or a seat missing where one is needed, is an :class:`InputError` naming the
field; the table then asks instead of guessing.
"""

from __future__ import annotations

from controller.inputs import InputError, Observation
from engine.seats import Seat
from engine.tiles import TileError, parse_tile


def observed_seat(obs: Observation) -> Seat:
    """The seat an observation names; an :class:`InputError` when the camera could not tell."""
    if obs.seat is None:
        raise InputError(f"{obs.kind}: the seat is not known")
    return Seat[obs.seat]


def observed_tiles(obs: Observation, count: int | None = None) -> tuple[int, ...]:
    """The tiles an observation names (``count`` of them when given), each a real tile."""
    try:
        tiles = tuple(parse_tile(t) for t in obs.tiles)
    except TileError as exc:
        raise InputError(f"{obs.kind}.tiles: {exc}") from None
    if count is not None and len(tiles) != count:
        raise InputError(f"{obs.kind}.tiles: expected {count} tile(s), saw {len(tiles)}")
    return tiles
