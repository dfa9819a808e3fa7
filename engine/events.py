"""Events: what happened. A hand's state is the fold of its events (``engine.game.rebuild``).

Each event type lists its ``PRIVATE`` fields: the tiles a real table does not show face up
(a drawn tile, a dealt hand, the order of the wall). ``public_json()`` leaves them out; the
MQTT service publishes only that form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.commands import Command
from engine.messages import Json, Message, added, event
from engine.rules import ClaimKind
from engine.seats import Seat
from engine.tiles import Tile


class Event(Message):
    """Base of every event."""

    PRIVATE: ClassVar[frozenset[str]] = frozenset()

    def public_json(self) -> dict[str, Json]:
        """The JSON form without what the table keeps face down."""
        out = self.to_json()
        for name in self.PRIVATE:
            out.pop(name, None)
        return out


Event._registry = "event"  # type: ignore[attr-defined]


@event("HandStarted")
@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A new hand. ``wall`` (full mode only) is every tile in the order it will be drawn from
    the front, before the break; in mirror mode the engine knows only the count."""

    PRIVATE: ClassVar[frozenset[str]] = frozenset({"wall"})

    ruleset: str
    mode: str  # "full" or "mirror"
    prevailing: Seat | None
    number: int = 0  # the hand's number in the match
    wall: tuple[Tile, ...] | None = None
    players: tuple[Seat, ...] = (Seat.E, Seat.S, Seat.W, Seat.N)  # the seats in play


@event("DiceThrown")
@dataclass(frozen=True, slots=True)
class DiceThrown(Event):
    """``selects``: for East's throw, the seat who breaks (Law 15); for the second, the
    stack counted from the right of that seat's wall where the wall is broken (Law 16)."""

    seat: Seat
    dice: tuple[int, ...]
    selects: int


@event("WallBroken")
@dataclass(frozen=True, slots=True)
class WallBroken(Event):
    """The wall is opened at ``stack`` (from the right) of ``wall_of``'s wall; the lifted stack
    gives the loose tiles (Law 16)."""

    wall_of: Seat
    stack: int
    total: int


@event("Dealt")
@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """A seat's original hand (Law 17). ``tiles`` is private."""

    PRIVATE: ClassVar[frozenset[str]] = frozenset({"tiles"})

    seat: Seat
    count: int
    tiles: tuple[Tile, ...] | None = None


@event("Drew")
@dataclass(frozen=True, slots=True)
class Drew(Event):
    PRIVATE: ClassVar[frozenset[str]] = frozenset({"tile"})

    seat: Seat
    loose: bool
    tile: Tile | None = None
    time_us: int | None = added()  # the board time of the command, when the table gave one


@event("FlowerGrounded")
@dataclass(frozen=True, slots=True)
class FlowerGrounded(Event):
    seat: Seat
    tile: Tile
    time_us: int | None = added()


