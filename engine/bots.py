"""Bots: greedy hand-builders that play legal, sensible moves (full-information hands).

A bot sees a :class:`SeatView` — its own tiles and what the table shows — and answers
``act(view) -> Command | None`` (``None``: nothing to do, e.g. no call on a discard). The
simulator (``engine.simulate``) and the table service's simulator ask it whenever the seat
may act.

The greedy bot keeps the tiles that already form sets, pairs and near-sequences, throws the
loneliest tile, calls Mah-jongg whenever the game accepts it, pungs and kongs what it can and
chows when the two tiles are not doing better work.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Protocol

from engine import commands as cm
from engine.game import can_win
from engine.rules import Ruleset
from engine.seats import SEATS, Seat
from engine.simclock import SimClock
from engine.state import HandState, Meld
from engine.tiles import NUM_KINDS, WINDS, Tile
from engine.turns import heads_in, may_wash
from engine.wall import breaker, throw_dice


class SeatView:
    """One seat's window on a hand: its own concealed tiles and the public state.

    It reads through to the state (no copy, for speed); it offers nothing hidden from the
    seat. ``hand`` is the seat's own counts per tile kind: read it, never change it.
    """

    __slots__ = ("_clock", "_state", "seat")

    def __init__(self, state: HandState, seat: Seat, clock: SimClock | None = None) -> None:
        self._state = state
        self.seat = seat
        self._clock = clock

    @property
    def now_us(self) -> int | None:
        """The board time at which the seat acts (simulated play), else ``None``."""
        return None if self._clock is None else self._clock.now_us

    @property
    def ruleset(self) -> Ruleset:
        return self._state.ruleset

    @property
    def phase(self) -> str:
        return self._state.phase

    @property
    def turn(self) -> Seat:
        return self._state.turn

    @property
    def hand(self) -> Sequence[int]:
        return self._state.seats[self.seat].concealed

    @property
    def melds(self) -> Sequence[Meld]:
        return self._state.seats[self.seat].melds

    @property
    def seen(self) -> Sequence[int]:
        return self._state.seen

    @property
    def must_draw(self) -> bool:
        s = self._state
        return bool(s.seats[self.seat].owed_loose) or (
            s.turn == self.seat and s.need_draw and s.phase in ("play", "claims")
        )

    @property
    def on_turn(self) -> bool:
        s = self._state
        return s.phase == "play" and s.turn == self.seat and not s.need_draw

    @property
    def before_first_discard(self) -> bool:
        return not self._state.first_discard_done

    @property
    def drew(self) -> bool:
        return self._state.drew

    @property
    def discard(self) -> tuple[Tile, Seat] | None:
        return self._state.claimable

    @property
    def robbable(self) -> tuple[Tile, Seat] | None:
        return self._state.rob if self._state.phase == "rob" else None

    @property
    def award(self) -> tuple[Seat, str] | None:
        return self._state.award

    def may_wash(self) -> bool:
        """Pung-Chow Part II: may this seat still wash the tiles on its original hand?"""
        return may_wash(self._state, self.seat)

    def may_chow(self, discarder: Seat) -> bool:
        """Is this seat the one that may chow ``discarder``'s discard (Law 34)?"""
        s = self._state
        # engine.claims.may_chow, inlined: the bots ask it on every discard.
        return s.next_of[discarder] == self.seat and (len(s.players) > 2
                                                      or s.ruleset.two_hand_chow)

    def can_win(self, tile: Tile | None = None) -> bool:
        """Would this seat go out validly now (own hand, or with ``tile``)?"""
        return can_win(self._state, self.seat, tile)


def _chow_pairs(hand: Sequence[int], tile: Tile) -> list[tuple[Tile, Tile]]:
    if tile >= 27:
        return []
    r = tile % 9
    out = []
    for lo in (r - 2, r - 1, r):
        if lo >= 0 and lo + 2 <= 8:
            need = [tile - r + lo + k for k in range(3) if lo + k != r]
            if hand[need[0]] and hand[need[1]]:
                out.append((need[0], need[1]))
    return out


