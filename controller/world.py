"""The simulated table's real world: a full-information hand played by the engine's bots.

``mjtable simulate`` needs players and a camera. Here the engine plays a whole hand in full
mode with its bots, step by step, and each step is turned into what the table would show:
an :class:`Observation` (the camera's view: dice, deal, draws, flowers, discards, sets laid,
the hand shown at Mah-jongg) or button :class:`Press`es (the bots' claims on a discard). The
service never sees this world's state; it mirrors the game from those inputs alone, so
comparing the two at the end of a hand checks the whole chain.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller.inputs import Observation, ObservationKind
from controller.scoresheet import net_of
from controller.store import EventStore
from controller.table import ENVELOPE, TABLE_EVENTS, Table
from engine import commands as cm
from engine import events as ev
from engine.bots import GreedyBot, SeatView
from engine.game import HandState, apply, new_hand, public_view, rebuild
from engine.rules import Ruleset, get_ruleset
from engine.seats import SEATS, Seat
from engine.tiles import tile_name
from engine.wall import breaker, throw_dice

MAX_STEPS = 2000


@dataclass(frozen=True)
class Claims:
    """The seats that call on the discard just shown, in the order they press."""

    presses: tuple[tuple[str, str], ...]  # (seat, kind)


Step = Observation | Claims


def _obs(
    kind: ObservationKind, seat: Seat | None, tiles: Sequence[int] = (), **kw: object
) -> Observation:
    return Observation(
        kind,
        None if seat is None else seat.name,
        tuple(tile_name(t) for t in tiles),
        source="simulated",
        **kw,  # type: ignore[arg-type]
    )


class SimulatedHand:
    """One hand of the world. Iterate :meth:`steps` to play it."""

    def __init__(
        self,
        ruleset: Ruleset,
        rng: random.Random,
        prevailing: Seat | None,
        hand: int,
        bots: Sequence[GreedyBot] | None = None,
    ) -> None:
        self.rng = rng
        self.state, _ = new_hand(ruleset, "full", rng=rng, prevailing=prevailing, hand=hand)
        self.bots = list(bots) if bots else [GreedyBot(random.Random(rng.random())) for _ in SEATS]
        self.views = [SeatView(self.state, s) for s in SEATS]

    def _do(self, command: cm.Command) -> list[ev.Event]:
        _, events = apply(self.state, command)
        return events

    def _shown(self, command: cm.Command, events: list[ev.Event]) -> Observation | None:
        """What the camera sees of a command the world just applied."""
        if isinstance(command, cm.Throw):
            return _obs(ObservationKind.DICE, command.seat, dice=tuple(command.dice))
        if isinstance(command, cm.Deal):
            return _obs(ObservationKind.DEAL, None)
        if isinstance(command, cm.Draw):
            return _obs(ObservationKind.DRAW, command.seat)
        if isinstance(command, cm.GroundFlower):
            return _obs(ObservationKind.FLOWER, command.seat, (command.tile,))
        if isinstance(command, cm.Discard):
            return _obs(ObservationKind.DISCARD, command.seat, (command.tile,))
        if isinstance(command, cm.Expose):
            return _obs(ObservationKind.EXPOSURE, command.seat, command.tiles)
        if isinstance(command, cm.DeclareKong):
            return _obs(ObservationKind.CONCEALED_KONG, command.seat, (command.tile,))
        if isinstance(command, cm.AddKong):
            return _obs(ObservationKind.ADDED_KONG, command.seat, (command.tile,))
        if isinstance(command, cm.DeclareMahjong):
            for e in events:
                if isinstance(e, ev.MahjongDeclared):
                    return _obs(
                        ObservationKind.HAND_SHOWN, e.seat, e.concealed,
                        winning=tile_name(e.win_tile),
                    )
                if isinstance(e, ev.FalseMahjong):
                    return _obs(
                        ObservationKind.HAND_SHOWN, e.seat, e.concealed or (),
                        winning="" if e.tile is None else tile_name(e.tile),
                    )
        return None

    def steps(self) -> Iterator[Step]:
        """Play the hand; yield what the table shows, step by step."""
        state = self.state
        first = throw_dice(self.rng)
        throws = (
            cm.Throw(seat=Seat.E, dice=first),
            cm.Throw(seat=breaker(sum(first)), dice=throw_dice(self.rng)),
        )
        for throw in throws:  # Laws 15-16
            self._do(throw)
            yield _obs(ObservationKind.DICE, throw.seat, dice=tuple(throw.dice))
        self._do(cm.Deal())
        yield _obs(ObservationKind.DEAL, None)
        # Law 22: beginning with East, each grounds flowers and replaces them.
        for seat in SEATS:
            while state.phase == "play":
                command = self.bots[seat].act(self.views[seat])
                if not isinstance(command, cm.GroundFlower | cm.Draw | cm.DeclareKong):
                    break
                shown = self._shown(command, self._do(command))
                if shown is not None:
                    yield shown
        for _ in range(MAX_STEPS):
            if state.phase == "ended":
                return
            if state.phase in ("claims", "rob"):
                owner = (
                    state.claimable[1]
                    if state.phase == "claims" and state.claimable
                    else (state.rob[1] if state.rob else state.turn)
                )
                presses: list[tuple[str, str]] = []
                for k in range(1, 4):
                    seat = SEATS[(owner + k) % 4]
                    command = self.bots[seat].act(self.views[seat])
                    if isinstance(command, cm.Claim):
                        self._do(command)
                        presses.append((seat.name, command.kind))
                self._do(cm.CloseClaims())
                if presses:
                    yield Claims(tuple(presses))
                continue
            if state.phase == "award":
                assert state.award is not None
                seat = state.award[0]
            else:
                owing = [s for s in SEATS if state.seats[s].owed_loose]
                seat = owing[0] if owing else state.turn
            command = self.bots[seat].act(self.views[seat])
            if command is None:
                raise RuntimeError(f"{seat} has nothing to do in phase {state.phase}")
            shown = self._shown(command, self._do(command))
            if shown is not None:
                yield shown
            if state.result == "mahjong":
                yield from self._losers_shown()
        raise RuntimeError("the simulated hand did not end")

    def _losers_shown(self) -> Iterator[Observation]:
        """After a Mah-jongg, each of the others in turn to the right exposes his hand
        (Law 82), so that they settle among themselves."""
        state = self.state
        assert state.winner is not None
        for seat in state.others_in_turn(state.winner):
            yield _obs(ObservationKind.HAND_SHOWN, seat, state.concealed_tiles(seat))

    def result(self) -> HandState:
        return self.state


class World(Protocol):
    """One hand of the simulated world: what the table shows, step by step."""

    @property
    def state(self) -> Any: ...

    def steps(self) -> Iterator[Step]: ...


class SimulatedFamily(Protocol):
    """How one rule family's world is played and the table's mirror checked against it
    (:func:`controller.families.simulation_for` picks it)."""

    def world(self, table: Table, rng: random.Random) -> World: ...

    def views(self, table: Table, world: Any,
              hand: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """The game's public view of ``hand`` and the table's mirror's, to be equal."""
        ...

    def check_score(self, table: Table, world: Any, hand: int) -> list[str]:
        """Where the table's scoresheet entry for ``hand`` differs from the game's."""
        ...


