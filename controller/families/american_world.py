"""The American game's part of the simulated world (:mod:`controller.world`).

The camera sees counts of what goes face down (Charleston and courtesy passes, draws), the
faces of what goes face up (discards, exposures, Joker exchanges, the hand shown at Mah Jongg)
and the votes; calls are the board's buttons. The table's mirror of a hand is rebuilt from the
commands its store holds; the card settles the hand (the League's payments, SC-1..SC-12).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.inputs import Observation, ObservationKind, Press
from controller.table import Table
from controller.world import Settlement
from engine.american import commands as am
from engine.american.bots import shown_at_mahjong
from engine.american.state import AmericanHand
from engine.commands import Command
from engine.events import Event
from engine.seats import Seat
from engine.tiles import tile_name


def _obs(kind: ObservationKind, seat: Seat, tiles: tuple[int, ...] = (), zone: str = "",
         count: int = 0) -> Observation:
    return Observation(kind, seat.name, tuple(tile_name(t) for t in tiles), zone=zone,
                       count=count, source="simulated")


class AmericanWorld:
    """The American game's own part of the world (``FamilyWorld``)."""

    def shown(self, before: AmericanHand, command: Command, after: AmericanHand,
              events: Sequence[Event]) -> Sequence[Observation | Press]:
        if isinstance(command, am.Call):  # the board's call button (american_mirror)
            button = "mahjong" if command.kind == "mahjong" else "pung"
            return [Press(command.seat.name, button, 0, source="simulated")]
        if isinstance(command, am.DeclareMahJongg):  # laid on the rack (M-1)
            return [_obs(ObservationKind.HAND_SHOWN, command.seat,
                         shown_at_mahjong(before, command.seat))]
        found = _passed(command)
        if found is not None:
            return [found]
        if isinstance(command, am.Draw):
            return [_obs(ObservationKind.DRAW, command.seat)]
        if isinstance(command, am.Discard):
            return [_obs(ObservationKind.DISCARD, command.seat, (command.tile,))]
        if isinstance(command, am.Expose):
            return [_obs(ObservationKind.EXPOSURE, command.seat, command.tiles)]
        if isinstance(command, am.JokerExchange):
            return [_obs(ObservationKind.JOKER_EXCHANGE, command.seat, (command.tile,),
                         zone=f"rack-{command.owner.name}")]
        return []  # CloseWindow: the table closes it by itself (the courtesy pause, a draw)

    def mirror(self, table: Table, hand: int) -> AmericanHand:
        mirror = table.family.rebuild(table.store.events_of_hand(hand))
        assert mirror is not None, f"hand {hand} is not in the table's store"
        return mirror  # type: ignore[no-any-return]

    def settles(self, table: Table, state: AmericanHand) -> Settlement:
        """The card's settlement, as the engine made it."""
        result = state.result or {}
        return Settlement({str(k): int(v) for k, v in (result.get("net") or {}).items()})


def _passed(command: Command) -> Observation | None:
    """The Charleston's and the courtesy's passes and votes: counted, never named."""
    if isinstance(command, am.CharlestonPass):
        zone = f"blind-{command.blind}" if command.blind else ""
        return _obs(ObservationKind.PASS, command.seat, zone=zone, count=3)
    if isinstance(command, am.CharlestonVote):
        return _obs(ObservationKind.VOTE, command.seat, zone="stop" if command.stop else "go")
    if isinstance(command, am.CourtesyOffer):
        return _obs(ObservationKind.COURTESY_OFFER, command.seat, count=command.count)
    if isinstance(command, am.CourtesyPass):
        return _obs(ObservationKind.COURTESY_PASS, command.seat, count=len(command.tiles))
    return None
