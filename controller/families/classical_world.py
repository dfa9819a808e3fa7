"""The classical families' part of the simulated world (:mod:`controller.world`): what the
camera sees of each command, the table's mirror of a hand rebuilt from its store's events, and
the scorer's settlement of the game's own hands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from controller.inputs import Observation, ObservationKind, Press
from controller.scoresheet import net_of
from controller.table import ENVELOPE, TABLE_EVENTS, Table
from controller.world import Settlement
from engine import commands as cm
from engine import events as ev
from engine.commands import Command
from engine.events import Event
from engine.game import rebuild
from engine.seats import Seat
from engine.state import HandState
from engine.tiles import tile_name


def _obs(kind: ObservationKind, seat: Seat | None, tiles: Sequence[int] = (),
         **kw: Any) -> Observation:
    return Observation(kind, None if seat is None else seat.name,
                       tuple(tile_name(t) for t in tiles), source="simulated", **kw)


Shown = Callable[[Any, HandState, Sequence[Event]], list[Observation | Press]]


def _press(c: Any, after: HandState, events: Sequence[Event]) -> list[Observation | Press]:
    return [Press(c.seat.name, c.kind, 0, source="simulated")]


def _laid(kind: ObservationKind) -> Shown:
    """A command that lays its one tile face up (a flower, a discard, a kong)."""
    return lambda c, after, events: [_obs(kind, c.seat, (c.tile,))]


def _mahjong(c: Any, after: HandState, events: Sequence[Event]) -> list[Observation | Press]:
    return [*_hand_shown(events), *_losers_shown(after)]


# What the table shows of each command, by its class (one look-up: the world asks for every
# command the bots send). Not here: what shows nothing (closing a call window, washing).
_SHOWN: dict[type[Command], Shown] = {
    cm.Claim: _press,
    cm.Throw: lambda c, after, events: [_obs(ObservationKind.DICE, c.seat, dice=tuple(c.dice))],
    cm.Deal: lambda c, after, events: [_obs(ObservationKind.DEAL, None)],
    cm.Draw: lambda c, after, events: [_obs(ObservationKind.DRAW, c.seat)],
    cm.GroundFlower: _laid(ObservationKind.FLOWER),
    cm.Discard: _laid(ObservationKind.DISCARD),
    cm.Expose: lambda c, after, events: [_obs(ObservationKind.EXPOSURE, c.seat, c.tiles)],
    cm.DeclareKong: _laid(ObservationKind.CONCEALED_KONG),
    cm.AddKong: _laid(ObservationKind.ADDED_KONG),
    cm.DeclareMahjong: _mahjong,
}


class ClassicalWorld:
    """The classical families' own part of the world (``FamilyWorld``)."""

    def shown(self, before: HandState, command: Command, after: HandState,
              events: Sequence[Event]) -> Sequence[Observation | Press]:
        found = _SHOWN.get(type(command))
        return [] if found is None else found(command, after, events)

    def mirror(self, table: Table, hand: int) -> HandState:
        return rebuild([
            ev.event_from_json({k: v for k, v in r.items() if k not in ENVELOPE})
            for r in table.store.events_of_hand(hand)
            if r["type"] not in TABLE_EVENTS
        ])

    def settles(self, table: Table, state: HandState) -> Settlement | None:
        """Every hand as the game dealt it, scored as the table scores."""
        from controller.families.classical import ClassicalPart

        assert isinstance(table.part, ClassicalPart)
        shown = {
            seat.name: [tile_name(t) for t in state.concealed_tiles(seat)]
            for seat in state.others_in_turn(state.winner)
        } if state.winner is not None else {}
        result = table.part.score(state, shown)
        return None if result is None else Settlement(net_of(result))


def _hand_shown(events: Sequence[Event]) -> list[Observation]:
    """The hand laid open at a Mah-jongg, true or false."""
    for e in events:
        if isinstance(e, ev.MahjongDeclared):
            return [_obs(ObservationKind.HAND_SHOWN, e.seat, e.concealed,
                         winning=tile_name(e.win_tile))]
        if isinstance(e, ev.FalseMahjong):
            return [_obs(ObservationKind.HAND_SHOWN, e.seat, e.concealed or (),
                         winning="" if e.tile is None else tile_name(e.tile))]
    return []


def _losers_shown(state: HandState) -> list[Observation]:
    """After a Mah-jongg, each of the others in turn to the right exposes his hand (Law 82),
    so that they settle among themselves."""
    if state.result != "mahjong" or state.winner is None:
        return []
    return [_obs(ObservationKind.HAND_SHOWN, seat, state.concealed_tiles(seat))
            for seat in state.others_in_turn(state.winner)]
