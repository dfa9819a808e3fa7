"""The simulated table's real world for the American game: a full-information hand played by
``engine.american``'s bots, each move turned into what the table shows.

Like :mod:`controller.world`: the camera sees counts of what goes face down (Charleston and
courtesy passes), the faces of what goes face up (discards, exposures, Joker exchanges, the hand
shown at Mah Jongg), and the votes; calls are button presses. The service mirrors the hand from
those alone; the simulation compares the two public views when the hand ends.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from controller.families.american import AmericanPart
from controller.inputs import Observation, ObservationKind
from controller.table import Table
from controller.world import Claims, Step, World
from engine.american import commands as am
from engine.american.bots import GreedyBot, PlayStats, advance, shown_at_mahjong
from engine.american.compiled import CompiledCard
from engine.american.family import options_for
from engine.american.game import AmericanHand, AmericanOptions, apply, new_hand, public_view
from engine.commands import Command
from engine.errors import RuleViolation
from engine.seats import SEATS, Seat
from engine.tiles import tile_name

MAX_ROUNDS = 2000


def _obs(kind: ObservationKind, seat: Seat, tiles: tuple[int, ...] = (), zone: str = "",
         count: int = 0) -> Observation:
    return Observation(kind, seat.name, tuple(tile_name(t) for t in tiles), zone=zone,
                       count=count, source="simulated")


class AmericanHandWorld:
    """One American hand of the world. Iterate :meth:`steps` to play it."""

    def __init__(self, card: CompiledCard, options: AmericanOptions, rng: random.Random) -> None:
        self.state, _ = new_hand(card, options, "full", rng)
        self.bots = {s: GreedyBot(random.Random(rng.random())) for s in SEATS}
        self.stats = PlayStats()
        self._shown: list[Step] = []
        self._calls: list[tuple[str, str]] = []

    def _seen(self, command: Command, concealed: tuple[int, ...]) -> None:
        """What the table shows of a command the world just applied."""
        if isinstance(command, am.Call):
            self._calls.append((command.seat.name, "mahjong" if command.kind == "mahjong"
                                else "pung"))  # the board's call button (american_mirror)
            return
        if self._calls:
            self._shown.append(Claims(tuple(self._calls)))
            self._calls = []
        seat = getattr(command, "seat", None)
        if isinstance(command, am.CharlestonPass):
            zone = f"blind-{command.blind}" if command.blind else ""
            self._shown.append(_obs(ObservationKind.PASS, command.seat, zone=zone, count=3))
        elif isinstance(command, am.CharlestonVote):
            self._shown.append(_obs(ObservationKind.VOTE, command.seat,
                                    zone="stop" if command.stop else "go"))
        elif isinstance(command, am.CourtesyOffer):
            self._shown.append(_obs(ObservationKind.COURTESY_OFFER, command.seat,
                                    count=command.count))
        elif isinstance(command, am.CourtesyPass):
            self._shown.append(_obs(ObservationKind.COURTESY_PASS, command.seat,
                                    count=len(command.tiles)))
        elif isinstance(command, am.Draw):
            self._shown.append(_obs(ObservationKind.DRAW, command.seat))
        elif isinstance(command, am.Discard):
            self._shown.append(_obs(ObservationKind.DISCARD, command.seat, (command.tile,)))
        elif isinstance(command, am.Expose):
            self._shown.append(_obs(ObservationKind.EXPOSURE, command.seat, command.tiles))
        elif isinstance(command, am.JokerExchange):
            self._shown.append(_obs(ObservationKind.JOKER_EXCHANGE, command.seat,
                                    (command.tile,), zone=f"rack-{command.owner.name}"))
        elif isinstance(command, am.DeclareMahJongg) and seat is not None:
            self._shown.append(_obs(ObservationKind.HAND_SHOWN, seat, concealed))
        # CloseWindow: the table closes it by itself (the courtesy pause, the next draw).

    def send(self, command: Command, trial: bool = False) -> bool:
        """Play a bot's command (the bots' :class:`~engine.american.bots.HandInPlay`)."""
        concealed: tuple[int, ...] = ()
        if isinstance(command, am.DeclareMahJongg):
            concealed = shown_at_mahjong(self.state, command.seat)  # on the rack (M-1)
        try:
            self.state, _ = apply(self.state, command)
        except RuleViolation as exc:
            if trial:
                return False
            raise RuntimeError(f"the world refused a bot's {command.to_json()}: {exc}") from exc
        self._seen(command, concealed)
        return True

    def steps(self) -> Iterator[Step]:
        """Play the hand; yield what the table shows, step by step."""
        if self.bots[Seat.E].complete(self.state, Seat.E):
            self.send(am.DeclareMahJongg(Seat.E))  # a Heavenly Hand (CH-9)
        for _ in range(MAX_ROUNDS):
            if self.state.result is not None:
                break
            advance(self, self.bots, self.stats)
            if self._calls and self.state.step != "window":
                self._shown.append(Claims(tuple(self._calls)))
                self._calls = []
            yield from self._shown
            self._shown = []
        else:
            raise RuntimeError("the simulated American hand did not end")
        yield from self._shown
        self._shown = []

    def result(self) -> AmericanHand:
        return self.state


class AmericanSimulation:
    """The American game's world (:class:`AmericanHandWorld`, on the table's card) and its
    checks."""

    def __init__(self, table: Table) -> None:
        assert isinstance(table.part, AmericanPart)
        self.table = table
        self.card: CompiledCard = table.part.card
        self.options: AmericanOptions = options_for(table.settings.ruleset, self.card)

    def world(self, table: Table, rng: random.Random) -> World:
        return AmericanHandWorld(self.card, self.options, rng)

    def views(self, table: Table, world: Any,
              hand: int) -> tuple[dict[str, Any], dict[str, Any]]:
        mirror = table.family.rebuild(table.store.events_of_hand(hand))
        assert mirror is not None
        a, b = public_view(world.result()), public_view(mirror)
        a.pop("mode")
        b.pop("mode")
        return a, b

    def check_score(self, table: Table, world: Any, hand: int) -> list[str]:
        """The scoresheet's entry for the hand settles as the game did (the League's
        payments, SC-1..SC-12)."""
        result = world.result().result or {}
        truth = {str(k): int(v) for k, v in (result.get("net") or {}).items()}
        entry: dict[str, Any] = next(
            (e for e in reversed(table.sheet) if e.get("hand") == hand), {})
        if entry.get("net") != truth:
            return [f"hand {hand}: the table settled {entry.get('net')}, the game "
                    f"settles {truth}"]
        return []
