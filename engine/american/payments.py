"""Paying for an American hand, and tournament points.

The League's schedule (seed "Values and units" to "No concealed bonus"):

* SC-1: each line's printed value, in the table's units.
* SC-2: a discard win — the discarder pays double, the others the value.
* SC-3: a self-picked win (from the wall, a Finesse J-12, a Heavenly or Earthly hand CH-9) —
  everybody pays double. Heavenly and Earthly *are* the self-pick, not an extra double (SC-12).
* SC-4/SC-5: jokerless doubles the value first, never on Singles and Pairs.
* SC-6: a dead hand pays the full value at the single rate.
* SC-10/SC-11: East pays like everyone; no concealed bonus.
* MN-3, MN-4, P-6: "paying for the table" — the misnamer alone pays four times.
* DH-6: a disputed challenge costs whoever was wrong 50.

Choices the book leaves open (rule-decisions.md, American) are :class:`PaymentOptions` with
documented defaults.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from engine.payment import Payment, net_by_seat
from engine.seats import Seat

WinBy = Literal["discard", "wall", "finesse", "heavenly", "earthly"]
SELF_PICKED: frozenset[str] = frozenset({"wall", "finesse", "heavenly", "earthly"})


@dataclass(frozen=True)
class PaymentOptions:
    """House rules for payment; every default is the League's schedule."""

    jokerless_double: bool = True  # SC-4 (SC-8: some tables play only this double)
    self_pick_double: bool = True  # SC-3
    discarder_double: bool = True  # SC-2
    # SC-8: some tables drop the Heavenly/Earthly doubles: they are then paid as a discard win
    # would be by everyone (single).
    heavenly_earthly_double: bool = True
    # Q3 of rule-decisions: SC-6 "at the single rate" applies to every payment of a dead hand,
    # the self-pick included. A dead hand that threw the winning tile still pays as the
    # discarder (the throw, SC-2, is what it pays for): set False to make it single too.
    dead_discarder_pays_double: bool = True
    challenge_amount: int = 50  # DH-6


# Card files may set these (`option jokerless_double off`, docs/cards.md); "heavenly_double"
# is the design note's name for heavenly_earthly_double.
OPTION_ALIASES = {"heavenly_double": "heavenly_earthly_double"}


def payment_options(settings: dict[str, int | bool]) -> PaymentOptions:
    """PaymentOptions from a card's `option` lines; unknown names are ignored here (the card
    linter warns about them)."""
    known = {f for f in PaymentOptions.__dataclass_fields__}
    chosen: dict[str, int | bool] = {}
    for name, value in settings.items():
        name = OPTION_ALIASES.get(name, name)
        if name in known:
            chosen[name] = value
    return PaymentOptions(**chosen)  # type: ignore[arg-type]


def known_options() -> set[str]:
    return set(PaymentOptions.__dataclass_fields__) | set(OPTION_ALIASES)


@dataclass(frozen=True)
class Win:
    """A verified Mah Jongg: the line's printed value and how the winning tile came."""

    winner: Seat
    value: int
    by: WinBy
    discarder: Seat | None = None
    jokerless: bool = False  # already False for a Finesse (J-12) and Singles and Pairs (SC-5)
    exposures: int = 0  # the winner's exposures (tournament thrower penalty, SC-9)


@dataclass
class Settlement:
    payments: list[Payment] = field(default_factory=list)

    def net(self, seats: Iterable[Seat]) -> dict[str, int]:
        return net_by_seat(self.payments, seats)

    def as_json(self, seats: Iterable[Seat]) -> dict[str, object]:
        return {"payments": [p.to_json() for p in self.payments], "net": self.net(seats)}


def hand_value(win: Win, options: PaymentOptions = PaymentOptions()) -> tuple[int, str]:
    """The value each payment multiplies: doubled first if jokerless (SC-4)."""
    if win.jokerless and options.jokerless_double:
        return win.value * 2, "jokerless, doubled first (American SC-4)"
    return win.value, ""


