"""Points to chips or money: a game's settlement at the rate the table sets, with each book's
own rules on chips, limits and settling.

The scorer already pays each hand in points, the book's limit applied (Code 1924, Law 93;
Harr, Part II, The Limit Hand); here those payments are re-expressed in the table's unit. Each
payment is converted on its own and rounded to the unit's smallest step, so what one player
pays another is what the other receives, and a hand still sums to zero.

What each book says (:func:`money_rules`):

- Code 1924: every hand is settled as it ends, the winner first, then the others among
  themselves (Laws 81-82), and after the last payment no error is corrected (Law 85); the
  limit is 500 a payment, East paying or receiving double (Law 93). It names no chips.
- Pung-Chow (Harr): "at the end of every hand" the scores are settled by exchanging the
  counters that come with the set: 1,000, 500, 100, 10 and 2 points ("Settling the Scores");
  with stakes a limit is set before play, usually 300 or 400, East liable for double ("Playing
  with a Limit", The Limit Hand), since unlimited hands are "impractical" with a stake.
- American: each line's value is printed on the card and "payment is in those units (cents at
  most tables, points in tournaments)" ("Values and units"); paid at each Mah Jongg (SC-2,
  SC-3). The book sets no limit: the card's values are the payments.
- Classical: the book's scoring is not part of it; our table's limit is 500 (BMJA 1000).

Where a book is silent our choice is named as such: chips are the table's own (one chip worth
``1 / per_point`` points), amounts are rounded half up to the unit's step, and a table may
settle once at the end of the game instead of hand by hand (rounded so the game still sums to
zero, the odd steps going to the largest remainders).

>>> s = Stakes("USD", Decimal("0.01"))
>>> convert_payments([{"from": "Bob", "to": "Ann", "amount": 136}], s)[0]["money"]
'1.36'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal
from typing import Any, Literal

from engine.errors import MalformedInput

Settle = Literal["hand", "game"]
CHIPS = "chips"
# Harr, "Settling the Scores": the counter set "in most common usage", in points. Each value
# divides the one above it, so the fewest counters are found by taking the largest first.
HARR_COUNTERS = (1000, 500, 100, 10, 2)
HARR_COUNTERS_RULE = "Harr, Settling the Scores (the counters: 1,000, 500, 100, 10, 2 points)"


@dataclass(frozen=True)
class Stakes:
    """The table's rate: ``per_point`` of ``unit`` (``"chips"`` or a currency such as
    ``"USD"``) for each point; amounts to ``decimals`` places (chips 0, money 2 unless told);
    ``settle`` each hand as it ends (every book) or once when the game ends (our choice)."""

    unit: str
    per_point: Decimal
    settle: Settle = "hand"
    decimals: int | None = None

    def __post_init__(self) -> None:
        if not self.unit.strip():
            raise MalformedInput("stakes.unit", "name the unit: chips or a currency (USD)")
        if not self.per_point.is_finite() or self.per_point <= 0:
            raise MalformedInput("stakes.per_point",
                                 f"a point is worth more than nothing, not {self.per_point}")
        if self.settle not in ("hand", "game"):
            raise MalformedInput("stakes.settle", f"hand or game, not {self.settle!r}")
        if self.decimals is not None and not 0 <= self.decimals <= 6:
            raise MalformedInput("stakes.decimals", "0 to 6 places")

    @property
    def places(self) -> int:
        if self.decimals is not None:
            return self.decimals
        return 0 if self.unit == CHIPS else 2

    @property
    def step(self) -> Decimal:
        return Decimal(1).scaleb(-self.places)

    def exact(self, points: int) -> Decimal:
        return Decimal(points) * self.per_point

    def amount(self, points: int) -> Decimal:
        """``points`` in the unit, rounded half up (away from zero) to the unit's step."""
        return self.exact(points).quantize(self.step, rounding=ROUND_HALF_UP)

    def text(self, value: Decimal) -> str:
        return str(value.quantize(self.step))

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "per_point": str(self.per_point), "settle": self.settle,
                "decimals": self.places}