def _touches(hand: Sequence[int], tile: Tile, no_sets: bool) -> bool:
    """Could ``tile`` complete anything? It must match a held tile, sit within two of a held
    tile of its suit, or (no set grounded) be a Terminal or Honour for Thirteen Orphans."""
    if hand[tile]:
        return True
    if tile >= 27:
        return no_sets
    if no_sets and tile in _TERMINALS:
        return True
    lo, hi = _NEAR[tile]
    return any(hand[lo:hi])


_TERMINALS = frozenset((0, 8, 9, 17, 18, 26))
# Per suit tile, the slice of its suit within two of it.
_NEAR = tuple((t - min(t % 9, 2), t + min(8 - t % 9, 2) + 1) for t in range(27))


def may_be_complete(hand: Sequence[int], extra: Tile | None, no_sets: bool) -> bool:
    """A cheap necessary condition for a complete hand, before the real test: four sets and a
    pair leave each suit's count at 0 or 2 modulo 3 with exactly one 2, and no Honour single;
    the special hands need no grounded set and all pairs or only Terminals and Honours."""
    # Asked for every seat on every discard: slices and sums run in C, no per-tile loop.
    s0, s1, s2 = sum(hand[0:9]), sum(hand[9:18]), sum(hand[18:27])
    honours = list(hand[27:34])
    if extra is not None:
        if extra < 9:
            s0 += 1
        elif extra < 18:
            s1 += 1
        elif extra < 27:
            s2 += 1
        else:
            honours[extra - 27] += 1
    h: list[int] | None = None
    if 1 not in honours and 4 not in honours:
        mods = (s0 % 3, s1 % 3, s2 % 3, sum(honours) % 3)
        if mods.count(2) == 1 and 1 not in mods:
            h = _with_tile(hand, extra)
            if not _lone_single(h):
                return True
    if not no_sets:
        return False
    if h is None:
        h = _with_tile(hand, extra)
    # The special hands (Thirteen Orphans, the pair hands; Nine Gates is also four sets and a
    # pair, so the test above keeps it).
    if set(h) <= _PAIR_COUNTS:
        return True
    return not (any(h[1:8]) or any(h[10:17]) or any(h[19:26]))


_PAIR_COUNTS = frozenset((0, 2))


def _with_tile(hand: Sequence[int], extra: Tile | None) -> list[int]:
    h = list(hand[:34])
    if extra is not None:
        h[extra] += 1
    return h


def _lone_single(h: Sequence[int]) -> bool:
    """A suit tile held once (or four times) that no sequence can take: it is in no pair or
    pung, so it needs a sequence, and the two tiles of one are missing. The hand is then not
    four sets and a pair. Tried only on hands that pass the counting test above."""
    for base in (0, 9, 18):
        row = [0, 0, *h[base : base + 9], 0, 0]  # padded: no bounds tests
        for i in range(2, 11):
            c = row[i]
            if (c == 1 or c == 4) and not (
                (row[i - 1] and (row[i - 2] or row[i + 1])) or (row[i + 1] and row[i + 2])
            ):
                return True
    return False


