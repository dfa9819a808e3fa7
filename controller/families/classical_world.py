"""The classical families' part of the simulated world (:mod:`controller.world`): what the
camera sees of each command, the table's mirror of a hand rebuilt from its store's events, and
the scorer's settlement of the game's own hands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.inputs import Observation, ObservationKind, Press
from controller.live_table import LiveTable
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


class ClassicalWorld:
    """The classical families' own part of the world (``FamilyWorld``)."""

    def shown(self, before: HandState, command: Command, after: HandState,
              events: Sequence[Event]) -> Sequence[Observation | Press]:
        if isinstance(command, cm.Claim):
            return [Press(command.seat.name, command.kind, 0, source="simulated")]
        if isinstance(command, cm.Throw):
            return [_obs(ObservationKind.DICE, command.seat, dice=tuple(command.dice))]
        if isinstance(command, cm.Deal):
            return [_obs(ObservationKind.DEAL, None)]
        if isinstance(command, cm.Draw):
            return [_obs(ObservationKind.DRAW, command.seat)]
        if isinstance(command, cm.GroundFlower):
            return [_obs(ObservationKind.FLOWER, command.seat, (command.tile,))]
        if isinstance(command, cm.Discard):
            return [_obs(ObservationKind.DISCARD, command.seat, (command.tile,))]
        if isinstance(command, cm.Expose):
            return [_obs(ObservationKind.EXPOSURE, command.seat, command.tiles)]
        if isinstance(command, cm.DeclareKong):
            return [_obs(ObservationKind.CONCEALED_KONG, command.seat, (command.tile,))]
        if isinstance(command, cm.AddKong):
            return [_obs(ObservationKind.ADDED_KONG, command.seat, (command.tile,))]
        if isinstance(command, cm.DeclareMahjong):
            return [*_hand_shown(events), *_losers_shown(after)]
        return []

    def mirror(self, table: LiveTable, hand: int) -> HandState:
        return rebuild([
            ev.event_from_json({k: v for k, v in r.items() if k not in ENVELOPE})
            for r in table.store.events_of_hand(hand)
            if r["type"] not in TABLE_EVENTS
        ])

    def settles(self, table: LiveTable, state: HandState) -> Settlement | None:
        """Every hand as the game dealt it, scored as the table scores."""
        assert isinstance(table, Table)
        shown = {
            seat.name: [tile_name(t) for t in state.concealed_tiles(seat)]
            for seat in state.others_in_turn(state.winner)
        } if state.winner is not None else {}
        result = table.score(state, shown)
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