def _mirror_of_hand(store: EventStore, hand: int) -> HandState:
    events = [
        ev.event_from_json({k: v for k, v in r.items() if k not in ENVELOPE})
        for r in store.events_of_hand(hand)
        if r["type"] not in TABLE_EVENTS
    ]
    return rebuild(events)


class ClassicalSimulation:
    """The classical families' world (:class:`SimulatedHand`) and its checks."""

    def __init__(self, ruleset: str) -> None:
        self.ruleset = get_ruleset(ruleset)

    def world(self, table: Table, rng: random.Random) -> World:
        prevailing = Seat[table.prevailing] if table.prevailing else None
        return SimulatedHand(self.ruleset, rng, prevailing, table.hand_no)

    def views(self, table: Table, world: Any,
              hand: int) -> tuple[dict[str, Any], dict[str, Any]]:
        a, b = public_view(world.result()), public_view(_mirror_of_hand(table.store, hand))
        a.pop("mode")
        b.pop("mode")
        return a, b

    def check_score(self, table: Table, world: Any, hand: int) -> list[str]:
        """The table's settlement of a won hand against the game's: every hand as the game
        dealt it, scored as the table scores (nothing, if the table has no scorer)."""
        from controller.families.classical import ClassicalPart

        assert isinstance(table.part, ClassicalPart)
        state = world.result()
        shown = {
            seat.name: [tile_name(t) for t in state.concealed_tiles(seat)]
            for seat in state.others_in_turn(state.winner)
        } if state.winner is not None else {}
        result = table.part.score(state, shown)
        if result is None:
            return []
        truth = net_of(result)
        entry: dict[str, Any] = next(
            (e for e in reversed(table.sheet) if e.get("hand") == hand), {}
        )
        if entry.get("net") != truth:
            return [f"hand {hand}: the table settled {entry.get('net')}, the game's hands "
                    f"settle {truth}"]
        return []
