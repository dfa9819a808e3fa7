"""The state of an American hand, its options, and the small helpers every rule module uses.

See :mod:`engine.american.game` for how a hand is played. ``apply`` never changes the hand it
is given: it changes a copy (:meth:`AmericanHand.copy`, whose racks are copied only when a
command changes them) and returns it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.american import commands as cm
from engine.american.compiled import CompiledCard
from engine.american.events import AmericanEvent
from engine.american.match import Exposure
from engine.american.payments import PaymentOptions
from engine.errors import RuleViolation
from engine.seats import SEATS, Seat
from engine.tiles import JOKER, Tile, tile_name

STACKS = 19  # "Building the walls": two high, nineteen long, against each rack
PASS_OFFSET = {"right": 1, "across": 2, "left": 3}
FIRST_CHARLESTON = ("right", "across", "left")  # CH-2
SECOND_CHARLESTON = ("left", "across", "right")  # CH-4


def refuse(rule: str, message: str) -> RuleViolation:
    """A refusal citing the League's rule ``rule``; its stable ``code`` is the rule's id
    (``c_9`` for C-9, ``dh_2_h`` for DH-2 (h)), as each classical refusal's is its ruleset's
    citation key.

    >>> e = refuse("C-9", "calls are pending")
    >>> e.rule, e.code, str(e)
    ('American C-9', 'c_9', 'American C-9: calls are pending')
    """
    code = "_".join("".join(c if c.isalnum() else " " for c in rule.lower()).split())
    return RuleViolation(f"American {rule}", message, code=code)


@dataclass(frozen=True)
class AmericanOptions:
    """Table choices, each with the League's default (rule-decisions.md, American)."""

    players: int = 4  # 2 and 3: "Two and three players" (no Charleston)
    second_charleston: bool = True  # CH-4: optional, any player may stop it
    courtesy: bool = True  # CH-5
    unwinnable: Literal["physical", "literal"] = "physical"  # Q4, DH-2 (e)
    # Q2: after an uncorrected wrong Joker exchange (J-8, DH-2 (m)) "the hand with the incorrect
    # exposure is dead": by default read literally (the rack that holds it).
    wrong_exchange_dead: Literal["owner", "exchanger"] = "owner"
    bettor: bool = False  # B-1..B-4: a fifth player may bet (optional)
    # M-5: a false Mah Jongg is dead on the spot (tournament convention, our default); a social
    # table may overrule and play on ("overrule").
    false_mahjong: Literal["dead", "overrule"] = "dead"
    payments: PaymentOptions = field(default_factory=PaymentOptions)


def player_seats(players: int) -> tuple[Seat, ...]:
    """Two-handed players sit opposite; three-handed leave North empty ("Two and three
    players"). Q5: calls and payments then follow the same rules among those present."""
    if players == 4:
        return SEATS
    if players == 3:
        return (Seat.E, Seat.S, Seat.W)
    if players == 2:
        return (Seat.E, Seat.W)
    raise ValueError(f"an American table seats 2, 3 or 4 players, not {players}")


@dataclass
class ExposedSet:
    tiles: list[Tile]
    called: Tile
    this_turn: bool = True  # C-8: may change until the owner discards
    erroneous: str | None = None  # the DH-2 cause if it is no set of like tiles
    wrong_exchange: bool = False  # J-8: a wrong tile placed by an exchange, not yet corrected
    wrong_tile: Tile | None = None

    def copy(self) -> ExposedSet:
        return ExposedSet(self.tiles[:], self.called, self.this_turn, self.erroneous,
                          self.wrong_exchange, self.wrong_tile)

    @property
    def natural(self) -> Tile | None:
        kinds = {t for t in self.tiles if t != JOKER}
        return kinds.pop() if len(kinds) == 1 else None

    def exposure(self) -> Exposure:
        tile = self.natural
        assert tile is not None
        return Exposure(tile, len(self.tiles), self.tiles.count(JOKER))


@dataclass(frozen=True)
class Evidence:
    rule: str
    detail: str
    visible: bool  # can the table see it (exposures, discards, counts: DH-3)?


@dataclass
class Rack:
    concealed: list[Tile] = field(default_factory=list)  # full mode only
    count: int = 0
    exposures: list[ExposedSet] = field(default_factory=list)
    discards: list[Tile] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    declared_dead: str | None = None  # the rule it was declared dead under
    thrown_in: bool = False
    exchanged_jokers: int = 0  # Jokers won by exchange this turn (J-15)

    @property
    def out(self) -> bool:
        return self.declared_dead is not None or self.thrown_in

    def copy(self) -> Rack:
        return Rack(self.concealed[:], self.count, [e.copy() for e in self.exposures],
                    self.discards[:], self.evidence[:], self.declared_dead, self.thrown_in,
                    self.exchanged_jokers)

    def exposed_count(self) -> int:
        return sum(len(e.tiles) for e in self.exposures)