@event("Discarded")
@dataclass(frozen=True, slots=True)
class Discarded(Event):
    """A discard; its ``time_us`` (board time) opens the call window on it."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@event("ClaimMade")
@dataclass(frozen=True, slots=True)
class ClaimMade(Event):
    """A call recorded; ``tiles`` (the claimant's own, concealed until laid) is private.
    ``time_us`` is the board time of the press; ``into_sequence`` marks a Mah-jongg call
    that takes the discard into a sequence where that decides precedence (Harr F rule 4)."""

    PRIVATE: ClassVar[frozenset[str]] = frozenset({"tiles"})

    seat: Seat
    kind: ClaimKind
    time_us: int | None = None
    tiles: tuple[Tile, ...] | None = None
    into_sequence: bool | None = added()


@event("ClaimsClosed")
@dataclass(frozen=True, slots=True)
class ClaimsClosed(Event):
    """The adjudication of one discard (or of a robbable kong): every claim made, in order of
    arrival (``claims`` as ``"S:pung"``), who won it and the rule that decided.
    ``opened_us`` and ``closed_us`` are the board times the window opened (the discard, or the
    tile added to a pung) and closed; each claim's own time is on its ``ClaimMade``."""

    discard: Tile
    discarder: Seat
    claims: tuple[str, ...]
    winner: Seat | None
    kind: ClaimKind | None
    rule: str
    opened_us: int | None = added()
    closed_us: int | None = added()


@event("DrawReturned")
@dataclass(frozen=True, slots=True)
class DrawReturned(Event):
    """A drawn tile put back on the wall because the preceding discard was claimed (Law 53)."""

    PRIVATE: ClassVar[frozenset[str]] = frozenset({"tile"})

    seat: Seat
    tile: Tile | None = None


@event("MeldExposed")
@dataclass(frozen=True, slots=True)
class MeldExposed(Event):
    """A set grounded with a claimed discard (``claimed`` from ``discarder``)."""

    seat: Seat
    kind: ClaimKind
    tiles: tuple[Tile, ...]
    claimed: Tile
    discarder: Seat
    time_us: int | None = added()  # when the set was grounded (Law 52's proviso)


@event("KongDeclared")
@dataclass(frozen=True, slots=True)
class KongDeclared(Event):
    """A concealed Four grounded from the hand (Law 41)."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@event("KongAdded")
@dataclass(frozen=True, slots=True)
class KongAdded(Event):
    """A drawn fourth tile added to a grounded Triplet (Law 42); robbable (Law 90). Its
    ``time_us`` opens the window to rob it."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@event("MahjongDeclared")
@dataclass(frozen=True, slots=True)
class MahjongDeclared(Event):
    """A valid Mah-jongg shown. ``by``: ``wall``, ``loose_tile``, ``discard`` or
    ``robbed_kong`` (contracts.md ``win.by``); ``concealed`` includes the winning tile."""

    seat: Seat
    concealed: tuple[Tile, ...]
    win_tile: Tile
    by: str
    discarder: Seat | None = None
    context: tuple[str, ...] = ()


@event("FalseMahjong")
@dataclass(frozen=True, slots=True)
class FalseMahjong(Event):
    """A call of Mah-jongg found incorrect (Law 86): it ends the hand."""

    seat: Seat
    concealed: tuple[Tile, ...] | None
    reason: str
    rule: str
    tile: Tile | None = None


@event("TilesWashed")
@dataclass(frozen=True, slots=True)
class TilesWashed(Event):
    """Pung-Chow Part II, washing the tiles: the original hand shown, and its different
    Heads (the payment follows from ``heads``)."""

    seat: Seat
    concealed: tuple[Tile, ...]
    heads: int


@event("FaultRecorded")
@dataclass(frozen=True, slots=True)
class FaultRecorded(Event):
    """A Long, Short or Foul hand (Laws 18, 23, 71-76): ``fault`` is ``long``, ``short`` or
    ``foul``."""

    seat: Seat
    fault: str
    rule: str
    reason: str = ""
    referee: bool = False  # recorded by a RecordFault command (not found by the engine)


@event("HandEnded")
@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """``result``: ``mahjong``, ``drawn``, ``false_mahjong`` or ``washed``. ``east_stays`` and
    ``next_prevailing`` say what the next hand is (Laws 94-96). A hand alone does not know how
    far the round has gone, so the engine leaves ``next_prevailing`` unset; a match driver
    fills it from ``engine.rounds.next_hand``."""

    result: str
    winner: Seat | None
    rule: str
    east_stays: bool
    next_prevailing: Seat | None = None
    reason: str = ""  # for a drawn hand, why it ended


@event("Amended")
@dataclass(frozen=True, slots=True)
class Amended(Event):
    """A referee correction: the command behind event ``at`` was replaced by ``command`` (or
    struck out). ``events`` are the events that now stand from ``at`` on; the events they
    replace stay in the log before this one, so nothing of the record is lost."""

    at: int
    command: Command | None
    reason: str
    events: tuple[Event, ...]

    def public_json(self) -> dict[str, Json]:
        """The standing events in their public form, and the command without private tiles
        (a referee may amend a draw the table never showed)."""
        out = self.to_json()
        out["events"] = [e.public_json() for e in self.events]
        if self.command is not None and "tile" in out["command"] and self.command.TYPE == "Draw":
            out["command"].pop("tile")
        return out


def event_from_json(obj: Json, where: str = "") -> Event:
    """Decode any event from its JSON form (``MalformedInput`` names the bad field)."""
    return Event.from_json(obj, where)
