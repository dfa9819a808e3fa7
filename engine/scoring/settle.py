"""Settlement: who pays whom after a hand.

- The winner is paid his hand's value by each of the others, East paying or receiving double
  (1924 Law 81; Pung-Chow, Settling the Scores), the limit capping each payment (Law 93).
- The non-winners settle their differences, the lower paying the higher, East double, the limit
  capping the difference (Laws 82, 93; Pung-Chow II). The order of the payments follows the book:
  to the winner's right in turn (Law 82), or the high hand first (Pung-Chow).
- Pay-for-all: the insurance of 1924 Laws 77-79 and Pung-Chow's reckless discard make the
  discarder pay all that the losers owe the winner; then the losers do not settle (Law 79;
  Pung-Chow Penalties note (b)).
- False Mah-jongg (Law 86; Pung-Chow II Penalties 1; Classical) replaces all other payments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.payment import Payment, net_by_seat
from engine.scoring.tables import Ruleset
from engine.seats import SEATS, Seat

EAST = Seat.E


def _east_factor(a: Seat, b: Seat, opts: Mapping[str, Any]) -> int:
    return 2 if opts.get("east_double", True) and EAST in (a, b) else 1


def pay_winner(
    winner: Seat,
    value: int,
    opts: Mapping[str, Any],
    seats: Sequence[Seat] = SEATS,
    pay_for_all: Seat | None = None,
    pay_for_all_rule: str = "",
    rule: str = "Code 1924, Law 81",
) -> list[Payment]:
    """Each other seat pays the winner ``value`` (already limited), East double (``rule``)."""
    out = []
    for seat in _in_turn(winner, seats):
        amount = value * _east_factor(seat, winner, opts)
        if amount == 0:
            continue
        if pay_for_all is not None:
            why = f"{seat.name}'s share, paid for all by {pay_for_all.name} ({pay_for_all_rule})"
            out.append(Payment(pay_for_all, winner, amount, why))
            continue
        if _east_factor(seat, winner, opts) == 1:
            why = f"winner ({rule})"
        elif winner == EAST:
            why = f"winner is East: paid double ({rule})"
        else:
            why = f"winner, East pays double ({rule})"
        out.append(Payment(seat, winner, amount, why))
    return out


def _in_turn(first: Seat, seats: Sequence[Seat]) -> list[Seat]:
    """The other seats, to the right of ``first`` in turn (Law 82)."""
    n = len(SEATS)
    return [
        SEATS[(int(first) + k) % n] for k in range(1, n) if SEATS[(int(first) + k) % n] in seats
    ]


def settle_losers(
    scores: Mapping[Seat, int],
    opts: Mapping[str, Any],
    order: str,
    after: Seat | None,
    rule: str,
) -> list[Payment]:
    """Each pair of non-winners settles the difference of their scores."""
    limit = opts.get("limit")
    mode = opts.get("loser_limit", "difference")
    seats = list(scores)
    if order == "score":
        # Pung-Chow: "the high hand of the three collecting the difference between his score
        # and each of the remaining two"; then the next two settle.
        seats.sort(key=lambda s: (-scores[s], _turn_distance(after, s)))
    else:
        seats.sort(key=lambda s: _turn_distance(after, s))
    out = []
    for i, a in enumerate(seats):
        for b in seats[i + 1 :]:
            sa, sb = scores[a], scores[b]
            if limit is not None and mode == "score":
                sa, sb = min(sa, int(limit)), min(sb, int(limit))
            diff = abs(sa - sb)
            if limit is not None and mode == "difference":
                diff = min(diff, int(limit))
            if diff == 0:
                continue
            high, low = (a, b) if sa > sb else (b, a)
            factor = _east_factor(high, low, opts)
            why = "difference between non-winners" + (", East double" if factor == 2 else "")
            out.append(Payment(low, high, diff * factor, f"{why} ({rule})"))
    return out


def _turn_distance(start: Seat | None, seat: Seat) -> int:
    return (int(seat) - int(start if start is not None else EAST)) % len(SEATS)


def false_mahjong(offender: Seat, ruleset: Ruleset, opts: Mapping[str, Any]) -> list[Payment]:
    """The penalty of a false call of Mah-jongg."""
    limit = opts.get("limit")
    if limit is None:
        limit = ruleset.penalty_limit or opts.get("limit_hand_value", 500)
    limit = int(limit)
    rule = ruleset.false_mahjong_rule
    out = []
    for seat in _in_turn(offender, SEATS):
        if ruleset.false_mahjong == "limit":
            # Law 86: the full limit to East, half to the others; East pays each the limit.
            amount = limit if EAST in (seat, offender) else limit // 2
        else:
            fixed = opts.get("false_mahjong_penalty", ruleset.false_mahjong_amount or None)
            amount = int(fixed) if fixed is not None else limit // 2
        out.append(Payment(offender, seat, amount, f"false Mah-jongg ({rule})"))
    return out


def net_of(payments: Sequence[Payment]) -> dict[str, int]:
    return net_by_seat(payments, SEATS)