class GreedyBot:
    """A greedy hand-builder. ``rng`` breaks ties and makes some calls optional, so seeded
    games vary; the same seed gives the same game."""

    def __init__(self, rng: random.Random | None = None, chow_rate: float = 0.6) -> None:
        self.rng = rng or random.Random(0)
        self.chow_rate = chow_rate

    # -- scoring a tile's usefulness ------------------------------------------------------

    # Keep-values by count held: a pair or a set is worth keeping, a single little.
    _HONOUR_VALUE = (0.0, 1.0, 6.0, 9.0, 9.0)
    _SUIT_VALUE = (0.0, 1.0, 5.0, 8.0, 8.0)

    def _target_suit(self, view: SeatView) -> int | None:
        """For the Cleared-Hand game: the suit the hand leans to (Law 47)."""
        if view.ruleset.qualification != "cleared":
            return None
        h = view.hand
        per = [sum(h[0:9]), sum(h[9:18]), sum(h[18:27])]
        for m in view.melds:
            if m.tiles[0] < 27:
                per[m.tiles[0] // 9] += 6
        best = 0
        if per[1] > per[best]:
            best = 1
        if per[2] > per[best]:
            best = 2
        return best

    def choose_discard(self, view: SeatView) -> Tile:
        """The held tile worth least: a single far from its neighbours, an Honour single
        whose pair can hardly come, and in the Cleared-Hand game anything off the suit."""
        h = view.hand
        seen = view.seen
        own_wind = WINDS[view.seat]
        target = self._target_suit(view)
        best: Tile = -1
        best_value = 1e9
        suit_value, honour_value = self._SUIT_VALUE, self._HONOUR_VALUE
        for t in range(NUM_KINDS):
            c = h[t]
            if not c:
                continue
            if t >= 27:
                v = honour_value[c]
                if t >= 31 or t == own_wind:
                    v += 0.5
                if c == 1 and seen[t] >= 2:
                    v -= 0.5  # its pair can hardly come
            else:
                v = suit_value[c]
                r = t % 9
                if r >= 1 and h[t - 1]:
                    v += 2.0
                if r <= 7 and h[t + 1]:
                    v += 2.0
                if r >= 2 and h[t - 2]:
                    v += 1.0
                if r <= 6 and h[t + 2]:
                    v += 1.0
                if r == 0 or r == 8:
                    v -= 0.3
                if target is not None and t // 9 != target:
                    v -= 6.0
            if v < best_value:
                best, best_value = t, v
        if best < 0:  # only bonus tiles left (cannot happen in a legal hand)
            best = next(t for t in range(len(h)) if h[t])
        return best

    # -- acting ---------------------------------------------------------------------------

    def act(self, view: SeatView) -> cm.Command | None:
        phase = view.phase
        seat = view.seat
        if phase == "claims" or (  # a call on the discard, the next player's chow included
            phase == "play" and view.turn != seat and view.discard is not None  # Law 53
        ):
            return self._call(view)
        if view.must_draw:
            return cm.Draw(seat=seat, time_us=view.now_us)
        if phase == "rob":
            rob = view.robbable
            if rob is not None and rob[1] != seat and view.can_win(rob[0]):
                return cm.Claim(seat=seat, kind="mahjong", time_us=view.now_us)
            return None
        if phase == "award":
            award = view.award
            if award is None or award[0] != seat:
                return None
            return self._take_award(view, award[1])
        if phase != "play":
            return None
        h = view.hand
        on_turn = view.on_turn
        if view.ruleset.flowers and any(h[34:42]) and (
            on_turn or view.before_first_discard
        ):
            flower = next(t for t in range(34, 42) if h[t])
            return cm.GroundFlower(seat=seat, tile=flower, time_us=view.now_us)
        melds = view.melds
        # East's original-hand win "has preference over washing cards" (Harr, Part II).
        if on_turn and may_be_complete(h, None, not melds) and view.can_win():
            return cm.DeclareMahjong(seat=seat)
        if view.may_wash() and heads_in([t for t in range(NUM_KINDS) if h[t]]) >= 9:
            return cm.WashTiles(seat=seat)
        if not on_turn:
            return None
        if view.drew or view.before_first_discard:
            if 4 in h:
                t = h.index(4)
                if t < NUM_KINDS:
                    return cm.DeclareKong(seat=seat, tile=t, time_us=view.now_us)
            if view.drew:
                for m in melds:
                    if m.kind == "pung" and h[m.tiles[0]]:
                        return cm.AddKong(seat=seat, tile=m.tiles[0], time_us=view.now_us)
        return cm.Discard(seat=seat, tile=self.choose_discard(view), time_us=view.now_us)

    def _call(self, view: SeatView) -> cm.Command | None:
        live = view.discard
        if live is None:
            return None
        tile, discarder = live
        seat = view.seat
        if seat == discarder:
            return None
        h = view.hand
        melds = view.melds
        no_sets = not melds
        if _touches(h, tile, no_sets) and may_be_complete(h, tile, no_sets) \
                and view.can_win(tile):
            return cm.Claim(seat=seat, kind="mahjong", time_us=view.now_us)
        held = h[tile]
        if held < 2:  # nothing to call unless a chow: the common case, decided first
            if tile >= 27:
                return None
            left = view.may_chow(discarder)
            if not left:
                return None
        else:
            left = view.may_chow(discarder)
        target = self._target_suit(view)
        if target is not None and tile < 27 and tile // 9 != target:
            return None
        if held >= 3 and not any(m.kind == "pung" and m.tiles[0] == tile for m in melds):
            return cm.Claim(seat=seat, kind="kong", time_us=view.now_us)
        if held == 2:
            return cm.Claim(seat=seat, kind="pung", time_us=view.now_us)
        if left:
            for a, b in _chow_pairs(h, tile):
                if h[a] == 1 and h[b] == 1 and self.rng.random() < self.chow_rate:
                    return cm.Claim(seat=seat, kind="chow", tiles=(a, b), time_us=view.now_us)
        return None

    def _take_award(self, view: SeatView, kind: str) -> cm.Command:
        seat = view.seat
        if kind == "mahjong":
            return cm.DeclareMahjong(seat=seat)
        live = view.discard
        assert live is not None
        tile = live[0]
        if kind == "pung":
            return cm.Expose(seat=seat, tiles=(tile, tile, tile), time_us=view.now_us)
        if kind == "kong":
            return cm.Expose(seat=seat, tiles=(tile,) * 4, time_us=view.now_us)
        a, b = next(iter(_chow_pairs(view.hand, tile)))
        singles = [p for p in _chow_pairs(view.hand, tile)
                   if view.hand[p[0]] == 1 and view.hand[p[1]] == 1]
        if singles:
            a, b = singles[0]
        return cm.Expose(seat=seat, tiles=tuple(sorted((a, b, tile))), time_us=view.now_us)


# -- at a table: the bots play a whole hand (engine.family.players_for) -------------------------

MAX_STEPS = 2000  # a hand has at most a few hundred steps; more means a loop


class HandInPlay(Protocol):
    """What the bots play against (``engine.family.HandInPlay``, on a classical hand)."""

    @property
    def state(self) -> HandState: ...

    def send(self, command: cm.Command, trial: bool = False) -> bool: ...


class ClassicalPlayers:
    """Four greedy bots at one full-information hand of a classical ruleset, played as a
    table plays it: the dice, the deal, the flowers grounded in turn, then whoever may act."""

    def __init__(self, ruleset: Ruleset | str, rng: random.Random, *, hand: int = 1,
                 prevailing: Seat | None = Seat.E) -> None:
        from engine.game import new_hand

        self.rng = rng
        self.dealt, _ = new_hand(ruleset, "full", rng=rng, prevailing=prevailing, hand=hand)
        self.bots = [GreedyBot(random.Random(rng.random())) for _ in SEATS]

    def play(self, hand: HandInPlay) -> Iterator[None]:
        state: HandState = hand.state  # the classical engine moves this very hand on
        views = [SeatView(state, s) for s in SEATS]
        first = throw_dice(self.rng)
        throws = (cm.Throw(seat=Seat.E, dice=first),
                  cm.Throw(seat=breaker(sum(first)), dice=throw_dice(self.rng)))
        for throw in (*throws, cm.Deal()):  # Laws 15-16, then the deal
            hand.send(throw)
            yield
        # Law 22: beginning with East, each grounds flowers and replaces them.
        for seat in SEATS:
            while state.phase == "play":
                command = self.bots[seat].act(views[seat])
                if not isinstance(command, cm.GroundFlower | cm.Draw | cm.DeclareKong):
                    break
                hand.send(command)
                yield
        for _ in range(MAX_STEPS):
            if state.phase == "ended":
                return
            if state.phase in ("claims", "rob"):
                self._calls(hand, state, views)
            else:
                seat = self._to_act(state)
                command = self.bots[seat].act(views[seat])
                if command is None:
                    raise RuntimeError(f"{seat} has nothing to do in phase {state.phase}")
                hand.send(command)
            yield
        raise RuntimeError("the simulated hand did not end")

    def _calls(self, hand: HandInPlay, state: HandState, views: list[SeatView]) -> None:
        """Each other seat in turn answers the discard (or the kong to rob); then the window
        closes."""
        owner = (state.claimable[1] if state.phase == "claims" and state.claimable
                 else (state.rob[1] if state.rob else state.turn))
        for k in range(1, 4):
            seat = SEATS[(owner + k) % 4]
            command = self.bots[seat].act(views[seat])
            if isinstance(command, cm.Claim):
                hand.send(command)
        hand.send(cm.CloseClaims())

    @staticmethod
    def _to_act(state: HandState) -> Seat:
        if state.phase == "award":
            assert state.award is not None
            return state.award[0]
        owing = [s for s in SEATS if state.seats[s].owed_loose]
        return owing[0] if owing else state.turn
