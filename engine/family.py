"""Every rule family behind one interface, as python-chess serves every variant through one
board: a hand is begun, moved on by ``apply(state, command) -> (state, events)``, and shown by
one public view, whichever family plays it.

The classical families (Code of 1924, Pung-Chow, Classical) are one engine whose rulesets
are data (``engine.game``); the American game plays from a card (``engine.american.game``).
Both refuse a command with a :class:`~engine.errors.RuleViolation` carrying the rule and a
stable ``code``, and settle in :class:`~engine.payment.Payment` s. A caller that holds a
:class:`RuleFamily` never asks which family it is.

The family also says how its events are kept: ``records_of`` turns the events a command caused
into the bodies a log stores and the parts it may publish (:class:`Recorded`), ``published_of``
gives those parts again from a stored record, and ``rebuild`` brings a hand back from its
stored records. The classical engine stores each event's JSON and folds the events again; the
American one stores each event's public and private parts with the command that caused it, and
applies the commands again. Either way the caller only hands records over.

`mjtable play` and `mjtable replay` (``engine.players``) reach each family the same way: its
``play`` seats its bots for whole hands and counts them in its summary, its ``replay_hand``
rebuilds one hand of a log and checks it against the record (``family_of_log`` says which family
wrote a log).

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

import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from engine import events as ev
from engine.commands import Command
from engine.errors import MalformedInput
from engine.events import Event
from engine.messages import COMMANDS, EVENTS
from engine.rulesets import entry
from engine.seats import Seat
from engine.tiles import tile_name

if TYPE_CHECKING:
    from engine.american.compiled import CompiledCard
    from engine.american.state import AmericanHand
    from engine.record import LoggedHand, ReplayedHand
    from engine.state import HandState, Mode

Write = Callable[[str], None]

S = TypeVar("S")
Record = Mapping[str, Any]
ENVELOPE = ("seq", "hand", "ts")  # what the table adds to each body it stores
# A referee's amendment of an American move, kept as a record of the table's own: the rebuild
# applies ``replacement`` (a command's JSON, or None: struck out) in place of move ``at``.
AMENDED = "Amended"
# The keys of a stored American record that are published (its ``private`` and ``command``
# never are: concealed tiles never leave the table, American DH-4, M-1).
AMERICAN_PUBLIC = ("seq", "hand", "ts", "type", "seat", "public", "time_us")


@dataclass(frozen=True)
class Recorded:
    """One event as a log keeps it: ``body`` is stored (the table adds its envelope),
    ``public`` is published on the events topic, ``decision`` (a closed call window's
    adjudication, with its rule) on the adjudications topic."""

    body: dict[str, Any]
    public: dict[str, Any]
    decision: dict[str, Any] | None = None


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

    def ended(self, state: S) -> bool:
        """Whether the hand is over (won, drawn, thrown in): it is settled next."""
        ...

    def records_of(self, events: Sequence[Event],
                   command: Command | None = None) -> list[Recorded]:
        """The events ``command`` caused (None: a new hand's), as the log keeps them."""
        ...

    def published_of(self, record: Record) -> Recorded | None:
        """A stored record's published parts again (its envelope included); None for a record
        that is not this family's engine's (the table's own)."""
        ...

    def rebuild(self, records: Sequence[Record]) -> S | None:
        """A hand brought back from its stored records (the table's own among them are
        skipped); None when no record of its engine's is among them."""
        ...

    def play(self, hands: int, seed: int, *, players: int, names: Sequence[str],
             named: str = "", write: Write | None = None,
             cross_check: bool = True) -> dict[str, Any]:
        """Bots play ``hands`` whole hands from ``seed`` at a table of ``players`` (``names``
        in the first hand's seat order), every hand checked; the summary of `mjtable play`.
        ``named``: the ruleset as the caller named it (a scoring preset plays as its family);
        ``write`` receives the event log line by line; ``cross_check`` also rebuilds and
        mirrors every hand."""
        ...

    def replay_hand(self, logged: LoggedHand, where: str) -> ReplayedHand:
        """One hand of a `mjtable play --log` file rebuilt, under the ruleset its own first
        event names, and checked against its record; ``MalformedInput`` naming ``where`` and
        the field for a hand that cannot be read."""
        ...

    def report_head(self) -> dict[str, Any]:
        """What a replay report of this family's log says before its counts."""
        ...


def _body(record: Record) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ENVELOPE}


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

    def ended(self, state: HandState) -> bool:
        return state.phase == "ended"

    def records_of(self, events: Sequence[Event],
                   command: Command | None = None) -> list[Recorded]:
        return [Recorded(e.to_json(), e.public_json(), _decision(e)) for e in events]

    def published_of(self, record: Record) -> Recorded | None:
        if record["type"] not in EVENTS.types:
            return None
        event: Event = EVENTS.decode(_body(record))  # type: ignore[assignment]
        envelope = {k: record[k] for k in ENVELOPE}
        return Recorded(dict(record), {**envelope, **event.public_json()}, _decision(event))

    def rebuild(self, records: Sequence[Record]) -> HandState | None:
        from engine.game import rebuild

        events: list[Event] = [EVENTS.decode(_body(r))  # type: ignore[misc]
                               for r in records if r["type"] in EVENTS.types]
        return rebuild(events) if events else None

    def play(self, hands: int, seed: int, *, players: int, names: Sequence[str],
             named: str = "", write: Write | None = None,
             cross_check: bool = True) -> dict[str, Any]:
        from engine.simulate import play_hands

        return play_hands(self.ruleset, hands, seed, players=players, names=names,
                          named=named or self.ruleset, write=write, cross_check=cross_check)

    def replay_hand(self, logged: LoggedHand, where: str) -> ReplayedHand:
        from engine.record import check_hand

        return check_hand(logged, where)

    def report_head(self) -> dict[str, Any]:
        return {}


