"""Commands: what the table (or a bot) asks the engine to accept.

In *mirror* mode they are observations (a discard landed and was named, a set was laid, seat N
drew a tile) and seat buttons (a claim, with the board's microsecond time). In *full* mode the
same commands drive a simulated hand; tiles the engine already knows may be left out.

Every command is a frozen dataclass; ``to_json()`` gives ``{"type": "Discard", "seat": "S",
"tile": "5C"}`` and ``Command.from_json`` reads it back, naming any bad field.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.messages import Json, Message, added, command
from engine.rules import ClaimKind
from engine.seats import Seat
from engine.tiles import Tile


class Command(Message):
    """Base of every command."""


@command("Throw")
@dataclass(frozen=True, slots=True)
class Throw(Command):
    """Two dice thrown to break the wall: first by East (Code 1924, Law 15), then by the seat
    the first throw selected (Law 16). The values come from the table (or a seeded RNG)."""

    seat: Seat
    dice: tuple[int, ...]


@command("Deal")
@dataclass(frozen=True, slots=True)
class Deal(Command):
    """The hands are drawn from the wall (Law 17). In mirror mode ``counts`` may give what the
    table counted per seat (E, S, W, N); a wrong count makes a Long or Short Hand (Law 18)."""

    counts: tuple[int, ...] | None = None


@command("Draw")
@dataclass(frozen=True, slots=True)
class Draw(Command):
    """The seat draws: from the live wall in its turn, or a loose tile when it owes one (after a
    kong or a flower). ``tile`` is what it drew when known (full mode; a mirror may omit it)."""

    seat: Seat
    tile: Tile | None = None
    time_us: int | None = added()  # board time (every command of play may carry one)


@command("GroundFlower")
@dataclass(frozen=True, slots=True)
class GroundFlower(Command):
    """A flower or season laid face up; the seat then owes a loose tile (Laws 22-24)."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@command("Discard")
@dataclass(frozen=True, slots=True)
class Discard(Command):
    """A tile discarded; ``time_us``, the board time it was seen, opens its call window."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@command("Claim")
@dataclass(frozen=True, slots=True)
class Claim(Command):
    """A call on the live discard (or on a tile added to a pung, to rob the kong).

    ``time_us`` is the board's microsecond timestamp of the button press; ``tiles`` optionally
    names the two (chow, pung) or three (kong) tiles from the hand that the discard completes.
    ``into_sequence`` says a Mah-jongg claim takes the discard into a sequence (the caller
    said "Chow"): under Pung-Chow it then ranks as a chow (Harr F rule 4). Full mode works
    it out from the hand when it is not given.
    """

    seat: Seat
    kind: ClaimKind
    time_us: int | None = None
    tiles: tuple[Tile, ...] | None = None
    into_sequence: bool | None = added()


@command("CloseClaims")
@dataclass(frozen=True, slots=True)
class CloseClaims(Command):
    """The call window is over (the engine has no clock: the table decides, and says when in
    ``time_us``). The engine adjudicates the claims made and names the rule that decided."""

    time_us: int | None = added()


@command("Expose")
@dataclass(frozen=True, slots=True)
class Expose(Command):
    """The set laid on the table by the seat awarded a discard: all its tiles, the discard
    included (Laws 34-39)."""

    seat: Seat
    tiles: tuple[Tile, ...]
    time_us: int | None = added()


@command("DeclareKong")
@dataclass(frozen=True, slots=True)
class DeclareKong(Command):
    """A concealed Four grounded from the hand, end tiles face down (Laws 24, 41)."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@command("AddKong")
@dataclass(frozen=True, slots=True)
class AddKong(Command):
    """The fourth tile, drawn, added to the seat's grounded Triplet (Laws 40, 42); its
    ``time_us`` opens the window to rob the kong (Law 90)."""

    seat: Seat
    tile: Tile
    time_us: int | None = added()


@command("DeclareMahjong")
@dataclass(frozen=True, slots=True)
class DeclareMahjong(Command):
    """Mah-jongg by the seat: on its own draw, or after being awarded a discard or a robbed
    kong. ``concealed`` is the hand shown (every tile not in a grounded set, the winning tile
    included); full mode may omit it."""

    seat: Seat
    concealed: tuple[Tile, ...] | None = None
    tile: Tile | None = None  # the winning tile; needed in mirror mode for a win on a draw


@command("WashTiles")
@dataclass(frozen=True, slots=True)
class WashTiles(Command):
    """Pung-Chow Part II: a player whose original hand holds nine or more different Heads
    (ones, nines, Winds, Dragons) calls no play and shows it; the hand is void and the tiles
    are washed. ``concealed`` is the hand shown (mirror mode)."""

    seat: Seat
    concealed: tuple[Tile, ...] | None = None


@command("RecordFault")
@dataclass(frozen=True, slots=True)
class RecordFault(Command):
    """A referee records a Long, Short or Foul hand the table found (Laws 58, 71-76): the
    hand plays on (Law 74) but cannot go out (Laws 75-76)."""

    seat: Seat
    fault: str
    reason: str = ""


@command("Correct")
@dataclass(frozen=True, slots=True)
class Correct(Command):
    """A referee amends an observation: the command that produced event ``at`` (its ``seq``
    in the hand's standing record) is replaced by ``command`` (or struck out when ``None``).
    The engine re-plays the hand with it; if anything later becomes illegal the correction is
    refused and nothing changes. The record keeps both (an ``Amended`` event)."""

    at: int
    command: Command | None = None
    reason: str = ""


def command_from_json(obj: Json, where: str = "") -> Command:
    """Decode any command from its JSON form (``MalformedInput`` names the bad field)."""
    return Command.from_json(obj, where)


Command._registry = "command"  # type: ignore[attr-defined]
