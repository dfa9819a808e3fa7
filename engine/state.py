"""The state of one hand, and how each event changes it (the fold).

``evolve(state, event)`` trusts its input: it is how the engine's own record is replayed.
Everything a command must satisfy is checked before, in ``engine.game``; this module only
moves tiles.

The state is mutable for speed (one ``apply`` must cost tens of microseconds on a Pi): per
seat a list of counts of concealed tiles (full mode) and a concealed count (both modes), and
one list of counts of tiles seen face up. ``copy()`` gives an independent snapshot.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine import events as ev
from engine.rules import Ruleset
from engine.seats import SEATS, Seat
from engine.tiles import NUM_TILE_KINDS, Tile
from engine.wall import draw_order

Mode = Literal["full", "mirror"]
Phase = Literal["break", "deal", "play", "claims", "award", "rob", "ended"]
MeldKind = Literal["chow", "pung", "kong"]


@dataclass(frozen=True, slots=True)
class Meld:
    """A grounded set. ``concealed`` only for a kong declared from the hand (Law 41)."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    concealed: bool = False
    claimed: Tile | None = None
    discarder: Seat | None = None


class SeatState:
    __slots__ = (
        "concealed",
        "discarded",
        "discards",
        "drawn",
        "fault",
        "flowers",
        "last_drawn",
        "melds",
        "n",
        "owed_loose",
    )

    def __init__(self) -> None:
        self.concealed: list[int] = [0] * NUM_TILE_KINDS  # full mode only
        self.n = 0  # concealed tiles held (both modes)
        self.melds: list[Meld] = []
        self.flowers: list[Tile] = []
        self.discards: list[Tile] = []
        self.discarded = 0  # discards made (claimed ones included)
        self.drawn = 0  # draws made since the deal (live and loose)
        self.owed_loose = 0
        self.fault: str | None = None
        self.last_drawn: Tile | None = None


class HandState:
    """One hand. Read it; change it only through ``engine.game.apply``."""

    def __init__(self, ruleset: Ruleset, mode: Mode) -> None:
        self.ruleset = ruleset
        self.mode: Mode = mode
        self.prevailing: Seat | None = None
        self.hand = 0
        self.phase: Phase = "break"
        self.seats = [SeatState() for _ in SEATS]
        # The seats in play (the Two- and Three-Hand Games leave some empty) and, for each
        # seat, the next one in the order of play.
        self.players: tuple[Seat, ...] = SEATS
        self.next_of: list[Seat] = [SEATS[(s + 1) % 4] for s in SEATS]
        self.seen: list[int] = [0] * NUM_TILE_KINDS  # tiles face up anywhere
        # The wall: built order (full), then draw order; ``front``/``back`` bound what is left.
        self.built: tuple[Tile, ...] | None = None
        self.wall: list[Tile] | None = None
        self.front = 0
        self.back = ruleset.tiles
        self.throws: list[tuple[Seat, int]] = []
        # Turn: whose turn it is, and whether that seat must draw from the live wall first.
        self.turn: Seat = Seat.E
        self.need_draw = False
        self.drew = False  # the turn seat has drawn this turn (Laws 40-41)
        self.drew_loose = False
        self.first_discard_done = False
        self.discards_made = 0
        # The live discard and the call window.
        self.claimable: tuple[Tile, Seat] | None = None
        self.late_drawer: Seat | None = None  # Law 53: drew while the discard was claimable
        self.claims: list[ev.ClaimMade] = []
        self.window_opened_us: int | None = None  # board time of the discard or added kong
        self.award: tuple[Seat, str] | None = None
        self.award_by = ""  # "discard" or "robbed_kong"
        self.rob: tuple[Tile, Seat] | None = None
        self.last_available_drawn = False
        # Result.
        self.result: str | None = None
        self.winner: Seat | None = None
        self.end_rule = ""
        self.east_stays: bool | None = None
        # The record.
        self.log: list[ev.Event] = []
        self.standing: list[ev.Event] = []

    # -- derived --------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Tiles left in the wall, dead wall included."""
        return self.back - self.front

    def live_left(self) -> int:
        """Tiles that may still be drawn from the live wall (Law 87)."""
        return max(0, self.back - self.front - self.ruleset.dead_wall)

    def loose_left(self) -> int:
        floor = 0 if self.ruleset.loose_draws_enter_dead_wall else self.ruleset.dead_wall
        return max(0, self.back - self.front - floor)

    def others_in_turn(self, seat: Seat) -> list[Seat]:
        """The other players, in turn from the one after ``seat`` (to its right)."""
        out, other = [], self.next_of[seat]
        while other != seat:
            out.append(other)
            other = self.next_of[other]
        return out

    def copy(self) -> HandState:
        """An independent snapshot (events and rules are immutable and shared)."""
        new = _copy.copy(self)
        new.seats = []
        for s in self.seats:
            t = SeatState()
            t.concealed = s.concealed[:]
            t.n = s.n
            t.melds = s.melds[:]
            t.flowers = s.flowers[:]
            t.discards = s.discards[:]
            t.discarded = s.discarded
            t.drawn = s.drawn
            t.owed_loose = s.owed_loose
            t.fault = s.fault
            t.last_drawn = s.last_drawn
            new.seats.append(t)
        new.seen = self.seen[:]
        new.wall = None if self.wall is None else self.wall[:]
        new.throws = self.throws[:]
        new.next_of = self.next_of[:]
        new.claims = self.claims[:]
        new.log = self.log[:]
        new.standing = self.standing[:]
        return new

    def concealed_tiles(self, seat: int) -> list[Tile]:
        """The concealed tiles of a seat, sorted (full mode)."""
        counts = self.seats[seat].concealed
        out: list[Tile] = []
        for t in range(NUM_TILE_KINDS):
            n = counts[t]
            if n:
                out += [t] * n
        return out