@dataclass
class Live:
    tile: Tile
    seat: Seat
    named: Tile | None
    looked_ahead: bool = False  # P-6: the tile was drawn or looked at out of turn
    opened_us: int | None = None  # the board time of the discard: the window opens

    @property
    def misnamed(self) -> bool:
        return self.named is not None and self.named != self.tile


@dataclass
class AmericanHand:
    card: CompiledCard
    options: AmericanOptions
    mode: str
    players: tuple[Seat, ...]
    racks: dict[Seat, Rack]
    wall: list[Tile]
    wall_left: int
    phase: str = "charleston"
    stages: list[str] = field(default_factory=list)
    stage_blind: bool = False
    second: bool = False
    pending: dict[Seat, cm.CharlestonPass] = field(default_factory=dict)
    votes: dict[Seat, bool] = field(default_factory=dict)
    offers: dict[Seat, int] = field(default_factory=dict)
    courtesy: dict[Seat, tuple[Tile, ...]] = field(default_factory=dict)
    charleston_played: bool = False
    passes_made: int = 0
    turn: Seat = Seat.E
    step: str = "discard"  # draw | discard | window | awarded
    live: Live | None = None
    calls: list[cm.Call] = field(default_factory=list)
    awarded: tuple[Seat, str] | None = None
    called_tile: Tile | None = None
    other_mahjong_calls: list[Seat] = field(default_factory=list)
    first_discard: bool = False
    last_move_exchange: bool = False
    challenges: list[tuple[Seat, Seat, bool]] = field(default_factory=list)
    false_declarer: Seat | None = None
    bet: str | None = None  # private until the hand ends (B-1)
    short_left: Seat | None = None  # CH-7: East's left may draw the tile it is short
    result: dict[str, Any] | None = None
    log: tuple[AmericanEvent, ...] = ()  # every event of the hand so far
    # The seats whose Rack is this hand's own; the others are shared with the hand it was
    # copied from, until rack() copies them (copy-on-write: a command changes one or two).
    owned: set[Seat] = field(default_factory=set, repr=False, compare=False)

    def copy(self) -> AmericanHand:
        """An independent hand, for ``apply`` to change and return: what a command may change
        is copied, each rack when :meth:`rack` first hands it out; the card, the options, the
        wall (a draw replaces it, never changes it), the log, the result and the commands and
        events (immutable) are shared."""
        new = AmericanHand.__new__(AmericanHand)
        new.__dict__.update(self.__dict__)
        new.racks = dict(self.racks)
        new.owned = set()
        new.stages = self.stages[:]
        new.pending = dict(self.pending)
        new.votes = dict(self.votes)
        new.offers = dict(self.offers)
        new.courtesy = dict(self.courtesy)
        live = self.live
        new.live = None if live is None else Live(live.tile, live.seat, live.named,
                                                    live.looked_ahead, live.opened_us)
        new.calls = self.calls[:]
        new.other_mahjong_calls = self.other_mahjong_calls[:]
        new.challenges = self.challenges[:]
        return new

    def rack(self, seat: Seat) -> Rack:
        """The seat's rack, this hand's own to change (``racks`` is for reading: a rack there
        may be shared with the hand this one was copied from)."""
        if seat not in self.owned:
            self.racks[seat] = self.racks[seat].copy()
            self.owned.add(seat)
        return self.racks[seat]

    def next_player(self, seat: Seat) -> Seat:
        """The next seat to the right that is still playing (declared dead hands are skipped,
        DH-7; empty seats take no hand)."""
        for step in range(1, 5):
            candidate = SEATS[(seat + step) % 4]
            if candidate in self.racks and not self.racks[candidate].out:
                return candidate
        return seat

    def visible_counts(self) -> dict[Tile, int]:
        """Naturals the whole table can see: discards and every exposure."""
        seen: dict[Tile, int] = {}
        for rack in self.racks.values():
            for t in rack.discards:
                if t != JOKER:
                    seen[t] = seen.get(t, 0) + 1
            for e in rack.exposures:
                for t in e.tiles:
                    if t != JOKER:
                        seen[t] = seen.get(t, 0) + 1
        return seen


def names(tiles: Sequence[Tile]) -> list[str]:
    return [tile_name(t) for t in tiles]


def check_holds(rack: Rack, tiles: Sequence[Tile], rule: str, doing: str) -> None:
    """Check that a full-mode rack holds these tiles (nothing is changed)."""
    pool = list(rack.concealed)
    for t in tiles:
        if t not in pool:
            raise refuse(rule, f"cannot {doing}: no {tile_name(t)} in the hand")
        pool.remove(t)


def remove_tiles(rack: Rack, tiles: Sequence[Tile]) -> None:
    for t in tiles:
        rack.concealed.remove(t)


def ensure_playing(state: AmericanHand, seat: Seat, doing: str) -> None:
    rack = state.rack(seat)
    if rack.declared_dead is not None:
        raise refuse("DH-7", f"{seat.name}'s hand was declared dead ({rack.declared_dead}): no "
                     f"{doing} for the rest of the hand")
    if rack.thrown_in:
        raise refuse("M-4", f"{seat.name} threw in the hand")


