"""One payment between two seats, the settlement type of every rule family: the classical
scorer's (``engine.scoring.settle``) and the American game's (``engine.american.payments``).

>>> from engine.seats import Seat
>>> Payment(Seat.S, Seat.E, 64, "Code 1924, Law 81").to_json()
{'from': 'S', 'to': 'E', 'amount': 64, 'why': 'Code 1924, Law 81'}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.seats import Seat


@dataclass(frozen=True)
class Payment:
    """``payer`` pays ``payee`` ``amount``; ``why`` names the rule, as the scoresheet shows."""

    payer: Seat
    payee: Seat
    amount: int
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"from": self.payer.name, "to": self.payee.name, "amount": self.amount,
                "why": self.why}


def net_by_seat(payments: Iterable[Payment], seats: Iterable[Seat]) -> dict[str, int]:
    """Each seat's net: what it was paid less what it paid.

    >>> net_by_seat([Payment(Seat.S, Seat.E, 64, "")], (Seat.E, Seat.S))
    {'E': 64, 'S': -64}
    """
    net = {seat.name: 0 for seat in seats}
    for p in payments:
        net[p.payer.name] -= p.amount
        net[p.payee.name] += p.amount
    return net