def settle_win(win: Win, players: Sequence[Seat], dead: Iterable[Seat] = (),
               options: PaymentOptions = PaymentOptions()) -> Settlement:
    """Who pays the winner what. ``players`` are the seats at the table (two-, three- and
    four-handed games pay by the same schedule among those present); ``dead`` are the hands
    dead at the end (declared, or found dead when the tiles are shown)."""
    base, note = hand_value(win, options)
    dead_seats = set(dead)
    self_pick = win.by in SELF_PICKED
    if win.by in ("heavenly", "earthly") and not options.heavenly_earthly_double:
        self_pick = False
    out = Settlement()
    for seat in players:
        if seat == win.winner:
            continue
        if self_pick:
            double, why = options.self_pick_double, {
                "wall": "self-picked: all pay double (American SC-3)",
                "finesse": "Finesse: self-picked, all pay double (American J-12, SC-3)",
                "heavenly": "Heavenly Hand: paid as self-picked (American CH-9, SC-3)",
                "earthly": "Earthly Hand: paid as self-picked (American CH-9, SC-3)",
            }[win.by]
        elif seat == win.discarder:
            double, why = options.discarder_double, "threw the winning tile: pays double " \
                "(American SC-2)"
        else:
            double, why = False, "pays the value (American SC-2)"
        if seat in dead_seats and not (seat == win.discarder and not self_pick
                                       and options.dead_discarder_pays_double):
            double, why = False, "dead hand: pays the full value at the single rate " \
                "(American SC-6)"
        amount = base * (2 if double else 1)
        out.payments.append(Payment(seat, win.winner, amount,
                                    f"{why}; {note}" if note else why))
    return out


def pay_for_the_table(value: int, misnamer: Seat, collector: Seat, rule: str) -> Settlement:
    """MN-3, MN-4, P-6: the misnamer (or the discarder of a looked-ahead tile) alone pays four
    times the value; the others pay nothing."""
    return Settlement([Payment(misnamer, collector, 4 * value,
                               f"pays for the table: four times the value (American {rule})")])


def settle_challenge(challenger: Seat, challenged: Seat, challenger_was_right: bool,
                     options: PaymentOptions = PaymentOptions()) -> Payment:
    """DH-6: a disputed call is settled when the tiles are shown; whoever was wrong at the
    moment of the challenge pays the other."""
    if challenger_was_right:
        return Payment(challenged, challenger, options.challenge_amount,
                       "denied a dead hand that was dead (American DH-6)")
    return Payment(challenger, challenged, options.challenge_amount,
                   "called dead a hand that was not (American DH-6)")


def false_mahjong_cascade(*, declarer: Seat, thrown_in: Sequence[Seat], intact: Sequence[Seat],
                          attempted_values: dict[Seat, int], lowest_value: int,
                          wall_destroyed_by: Seat | None = None,
                          later_dead: Seat | None = None) -> Settlement:
    """M-4, when a false Mah Jongg made others throw in their hands (``thrown_in``, in order;
    ``intact`` the hands still standing):

    * a player destroyed the wall before the error was found: that player pays each remaining
      player the card's lowest value;
    * two threw in: the false declarer pays the one intact player double that player's hand;
    * one threw in: the two intact hands play on; if one of them (``later_dead``) then goes
      dead, it pays the remaining player double the hand that player was attempting.
    """
    out = Settlement()
    if wall_destroyed_by is not None:
        for seat in intact:
            if seat != wall_destroyed_by:
                out.payments.append(Payment(wall_destroyed_by, seat, lowest_value,
                                            "destroyed the wall before the error was found: "
                                            "the card's lowest value (American M-4)"))
    elif len(thrown_in) >= 2 and len(intact) == 1:
        survivor = intact[0]
        out.payments.append(Payment(declarer, survivor, 2 * attempted_values[survivor],
                                    "false Mah Jongg, two hands thrown in: double the intact "
                                    "player's hand (American M-4)"))
    elif len(thrown_in) == 1 and later_dead is not None:
        survivor = next(s for s in intact if s != later_dead)
        out.payments.append(Payment(later_dead, survivor, 2 * attempted_values[survivor],
                                    "went dead after a false Mah Jongg cascade: double the "
                                    "remaining player's hand (American M-4)"))
    return out