# -- the fold ------------------------------------------------------------------------------


def _take(state: HandState, seat: int, tile: Tile | None, n: int = 1) -> None:
    s = state.seats[seat]
    s.n -= n
    if tile is not None and state.mode == "full":
        s.concealed[tile] -= n


def _hand_started(state: HandState, e: ev.HandStarted) -> None:
    state.players = e.players
    state.next_of = [e.players[(e.players.index(s) + 1) % len(e.players)]
                     if s in e.players else s for s in SEATS]
    state.prevailing = e.prevailing
    state.hand = e.number
    state.built = e.wall


def _dice(state: HandState, e: ev.DiceThrown) -> None:
    state.throws.append((e.seat, e.dice[0] + e.dice[1]))
    if len(state.throws) == 2:
        state.phase = "deal"


def _broken(state: HandState, e: ev.WallBroken) -> None:
    if state.built is not None:
        state.wall = draw_order(state.built, e.wall_of, e.stack, state.ruleset.stacks_per_wall)


def _dealt(state: HandState, e: ev.Dealt) -> None:
    s = state.seats[e.seat]
    s.n = e.count
    state.front += e.count
    if e.tiles is not None and state.mode == "full":
        for t in e.tiles:
            s.concealed[t] += 1
    if e.seat == state.players[-1]:
        state.phase = "play"
        state.turn = Seat.E
        state.need_draw = False
        state.drew = True  # East's fourteenth counts as his draw (Law 17)


def _drew(state: HandState, e: ev.Drew) -> None:
    s = state.seats[e.seat]
    if e.loose:
        state.back -= 1
        s.owed_loose -= 1
    else:
        state.front += 1
        state.need_draw = False
        if state.live_left() == 0:
            state.last_available_drawn = True
        if state.claimable is not None:
            if state.ruleset.claims_after_next_draw and not state.claims:
                state.late_drawer = e.seat
            else:
                state.claimable = None
        state.phase = "play"
    s.n += 1
    s.drawn += 1
    s.last_drawn = e.tile
    if e.tile is not None and state.mode == "full":
        s.concealed[e.tile] += 1
    if e.seat == state.turn:
        state.drew = True
        state.drew_loose = e.loose