@dataclass(frozen=True)
class MoneyRules:
    """One book's word on chips, the limit and settling; ``None`` rule text: the book is
    silent and the value is our choice (said so in ``*_rule``)."""

    family: str
    limit: int | None  # points a payment, East double; None: the book sets none
    limit_rule: str
    settling_rule: str
    chips_rule: str
    counters: tuple[int, ...] = ()  # the book's own counters, in points
    warning: str = ""  # what the book says against playing for stakes this way

    def limit_json(self, stakes: Stakes) -> dict[str, Any] | None:
        if self.limit is None:
            return None
        return {"points": self.limit, "east_points": 2 * self.limit,
                "amount": stakes.text(stakes.amount(self.limit)),
                "east_amount": stakes.text(stakes.amount(2 * self.limit)),
                "rule": self.limit_rule}


OUR_CHIPS = ("our choice: the book names no chips; a chip is worth 1 / per_point points, "
             "each payment rounded half up to the unit's step (a whole chip, a cent)")


def money_rules(ruleset: str, limit: int | None = None, unlimited: bool = False
                ) -> MoneyRules:
    """The book's rules for playing ``ruleset`` for chips or money. ``limit``: the table's
    limit where its options set one (else the book's); ``unlimited``: its options play
    without one."""
    rules = _book_money_rules(ruleset, limit)
    if not unlimited:
        return rules
    return replace(rules, limit=None, limit_rule=f"none: the table's house rule plays without "
                   f"a limit (the book: {rules.limit_rule})",
                   warning=_HARR_WARNING if rules.family == "pungchow" else "")


_HARR_WARNING = ("Harr, Playing with a Limit: unlimited hands are impractical when a stake is "
                 "set; play pungchow/limit, or set a limit")


def _book_money_rules(ruleset: str, limit: int | None) -> MoneyRules:
    family, _, preset = ruleset.partition("/")
    if family == "code1924":
        return MoneyRules(
            family, 500 if limit is None else limit,
            "Code 1924, Law 93 (500 a payment, East paying or receiving double)",
            "Code 1924, Laws 81-82, Law 85 (each hand settled as it ends; no error corrected "
            "after the last payment)", OUR_CHIPS)
    if family == "pungchow":
        book_limit = 300 if preset == "limit" else None
        chosen = book_limit if limit is None else limit
        warning = "" if chosen is not None else _HARR_WARNING
        return MoneyRules(
            family, chosen,
            "Harr, Part II, The Limit Hand (set before play, usually 300 or 400; East liable "
            "for double)",
            "Harr, Settling the Scores (settled at the end of every hand)",
            HARR_COUNTERS_RULE, HARR_COUNTERS, warning)
    if family == "american":
        return MoneyRules(
            family, limit,
            "American, Values and units: the card's printed values are the payments; the "
            "book sets no limit",
            "American SC-2, SC-3 (paid at each Mah Jongg); Values and units (cents at most "
            "tables, points in tournaments)", OUR_CHIPS)
    if family == "classical":
        book_limit = 1000 if preset == "bmja" else 500
        return MoneyRules(
            family, book_limit if limit is None else limit,
            "our choice: the Classical book's scoring is not part of it; the table's limit "
            "(500, BMJA 1000) a payment, East double as Code 1924, Law 93",
            "our choice: each hand settled as it ends, as Code 1924, Law 81", OUR_CHIPS)
    raise MalformedInput("ruleset", f"no rules for stakes in {ruleset!r}")