def bettor_settlement(base: Settlement, chosen: Seat, winner: Seat | None, bettor: str = "B",
                      lowest_value: int = 0, bet_on_wall: bool = False,
                      players: Sequence[Seat] = ()) -> list[tuple[str, str, int, str]]:
    """The Bettor (B-1..B-4), as (payer, payee, amount, why) with "B" for the Bettor: paid
    exactly as the player bet on; a wrong pick pays the winner what the chosen player pays;
    a correct wall-game bet collects the card's lowest value from each player."""
    out: list[tuple[str, str, int, str]] = []
    if winner is None:
        if bet_on_wall:
            out += [(s.name, bettor, lowest_value, "wall-game bet (American B-4)")
                    for s in players]
        return out
    if chosen == winner:
        out += [(p.payer.name, bettor, p.amount, "the Bettor is paid as the winner (B-3)")
                for p in base.payments if p.payee == winner]
    else:
        paid = sum(p.amount for p in base.payments if p.payer == chosen)
        out.append((bettor, winner.name, paid,
                    "the Bettor pays the winner what the chosen player pays (B-3)"))
    return out


# -- tournament points (SC-9) ------------------------------------------------------------------

@dataclass(frozen=True)
class TournamentOptions:
    bonuses_add: bool = True  # Q6: self-pick +10 and jokerless +20 add up
    earthly_self_pick_bonus: bool = True  # Q6: only Heavenly is excluded by the book
    finesse_self_pick_bonus: bool = True  # Q6: a Finesse is self-picked (J-12)


def tournament_points(win: Win | None, players: Sequence[Seat], dead: Iterable[Seat] = (),
                      misnamer: Seat | None = None, blind_peekers: Iterable[Seat] = (),
                      unfinished: bool = False,
                      options: TournamentOptions = TournamentOptions()
                      ) -> dict[str, tuple[int, list[str]]]:
    """Points per seat with the reasons (American SC-9, W-2)."""
    points: dict[Seat, tuple[int, list[str]]] = {s: (0, []) for s in players}

    def add(seat: Seat, n: int, why: str) -> None:
        total, reasons = points[seat]
        points[seat] = (total + n, [*reasons, why])

    dead_seats = set(dead)
    if unfinished:
        return {s.name: (0, ["game not finished at time: 0 for everyone (SC-9)"])
                for s in players}
    if win is None:
        for seat in players:
            if seat in dead_seats:
                add(seat, 0, "dead hand: no wall points (SC-9, W-2)")
            else:
                add(seat, 10, "wall game +10 (SC-9)")
    else:
        add(win.winner, win.value, "card value (SC-9)")
        self_pick = (win.by == "wall" or (win.by == "earthly" and options.earthly_self_pick_bonus)
                     or (win.by == "finesse" and options.finesse_self_pick_bonus))
        if self_pick:
            add(win.winner, 10, "self-pick +10 (SC-9)")
        if win.jokerless and (options.bonuses_add or not self_pick):
            add(win.winner, 20, "jokerless +20 (SC-9)")
        if win.by == "discard" and win.discarder is not None:
            penalty = 10 if win.exposures <= 1 else 20 if win.exposures == 2 else 25
            add(win.discarder, -penalty,
                f"threw the winning tile, winner had {win.exposures} exposures (SC-9)")
    if misnamer is not None and win is not None:
        add(misnamer, -25, "misnamed the discard that gave Mah Jongg (SC-9, MN-3)")
    for seat in blind_peekers:
        add(seat, -10, "looked at a blind-pass tile (SC-9)")
    return {s.name: v for s, v in points.items()}