def _close_late_window(state: HandState, seat: int) -> None:
    if state.late_drawer == seat:
        state.claimable = None
        state.late_drawer = None


def _flower(state: HandState, e: ev.FlowerGrounded) -> None:
    s = state.seats[e.seat]
    _take(state, e.seat, e.tile)
    s.flowers.append(e.tile)
    s.owed_loose += 1
    state.seen[e.tile] += 1
    _close_late_window(state, e.seat)  # Law 53: a grounded flower ends the late claim


def _discarded(state: HandState, e: ev.Discarded) -> None:
    s = state.seats[e.seat]
    _take(state, e.seat, e.tile)
    s.discards.append(e.tile)
    s.discarded += 1
    state.seen[e.tile] += 1
    state.claimable = (e.tile, e.seat)
    state.window_opened_us = e.time_us
    state.late_drawer = None
    state.claims = []
    state.phase = "claims"
    state.turn = state.next_of[e.seat]
    state.need_draw = True
    state.drew = False
    state.drew_loose = False
    state.first_discard_done = True
    state.discards_made += 1


def _claim(state: HandState, e: ev.ClaimMade) -> None:
    state.claims.append(e)
    if state.phase == "play":  # a late claim (Law 53) reopens the window
        state.phase = "claims"


def _closed(state: HandState, e: ev.ClaimsClosed) -> None:
    state.claims = []
    if state.phase == "rob":
        if e.winner is None:
            state.rob = None
            state.phase = "play"
        else:
            state.award = (e.winner, "mahjong")
            state.award_by = "robbed_kong"
            state.phase = "award"
        return
    if e.winner is None:
        # The table closed the calls: the discard is dead, even if the next player has
        # already drawn (he goes on with his turn).
        state.claimable = None
        state.late_drawer = None
        state.phase = "play"
        return
    state.award = (e.winner, e.kind or "")
    state.award_by = "discard"
    state.phase = "award"
    state.turn = e.winner
    state.need_draw = False
    state.drew = False


def _returned(state: HandState, e: ev.DrawReturned) -> None:
    s = state.seats[e.seat]
    s.n -= 1
    state.front -= 1
    if e.tile is not None and state.mode == "full":
        s.concealed[e.tile] -= 1
    state.late_drawer = None


def _exposed(state: HandState, e: ev.MeldExposed) -> None:
    s = state.seats[e.seat]
    d = state.seats[e.discarder]
    if d.discards and d.discards[-1] == e.claimed:
        d.discards.pop()
    state.seen[e.claimed] -= 1  # counted again with the set
    upgraded = False
    if e.kind == "kong":
        for i, m in enumerate(s.melds):
            if m.kind == "pung" and m.tiles[0] == e.claimed and not m.concealed:
                # Pung-Chow Part II: the discarded fourth grounded onto an exposed pung.
                s.melds[i] = Meld("kong", e.tiles, False, m.claimed, m.discarder)
                upgraded = True
                break
    if not upgraded:
        own = list(e.tiles)
        own.remove(e.claimed)
        s.n -= len(own)
        if state.mode == "full":
            for t in own:
                s.concealed[t] -= 1
        s.melds.append(Meld(e.kind, e.tiles, False, e.claimed, e.discarder))  # type: ignore[arg-type]
        for t in own:
            state.seen[t] += 1
        state.seen[e.claimed] += 1
    else:
        state.seen[e.claimed] += 1
    state.claimable = None
    state.award = None
    state.phase = "play"
    state.turn = e.seat
    state.need_draw = False
    state.drew = False
    if e.kind == "kong":
        s.owed_loose += 1


def _kong_declared(state: HandState, e: ev.KongDeclared) -> None:
    s = state.seats[e.seat]
    _take(state, e.seat, e.tile, 4)
    s.melds.append(Meld("kong", (e.tile,) * 4, True))
    state.seen[e.tile] += 4
    s.owed_loose += 1
    _close_late_window(state, e.seat)


