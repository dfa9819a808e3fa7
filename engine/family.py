"""Every rule family behind one interface, as python-chess serves every variant through one
board: a hand is begun, moved on by ``apply(state, command) -> (state, events)``, and shown by
one public view, whichever family plays it.

The classical families (Code of 1924, Pung-Chow, Classical) are one engine whose rulesets
are data (``engine.game``); the American game plays from a card (``engine.american.game``).
Both refuse a command with a :class:`~engine.errors.RuleViolation` carrying the rule and a
stable ``code``, and settle in :class:`~engine.payment.Payment` s. A caller that holds a
:class:`RuleFamily` never asks which family it is.

>>> from engine import commands as cm
>>> family = family_for("classical/dmjl")  # a scoring preset plays as its family
>>> state, _ = family.new_hand("mirror", hand=1)
>>> state, events = family.apply(state, cm.Throw(seat=Seat.E, dice=(3, 4)))
>>> family.ruleset, [e.to_json()["type"] for e in events], family.public_view(state)["phase"]
('classical', ['DiceThrown'], 'break')
>>> family_for("american")
Traceback (most recent call last):
...
ValueError: american is played from a card: pass the compiled card (config.cards.card_at)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from engine.commands import Command
from engine.events import Event
from engine.rulesets import entry
from engine.seats import Seat

if TYPE_CHECKING:
    from engine.american.compiled import CompiledCard
    from engine.american.state import AmericanHand
    from engine.state import HandState, Mode

S = TypeVar("S")


class RuleFamily(Protocol, Generic[S]):
    """One rule family as the table sees it. ``S``: the family's hand state. ``apply`` checks
    the whole command before anything changes and returns the hand after it: always use that
    one (the classical engine changes its hand in place and returns it, for speed; the
    American one returns a new hand and leaves the one it was given as it was)."""

    @property
    def ruleset(self) -> str: ...

    def new_hand(self, mode: Mode, *, hand: int = 1,
                 prevailing: Seat | None = Seat.E) -> tuple[S, Sequence[Event]]: ...

    def apply(self, state: S, command: Command) -> tuple[S, Sequence[Event]]: ...

    def public_view(self, state: S) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Classical:
    """The classical families: one engine, the ruleset as data (``engine.rules``)."""

    ruleset: str

    def new_hand(self, mode: Mode, *, hand: int = 1,
                 prevailing: Seat | None = Seat.E) -> tuple[HandState, Sequence[Event]]:
        from engine.game import new_hand

        return new_hand(self.ruleset, mode, prevailing=prevailing, hand=hand)

    def apply(self, state: HandState, command: Command) -> tuple[HandState, Sequence[Event]]:
        from engine.game import apply

        return apply(state, command)

    def public_view(self, state: HandState) -> dict[str, Any]:
        from engine.views import public_view

        return public_view(state)


@dataclass(frozen=True)
class American:
    """The American game, played from ``card`` (each table size its own ruleset name).
    Prevailing winds have no place in it: ``prevailing`` is ignored."""

    ruleset: str
    card: CompiledCard = field(repr=False)

    def new_hand(self, mode: Mode, *, hand: int = 1,
                 prevailing: Seat | None = Seat.E) -> tuple[AmericanHand, Sequence[Event]]:
        from engine.american.family import options_for
        from engine.american.game import new_hand

        return new_hand(self.card, options_for(self.ruleset, self.card), mode)

    def apply(self, state: AmericanHand,
              command: Command) -> tuple[AmericanHand, Sequence[Event]]:
        from engine.american.game import apply

        return apply(state, command)

    def public_view(self, state: AmericanHand) -> dict[str, Any]:
        from engine.american.game import public_view

        return public_view(state)


def family_for(ruleset: str, card: CompiledCard | None = None) -> RuleFamily[Any]:
    """The family that plays ``ruleset`` (any name of ``engine.rulesets``; a scoring preset
    plays as its family). The American game needs its ``card``; without one, the engine's
    caller has not loaded it, and reading a card file is not the engine's business (it is
    I/O): :class:`ValueError`."""
    found = entry(ruleset)
    if found.family != "american":
        return Classical(found.plays)
    if card is None:
        raise ValueError(f"{found.name} is played from a card: pass the compiled card "
                         "(config.cards.card_at)")
    return American(found.name, card)


# -- Bots: each family's players, for a hand played with no table -----------------------------
# `mjtable simulate`'s world plays a whole hand through these without knowing the family: it
# deals with ``players_for`` and lets the players send their commands through ``HandInPlay``.


class HandInPlay(Protocol):
    """What a family's bots play against: the hand as it stands, and a way to send a command
    (the hand moves on when it is accepted; a refused ``trial`` is no fault and answers False,
    any other refusal raises)."""

    @property
    def state(self) -> Any: ...

    def send(self, command: Command, trial: bool = False) -> bool: ...


class Players(Protocol):
    """A family's bots at one full-information hand, dealt when they sat down."""

    @property
    def dealt(self) -> Any:
        """The hand as dealt (the full engine's, every tile known)."""
        ...

    def play(self, hand: HandInPlay) -> Iterator[None]:
        """Play ``hand`` (begun from :attr:`dealt`) to its end through ``hand.send``, pausing
        after each step a table shows at once (a discard, a call window's claims, a round of
        Charleston passes); RuntimeError if it does not end."""
        ...


def players_for(family: RuleFamily[Any], rng: random.Random, *, hand: int = 1,
                prevailing: Seat | None = Seat.E) -> Players:
    """The family's bots, with a hand dealt from ``rng`` (then each bot seeded from it), as
    hand ``hand`` of a game whose prevailing wind is ``prevailing`` (the American game has
    none)."""
    if isinstance(family, American):
        from engine.american.bots import AmericanPlayers
        from engine.american.family import options_for

        return AmericanPlayers(family.card, options_for(family.ruleset, family.card), rng)
    if isinstance(family, Classical):
        from engine.bots import ClassicalPlayers

        return ClassicalPlayers(family.ruleset, rng, hand=hand, prevailing=prevailing)
    raise TypeError(f"no bots for {family!r}")
