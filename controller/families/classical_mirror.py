"""The classical families' mirror: observations and buttons become engine commands, the
table's words for what it saw in the engine's (:class:`controller.family_part.Mirror`).

Pure: no state of its own. A tile the recogniser named that is no tile at all, or a seat
missing where one is needed, is an :class:`InputError` naming the field; the service then
asks the table instead of guessing.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.inputs import InputError, Observation, ObservationKind, Press
from controller.mirror import observed_seat, observed_tiles
from engine import commands as cm
from engine.game import HandState
from engine.seats import Seat
from engine.tiles import TileError, parse_tile


class ClassicalMirror:
    """:class:`controller.family_part.Mirror` for the classical families."""

    def command_for(self, obs: Observation) -> cm.Command:
        return command_for(obs)

    def claim_for(self, press: Press) -> cm.Command:
        return claim_for(press)



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


def showing_hands(state: HandState, awaited: Sequence[str]) -> dict[str, int]:
    """The seats that may be laying their hands out now, each with how many tiles its hand
    holds, for the camera's watcher (vision/observe.py): one that called Mah-jongg on the
    discard (alone) or was awarded it, its tiles and the discard; the turn's seat once it has
    drawn (a concealed kong lies face down, a discard goes to the middle: what else it lays on
    its rack strip, beyond a flower or a kong's fourth, is its hand); after a Mah-jongg,
    ``awaited``: the others whose hands are still to be shown (Law 82)."""
    held = {seat.name: state.seats[seat].n for seat in state.players}
    if state.phase == "ended":
        return {s: held[s] for s in awaited}
    if state.phase == "award" and state.award is not None and state.award[1] == "mahjong":
        return {state.award[0].name: held[state.award[0].name] + 1}
    if state.phase in ("claims", "rob"):
        callers = {c.seat.name for c in state.claims if c.kind == "mahjong"}
        return {s: held[s] + 1 for s in callers} if len(callers) == 1 else {}
    if state.phase == "play" and state.drew:
        return {state.turn.name: held[state.turn.name]}
    return {}