def _kong_added(state: HandState, e: ev.KongAdded) -> None:
    s = state.seats[e.seat]
    _take(state, e.seat, e.tile)
    for i, m in enumerate(s.melds):
        if m.kind == "pung" and m.tiles[0] == e.tile:
            s.melds[i] = Meld("kong", (e.tile,) * 4, False, m.claimed, m.discarder)
            break
    state.seen[e.tile] += 1
    state.window_opened_us = e.time_us
    _close_late_window(state, e.seat)
    if state.ruleset.robbing_kong:
        state.rob = (e.tile, e.seat)
        state.claims = []
        state.phase = "rob"
        state.seats[e.seat].owed_loose += 1
    else:
        s.owed_loose += 1


def _mahjong(state: HandState, e: ev.MahjongDeclared) -> None:
    s = state.seats[e.seat]
    if e.by == "robbed_kong" and e.discarder is not None:
        d = state.seats[e.discarder]
        for i, m in enumerate(d.melds):
            if m.kind == "kong" and m.tiles[0] == e.win_tile and not m.concealed:
                d.melds[i] = Meld("pung", (e.win_tile,) * 3, False, m.claimed, m.discarder)
                break
        d.owed_loose = 0
        state.seen[e.win_tile] -= 1
    elif e.by == "discard" and e.discarder is not None:
        d = state.seats[e.discarder]
        if d.discards and d.discards[-1] == e.win_tile:
            d.discards.pop()
            state.seen[e.win_tile] -= 1
    if state.mode == "full":
        s.concealed = [0] * NUM_TILE_KINDS
        for t in e.concealed:
            s.concealed[t] += 1
    s.n = len(e.concealed)
    for t in e.concealed:
        state.seen[t] += 1
    state.winner = e.seat
    state.award = None
    state.claimable = None
    state.rob = None


def _false(state: HandState, e: ev.FalseMahjong) -> None:
    state.award = None
    state.rob = None


def _washed(state: HandState, e: ev.TilesWashed) -> None:
    for t in e.concealed:
        state.seen[t] += 1


def _fault(state: HandState, e: ev.FaultRecorded) -> None:
    state.seats[e.seat].fault = e.fault


def _ended(state: HandState, e: ev.HandEnded) -> None:
    state.phase = "ended"
    state.result = e.result
    state.winner = e.winner
    state.end_rule = e.rule
    state.east_stays = e.east_stays
    state.claimable = None
    state.late_drawer = None


_FOLD: dict[type[ev.Event], Callable[[HandState, ev.Event], None]] = {
    ev.HandStarted: _hand_started,  # type: ignore[dict-item]
    ev.DiceThrown: _dice,  # type: ignore[dict-item]
    ev.WallBroken: _broken,  # type: ignore[dict-item]
    ev.Dealt: _dealt,  # type: ignore[dict-item]
    ev.Drew: _drew,  # type: ignore[dict-item]
    ev.FlowerGrounded: _flower,  # type: ignore[dict-item]
    ev.Discarded: _discarded,  # type: ignore[dict-item]
    ev.ClaimMade: _claim,  # type: ignore[dict-item]
    ev.ClaimsClosed: _closed,  # type: ignore[dict-item]
    ev.DrawReturned: _returned,  # type: ignore[dict-item]
    ev.MeldExposed: _exposed,  # type: ignore[dict-item]
    ev.KongDeclared: _kong_declared,  # type: ignore[dict-item]
    ev.KongAdded: _kong_added,  # type: ignore[dict-item]
    ev.MahjongDeclared: _mahjong,  # type: ignore[dict-item]
    ev.FalseMahjong: _false,  # type: ignore[dict-item]
    ev.FaultRecorded: _fault,  # type: ignore[dict-item]
    ev.TilesWashed: _washed,  # type: ignore[dict-item]
    ev.HandEnded: _ended,  # type: ignore[dict-item]
}


def evolve(state: HandState, event: ev.Event) -> None:
    """Fold one event into the state (trusted: the engine's own record)."""
    _FOLD[type(event)](state, event)
    state.standing.append(event)


__all__ = ["HandState", "Meld", "Mode", "Phase", "SeatState", "evolve"]
