"""Commands and events of the American game, in the engine's shared registries.

Their JSON ``type`` is ``american/<Name>`` so they never collide with the other families'.
In *mirror* mode commands are what a real table shows (the camera sees exposures, discards,
the wall and counts; seat buttons give "call", "Mah Jongg", "Joker exchange", "challenge");
tiles nobody can see are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.commands import Command
from engine.events import Event
from engine.messages import Json, added, command, event
from engine.seats import Seat
from engine.tiles import Tile


@command("american/CharlestonPass")
@dataclass(frozen=True, slots=True)
class CharlestonPass(Command):
    """A seat's pass of the current Charleston stage (CH-2): ``tiles`` from its hand (full
    mode) plus ``blind`` tiles passed on unseen from those arriving (CH-3, last pass only).
    A mirror gives only ``count`` (the camera counts three tiles)."""

    seat: Seat
    tiles: tuple[Tile, ...] = ()
    blind: int = 0
    count: int | None = None


@command("american/CharlestonVote")
@dataclass(frozen=True, slots=True)
class CharlestonVote(Command):
    """Before the second Charleston: any one player may stop it (CH-4)."""

    seat: Seat
    stop: bool


@command("american/CourtesyOffer")
@dataclass(frozen=True, slots=True)
class CourtesyOffer(Command):
    """How many tiles (0-3) a seat wishes to exchange with the player opposite (CH-5)."""

    seat: Seat
    count: int


@command("american/CourtesyPass")
@dataclass(frozen=True, slots=True)
class CourtesyPass(Command):
    seat: Seat
    tiles: tuple[Tile, ...] = ()
    count: int | None = None


@command("american/Draw")
@dataclass(frozen=True, slots=True)
class Draw(Command):
    """A draw from the live wall (P-2). ``tile`` in full mode (may be left out)."""

    seat: Seat
    tile: Tile | None = None


@command("american/Discard")
@dataclass(frozen=True, slots=True)
class Discard(Command):
    """A discard. ``named`` is the name spoken, when the table reports it (MN-1); a Joker may
    be named "Joker", "same" or the previous discard (P-9). ``looked_ahead``: the table saw
    this tile drawn or looked at out of turn (P-6). ``time_us``, the board time, opens the
    call window."""

    seat: Seat
    tile: Tile
    named: Tile | None = None
    looked_ahead: bool = False  # the table saw this tile drawn or looked at ahead (P-6)
    time_us: int | None = added()


@command("american/CorrectName")
@dataclass(frozen=True, slots=True)
class CorrectName(Command):
    """The discarder corrects a misnamed discard before anyone acts (MN-1)."""

    seat: Seat


@command("american/TakeBack")
@dataclass(frozen=True, slots=True)
class TakeBack(Command):
    """P-7: a non-East player who discarded before drawing on the first turn takes it back."""

    seat: Seat


@command("american/Call")
@dataclass(frozen=True, slots=True)
class Call(Command):
    """A call of the live discard: ``kind`` "expose" or "mahjong" (C-1, C-2). ``time_us`` is
    the board time of the button; ``exposed`` says tiles from the hand are already laid for
    this call (C-9's timing exception)."""

    seat: Seat
    kind: str
    time_us: int | None = None
    exposed: bool = False


@command("american/WithdrawCall")
@dataclass(frozen=True, slots=True)
class WithdrawCall(Command):
    """C-6 part one: a call withdrawn before the tile is racked or tiles are exposed."""

    seat: Seat


@command("american/CloseWindow")
@dataclass(frozen=True, slots=True)
class CloseWindow(Command):
    """The call window closes (C-5): the engine adjudicates the calls (C-9). ``time_us`` is
    the board time it closed."""

    time_us: int | None = added()


@command("american/Expose")
@dataclass(frozen=True, slots=True)
class Expose(Command):
    """The awarded caller lays the set, the called tile included (C-6, C-7)."""

    seat: Seat
    tiles: tuple[Tile, ...]


@command("american/AdjustExposure")
@dataclass(frozen=True, slots=True)
class AdjustExposure(Command):
    """Same-turn change of this turn's exposure before the discard (C-8)."""

    seat: Seat
    tiles: tuple[Tile, ...]


@command("american/JokerExchange")
@dataclass(frozen=True, slots=True)
class JokerExchange(Command):
    """``seat`` gives the natural ``tile`` for a Joker in an exposure on ``owner``'s rack
    (J-4); ``index`` picks the exposure when the owner has several of that tile."""

    seat: Seat
    owner: Seat
    tile: Tile
    index: int | None = None


@command("american/CorrectExchange")
@dataclass(frozen=True, slots=True)
class CorrectExchange(Command):
    """J-8: before discarding, the exchanger puts the right natural in place of the wrong
    tile it placed in ``owner``'s exposure."""

    seat: Seat
    owner: Seat
    tile: Tile


@command("american/DeclareMahJongg")
@dataclass(frozen=True, slots=True)
class DeclareMahJongg(Command):
    """Mah Jongg (M-1). A mirror gives the concealed tiles the camera reads once shown;
    ``line`` is the line the winner announces (M-3)."""

    seat: Seat
    concealed: tuple[Tile, ...] | None = None
    line: str | None = None


@command("american/RetractMahJongg")
@dataclass(frozen=True, slots=True)
class RetractMahJongg(Command):
    """M-4: a Mah Jongg called on a discard and found wrong before the hand is shown:
    withdrawn with no penalty, or (``to_exposure``) changed into a call for an exposure."""

    seat: Seat
    to_exposure: bool = False


@command("american/PlaceBet")
@dataclass(frozen=True, slots=True)
class PlaceBet(Command):
    """The Bettor's secret bet (B-1): a seat, or "wall" for a wall game; after the
    Charleston and before East's first discard; never changed."""

    choice: str


@command("american/Challenge")
@dataclass(frozen=True, slots=True)
class Challenge(Command):
    """``seat`` calls ``target``'s hand dead (DH-5)."""

    seat: Seat
    target: Seat


@command("american/ConcedeDead")
@dataclass(frozen=True, slots=True)
class ConcedeDead(Command):
    """The challenged player accepts the call and stops (DH-5)."""

    seat: Seat


@command("american/ThrowIn")
@dataclass(frozen=True, slots=True)
class ThrowIn(Command):
    """A player exposes or throws in the hand after a Mah Jongg that turns out false (M-4)."""

    seat: Seat


@command("american/Observed")
@dataclass(frozen=True, slots=True)
class Observed(Command):
    """A fault the table saw that the engine cannot see by itself: ``cause`` is a DH-2 letter
    — "h" drew out of turn (racked), "i" wrong wall, "j" wrong end, "n" pushed out the wrong
    wall, "k" called for an exposure on a wrong name — or "count:<n>" the tiles counted on a
    rack (DH-2 (a))."""

    seat: Seat
    cause: str


@event("american/Command")
@dataclass(frozen=True, slots=True)
class CommandRecorded(Event):
    """A log line with the command that caused the events after it (simulation logs only, so
    that `replay` can re-apply the play through the checked engine)."""

    PRIVATE: ClassVar[frozenset[str]] = frozenset({"command"})

    command: Json = None