def counters(points: int, denominations: Sequence[int] = HARR_COUNTERS) -> dict[int, int]:
    """The fewest counters that make ``points`` (Harr's set by default). An odd point, which
    no counter makes, is rounded up to the smallest counter (our choice).

    >>> counters(1216)
    {1000: 1, 100: 2, 10: 1, 2: 3}
    """
    if points < 0:
        raise MalformedInput("points", f"counters pay an amount, not {points}")
    smallest = denominations[-1]
    left = -(-points // smallest) * smallest
    out: dict[int, int] = {}
    for value in denominations:
        n, left = divmod(left, value)
        if n:
            out[value] = n
    return out


def convert_payments(payments: Sequence[Mapping[str, Any]], stakes: Stakes,
                     rules: MoneyRules | None = None) -> list[dict[str, Any]]:
    """Each payment (``from``, ``to``, ``amount`` in points) with its ``money``; with a book
    that has counters, the ``counters`` that pay it."""
    out = []
    for p in payments:
        points = int(p["amount"])
        row: dict[str, Any] = {"from": p["from"], "to": p["to"], "points": points,
                               "money": stakes.text(stakes.amount(points))}
        if rules is not None and rules.counters:
            row["counters"] = {str(k): v for k, v in counters(points, rules.counters).items()}
        out.append(row)
    return out


def hand_money(payments: Sequence[Mapping[str, Any]], players: Sequence[str],
               stakes: Stakes) -> dict[str, Decimal]:
    """Each player's net for one hand in the unit, payment by payment (so it sums to zero)."""
    net = {p: Decimal(0) for p in players}
    for p in payments:
        amount = stakes.amount(int(p["amount"]))
        net[str(p["from"])] = net.get(str(p["from"]), Decimal(0)) - amount
        net[str(p["to"])] = net.get(str(p["to"]), Decimal(0)) + amount
    return net


def settle_totals(totals: Mapping[str, int], stakes: Stakes) -> dict[str, Decimal]:
    """Point totals that sum to zero, converted once (a game settled at its end, our choice):
    each rounded down to the unit's step, the steps left over going to the largest remainders
    (ties to the earlier player), so the amounts still sum to zero."""
    exact = {p: stakes.exact(t) for p, t in totals.items()}
    floors = {p: v.quantize(stakes.step, rounding=ROUND_FLOOR) for p, v in exact.items()}
    short = -sum(floors.values(), Decimal(0))
    order = sorted(exact, key=lambda p: -(exact[p] - floors[p]))
    for p in order:
        if short <= 0:
            break
        floors[p] += stakes.step
        short -= stakes.step
    return floors


def _hand_payments(hand: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    score = hand.get("score")
    if isinstance(score, Mapping) and isinstance(score.get("payments"), list):
        return list(score["payments"])
    return None


def convert_hand(hand: Mapping[str, Any], players: Sequence[str], stakes: Stakes,
                 rules: MoneyRules) -> dict[str, Any]:
    """One exported hand in the unit: its payments, and each player's net."""
    payments = _hand_payments(hand)
    if payments is None:  # a hand with no payments kept: its net, player by player
        net = {p: stakes.amount(int(hand["net"].get(p, 0))) for p in players}
        converted: list[dict[str, Any]] = []
    else:
        net = hand_money(payments, players, stakes)
        converted = convert_payments(payments, stakes, rules)
    return {"hand": hand["hand"], "net": {p: stakes.text(v) for p, v in net.items()},
            "payments": converted}


def convert_game(game: Mapping[str, Any], stakes: Stakes, limit: int | None = None,
                 unlimited: bool = False) -> dict[str, Any]:
    """A game as `mjtable export` gives it (players, hands with their scoring result, totals,
    final) in the table's unit: the ``stakes`` block the export adds beside the points.
    ``limit``/``unlimited``: the table's house rule on the limit, if it has one."""
    rules = money_rules(str(game["ruleset"]), limit, unlimited)
    players = list(game["players"])
    hands = [convert_hand(h, players, stakes, rules) for h in game["hands"]]
    if stakes.settle == "hand":
        totals = {p: sum((Decimal(h["net"][p]) for h in hands), Decimal(0)) for p in players}
        settling = rules.settling_rule
    else:
        totals = settle_totals(game["totals"], stakes)
        settling = ("our choice: the points are kept through the game and settled once at its "
                    f"end (the book: {rules.settling_rule})")
    final = None
    if game.get("final") is not None:
        final = {"settlement": {p: stakes.text(totals[p]) for p in players}}
    out: dict[str, Any] = {
        **stakes.to_json(),
        "limit": rules.limit_json(stakes),
        "rules": {"limit": rules.limit_rule, "settling": settling, "chips": rules.chips_rule},
        "hands": hands,
        "totals": {p: stakes.text(totals[p]) for p in players},
        "final": final,
    }
    if rules.warning:
        out["warning"] = rules.warning
    return out