def _decision(event: Event) -> dict[str, Any] | None:
    """A classical call window's adjudication (Code 1924, Laws 50-52), as published."""
    if not isinstance(event, ev.ClaimsClosed):
        return None
    return {
        "discard": tile_name(event.discard), "discarder": event.discarder.name,
        "claims": list(event.claims),
        "winner": None if event.winner is None else event.winner.name,
        "kind": event.kind, "rule": event.rule,
        "opened_us": event.opened_us,  # the window on the table's clock
        "closed_us": event.closed_us,
    }


@dataclass(frozen=True)
class American:
    """The American game, played from ``card`` (each table size its own ruleset name).
    Prevailing winds have no place in it: ``prevailing`` is ignored."""

    ruleset: str
    card: CompiledCard = field(repr=False)

    def __post_init__(self) -> None:
        # The family's messages decode once it is at hand: a log or a store read through it
        # holds them (engine.messages).
        from engine.american import commands, events  # noqa: F401

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

    def ended(self, state: AmericanHand) -> bool:
        return state.result is not None

    def records_of(self, events: Sequence[Event],
                   command: Command | None = None) -> list[Recorded]:
        from engine.american import commands as am
        from engine.american.events import AmericanEvent

        out = []
        for i, event in enumerate(events):
            assert isinstance(event, AmericanEvent), "the American family's events"
            body: dict[str, Any] = {
                "type": event.kind, "seat": None if event.seat is None else event.seat.name,
                "public": event.public, "private": event.private}
            if i == 0 and command is not None:  # the rebuild applies it again
                body["command"] = command.to_json()
                if isinstance(command, am.Call) and command.time_us is not None:
                    body["time_us"] = command.time_us  # the board's time of the press (C-9)
            out.append(self._recorded(body, event.kind == "WindowClosed"))
        return out

    def _recorded(self, record: Record, decided: bool) -> Recorded:
        public = {k: record[k] for k in AMERICAN_PUBLIC if k in record}
        # A closed window's decision is its public part, with its rule (C-9).
        return Recorded(dict(record), public, dict(record["public"] or {}) if decided else None)

    def published_of(self, record: Record) -> Recorded | None:
        if "public" not in record:  # the table's own records carry no public/private parts
            return None
        return self._recorded(record, record["type"] == "WindowClosed")

    def rebuild(self, records: Sequence[Record]) -> AmericanHand | None:
        """A fresh mirror given every command the table accepted, as the referee amended
        them (``Amended`` records: seq to the command that replaces its own, None to strike
        it out; a later amendment of the same move wins)."""
        from engine.american.family import options_for
        from engine.american.game import apply, new_hand

        if not any("public" in r for r in records):
            return None
        replaced = {int(r["at"]): r.get("replacement") for r in records
                    if r["type"] == AMENDED}
        state, _ = new_hand(self.card, options_for(self.ruleset, self.card), "mirror")
        for record in records:
            raw = replaced.get(record["seq"], record.get("command"))
            if raw is not None and record.get("command") is not None:
                state, _ = apply(state, decode_command(raw, f"seq {record['seq']}: command"))
        return state

    def play(self, hands: int, seed: int, *, players: int, names: Sequence[str],
             named: str = "", write: Write | None = None,
             cross_check: bool = True) -> dict[str, Any]:
        """The card's bots always mirror their hands; the summary names the ruleset by its
        table size (``american/3``)."""
        from engine.american.family import play

        summary = play(self.ruleset, hands, seed, self.card, write=write)
        summary["names"] = list(names)
        return summary

    def replay_hand(self, logged: LoggedHand, where: str) -> ReplayedHand:
        from engine.american.family import check_hand

        return check_hand(self.card, logged, where)

    def report_head(self) -> dict[str, Any]:
        return {"ruleset": "american"}


def decode_command(raw: Any, where: str) -> Command:
    """An engine command from its JSON form; :class:`MalformedInput` naming ``where``."""
    command = COMMANDS.decode(raw, where)
    if not isinstance(command, Command):
        raise MalformedInput(where, "not a command")
    return command


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


# A log written from a card: its messages carry the family's JSON types (engine.messages).
_CARD_LOG = '"type":"american/'


def family_of_log(lines: Sequence[str], card: Callable[[], CompiledCard]) -> RuleFamily[Any]:
    """The family whose engine wrote a `mjtable play --log` file, told by its first line. A
    family played from a card writes its own message types, and ``card()`` is asked for the
    card the log was played on (loading it is the caller's I/O); a classical log names its
    first hand's ruleset there (each hand is checked under the one it names)."""
    first = next((line for line in lines if line.strip()), "")
    if _CARD_LOG in first.replace(" ", ""):
        return American("american", card())
    return Classical(_named_ruleset(first))


def _named_ruleset(line: str) -> str:
    """The ruleset a log's line names; "" for one that names none (the log's own reading
    then says what is wrong with it)."""
    try:
        named = json.loads(line).get("ruleset")
    except (ValueError, AttributeError):
        return ""
    return named if isinstance(named, str) else ""


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
