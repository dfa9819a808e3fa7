"""Observations become engine commands: the table's words for what it saw, in the engine's.

Pure: no state of its own. A tile the recogniser named that is no tile at all, or a seat
missing where one is needed, is an :class:`InputError` naming the field; the service then
asks the table instead of guessing.
"""

from __future__ import annotations

from controller.inputs import InputError, Observation, ObservationKind, Press
from engine import commands as cm
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


def command_for(obs: Observation) -> cm.Command:
    """The engine command an observation stands for."""
    kind = obs.kind
    if kind is ObservationKind.DICE:
        if len(obs.dice) < 2:
            raise InputError("dice: expected at least two dice")
        return cm.Throw(seat=observed_seat(obs), dice=obs.dice)
    if kind is ObservationKind.DEAL:
        return cm.Deal()
    if kind is ObservationKind.DRAW:
        return cm.Draw(seat=observed_seat(obs))
    if kind is ObservationKind.FLOWER:
        return cm.GroundFlower(seat=observed_seat(obs), tile=observed_tiles(obs, 1)[0])
    if kind is ObservationKind.DISCARD:
        return cm.Discard(seat=observed_seat(obs), tile=observed_tiles(obs, 1)[0])
    if kind is ObservationKind.EXPOSURE:
        tiles = observed_tiles(obs)
        if len(tiles) == 1:  # one tile laid beside a set: the fourth added to a pung (Law 42)
            return cm.AddKong(seat=observed_seat(obs), tile=tiles[0])
        if len(tiles) not in (3, 4):
            raise InputError(f"exposure.tiles: a set has 3 or 4 tiles, saw {len(tiles)}")
        return cm.Expose(seat=observed_seat(obs), tiles=tiles)
    if kind is ObservationKind.CONCEALED_KONG:
        return cm.DeclareKong(seat=observed_seat(obs), tile=observed_tiles(obs)[0])
    if kind is ObservationKind.ADDED_KONG:
        return cm.AddKong(seat=observed_seat(obs), tile=observed_tiles(obs, 1)[0])
    if kind is ObservationKind.HAND_SHOWN:
        winning = None
        if obs.winning:
            try:
                winning = parse_tile(obs.winning)
            except TileError as exc:
                raise InputError(f"hand_shown.winning: {exc}") from None
        return cm.DeclareMahjong(seat=observed_seat(obs), concealed=observed_tiles(obs),
                                 tile=winning)
    raise InputError(f"observation.kind: {kind!r} is not handled")  # pragma: no cover


def claim_for(press: Press) -> cm.Claim:
    """A call button is a claim of its kind, stamped with the table time of the press."""
    return cm.Claim(seat=Seat[press.seat], kind=press.button, time_us=press.time_us)  # type: ignore[arg-type]
