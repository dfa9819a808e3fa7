"""The American game's observations and buttons become American engine commands.

Pure, like the classical families' (``classical_mirror.py``): the camera counts what goes
face down (Charleston and courtesy passes) and reads what goes face up (discards, exposures,
Joker exchanges, the hand shown at Mah Jongg); a seat's buttons call (C-1) or call Mah Jongg.
Anything missing or unreadable is an :class:`InputError` naming the field.
"""

from __future__ import annotations

from controller.inputs import InputError, Observation, ObservationKind, Press
from controller.mirror import observed_seat, observed_tiles
from engine.american import commands as am
from engine.commands import Command
from engine.seats import SEAT_NAMES, Seat

# A seat's call buttons (the board's button names, config `board.buttons`): "mahjong" calls
# the discard for Mah Jongg; any other call button calls it for an exposure (American C-1:
# no chows, and a pung, kong or larger set is one kind of call).
CALL_KINDS = {"mahjong": "mahjong", "pung": "expose", "kong": "expose", "chow": "expose"}


def _blind(obs: Observation) -> int:
    if not obs.zone:
        return 0
    head, _, n = obs.zone.partition("-")
    if head != "blind" or not n.isdigit():
        raise InputError(f"pass.zone: 'blind-N' for a blind pass, not {obs.zone!r}")
    return int(n)


def command_for(obs: Observation) -> Command:
    """The American engine command an observation stands for."""
    kind = obs.kind
    if kind is ObservationKind.PASS:
        return am.CharlestonPass(observed_seat(obs), blind=_blind(obs), count=obs.count)
    if kind is ObservationKind.VOTE:
        if obs.zone not in ("stop", "go"):
            raise InputError("vote.zone: 'stop' or 'go'")
        return am.CharlestonVote(observed_seat(obs), stop=obs.zone == "stop")
    if kind is ObservationKind.COURTESY_OFFER:
        return am.CourtesyOffer(observed_seat(obs), obs.count)
    if kind is ObservationKind.COURTESY_PASS:
        return am.CourtesyPass(observed_seat(obs), count=obs.count)
    if kind is ObservationKind.DRAW:
        return am.Draw(observed_seat(obs))
    if kind is ObservationKind.DISCARD:
        return am.Discard(observed_seat(obs), observed_tiles(obs, 1)[0])
    if kind is ObservationKind.EXPOSURE:
        tiles = observed_tiles(obs)
        if not tiles:
            raise InputError("exposure.tiles: no tiles seen")
        return am.Expose(observed_seat(obs), tiles)
    if kind is ObservationKind.JOKER_EXCHANGE:
        owner = obs.zone.removeprefix("rack-")
        if owner not in SEAT_NAMES:
            raise InputError(f"joker_exchange.zone: 'rack-<seat>' of the exposure's owner, "
                             f"not {obs.zone!r}")
        return am.JokerExchange(observed_seat(obs), Seat[owner], observed_tiles(obs, 1)[0])
    if kind is ObservationKind.HAND_SHOWN:
        return am.DeclareMahJongg(observed_seat(obs), concealed=observed_tiles(obs))
    raise InputError(f"observation.kind: {kind!r} is not seen in the American game")


def claim_for(press: Press) -> am.Call:
    """A call button is a call (C-1), stamped with the board time of the press (C-9)."""
    kind = CALL_KINDS.get(press.button)
    if kind is None:
        raise InputError(f"press.button: {press.button!r} is not a call button")
    return am.Call(Seat[press.seat], kind, time_us=press.time_us)


class AmericanMirror:
    """:class:`controller.family_part.Mirror` for the American game."""

    def command_for(self, obs: Observation) -> Command:
        return command_for(obs)

    def claim_for(self, press: Press) -> Command:
        return claim_for(press)
