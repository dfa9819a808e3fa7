"""The simulated table's real world: a full-information hand played by the engine's bots.

``mjtable simulate`` needs players and a camera. Here the engine's bots play a whole hand in
full mode (``engine.family.players_for``), step by step, and each command is turned into what
the table would show: an :class:`Observation` (the camera's view: dice, the deal, draws,
flowers, discards, sets laid, passes, the hand shown at Mah-jongg) or button presses (the
bots' calls on a discard, gathered into one :class:`Claims` per call window). The service
never sees this world's state; it mirrors the game from those inputs alone, so comparing the
two at the end of a hand checks the whole chain.

The world knows no family: it plays through the engine's family interface, and each family
gives only what is its own (:class:`FamilyWorld`, in ``controller/families/``): what the table
shows of a command, the table's mirror of a hand, and what the hand settles.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller.inputs import Observation, Press
from controller.table import Table
from engine.commands import Command
from engine.errors import RuleViolation
from engine.events import Event
from engine.family import RuleFamily, players_for
from engine.seats import Seat


@dataclass(frozen=True)
class Claims:
    """The seats that call on the discard just shown, in the order they press."""

    presses: tuple[tuple[str, str], ...]  # (seat, button)


Step = Observation | Claims


@dataclass(frozen=True)
class Settlement:
    """What a hand settles by the game's own hands: each seat's net, or None where the
    table's scorer answers with an error instead (the sheet then holds none either)."""

    net: dict[str, int] | None


class FamilyWorld(Protocol):
    """What is a rule family's own in the simulated world (``controller/families/``)."""

    def shown(self, before: Any, command: Command, after: Any,
              events: Sequence[Event]) -> Sequence[Observation | Press]:
        """What the table shows of ``command``, just applied to the hand ``before`` (the
        same object as ``after`` where the family's engine moves its hand on in place)
        giving ``after`` and ``events``: what the camera sees, or a call button pressed."""
        ...

    def mirror(self, table: Table, hand: int) -> Any:
        """The table's mirror of hand ``hand``, as its store holds it."""
        ...

    def settles(self, table: Table, state: Any) -> Settlement | None:
        """What the ended hand ``state`` settles, scored as the table scores (None: the
        table keeps no score of it)."""
        ...


class HandWorld:
    """One hand of the world, any family's. Iterate :meth:`steps` to play it; :attr:`state`
    is the full hand as it stands (what the rendered camera lays out)."""

    def __init__(self, family: RuleFamily[Any], part: FamilyWorld, rng: random.Random, *,
                 hand: int = 1, prevailing: Seat | None = Seat.E) -> None:
        self.family = family
        self.part = part
        self.players = players_for(family, rng, hand=hand, prevailing=prevailing)
        self.state: Any = self.players.dealt
        self._shown: list[Step] = []
        self._presses: list[tuple[str, str]] = []

    def send(self, command: Command, trial: bool = False) -> bool:
        """Play a bot's command (``engine.family.HandInPlay``) and note what it shows."""
        before = self.state
        try:
            self.state, events = self.family.apply(self.state, command)
        except RuleViolation as exc:
            if trial:
                return False
            raise RuntimeError(f"the world refused a bot's {command.to_json()}: {exc}") from exc
        seen = self.part.shown(before, command, self.state, events)
        if not seen:
            self._close_calls()  # the next move of the game ends the window's presses
        for step in seen:
            if isinstance(step, Press):
                self._presses.append((step.seat, step.button))
            else:
                self._close_calls()
                self._shown.append(step)
        return True

    def _close_calls(self) -> None:
        if self._presses:
            self._shown.append(Claims(tuple(self._presses)))
            self._presses = []

    def steps(self) -> Iterator[Step]:
        """Play the hand; yield what the table shows, step by step."""
        for _ in self.players.play(self):
            self._close_calls()
            yield from self._take()
        yield from self._take()

    def _take(self) -> list[Step]:
        shown, self._shown = self._shown, []
        return shown

    def result(self) -> Any:
        return self.state


class Simulation:
    """How ``mjtable simulate`` plays a table's family: the bots' world, and the checks of the
    table's mirror and scoresheet against it (:func:`controller.families.simulation_for`)."""

    def __init__(self, family: RuleFamily[Any], part: FamilyWorld) -> None:
        self.family = family
        self.part = part

    def world(self, table: Table, rng: random.Random) -> HandWorld:
        prevailing = Seat[table.prevailing] if table.prevailing else None
        return HandWorld(self.family, self.part, rng, hand=table.hand_no,
                         prevailing=prevailing)

    def views(self, table: Table, world: HandWorld,
              hand: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """The game's public view of ``hand`` and the table's mirror's, to be equal."""
        a = self.family.public_view(world.result())
        b = self.family.public_view(self.part.mirror(table, hand))
        a.pop("mode")
        b.pop("mode")
        return a, b

    def check_score(self, table: Table, world: HandWorld, hand: int) -> list[str]:
        """Where the table's scoresheet entry for ``hand`` differs from what the game's own
        hands settle (nothing, if the table keeps no score of it)."""
        truth = self.part.settles(table, world.result())
        if truth is None:
            return []
        entry: dict[str, Any] = next(
            (e for e in reversed(table.sheet) if e.get("hand") == hand), {})
        if entry.get("net") != truth.net:
            return [f"hand {hand}: the table settled {entry.get('net')}, the game's hands "
                    f"settle {truth.net}"]
        return []
