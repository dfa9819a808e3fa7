"""The scoresheet: running totals across hands and rounds, exported as JSON and CSV.

Players keep their chairs; the seat winds move round them as East passes (Code 1924, Laws
94-97; engine.rounds). Each hand's `mjtable score` result (its ``net`` by seat) is booked to
the players who held those seats, and whether East stays follows the family's rotation:
East keeps his seat on his own win, a drawn hand, or another player's false Mah-jongg (Laws 86,
94; Pung-Chow likewise); Classical rotates after every hand.

>>> sheet = Scoresheet("code1924/mixed", ["Ann", "Bob", "Cy", "Di"])
>>> row = sheet.record({"net": {"E": -136, "S": 272, "W": -68, "N": -68},
...                     "mahjong": {"valid": True}, "winner": "S"})
>>> sheet.totals["Bob"], sheet.match.east_player
(272, 1)
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import MalformedInput
from engine.rounds import Match, next_hand, start
from engine.rules import Ruleset as PlayRuleset
from engine.rules import get_ruleset
from engine.seats import SEATS, Seat, parse_seat


def _play_rules(name: str) -> PlayRuleset:
    try:
        return get_ruleset(name)
    except ValueError:
        return get_ruleset(name.split("/")[0])  # the league presets play as Classical


@dataclass(frozen=True)
class SheetRow:
    hand: int
    prevailing: str | None
    east: str
    winner: str | None
    outcome: str  # "win" | "drawn" | "false_mahjong"
    net: dict[str, int]
    totals: dict[str, int]


@dataclass
class Scoresheet:
    ruleset: str
    players: Sequence[str]
    match: Match = field(init=False)
    rows: list[SheetRow] = field(default_factory=list)
    totals: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        if len(self.players) != 4 or len(set(self.players)) != 4:
            raise MalformedInput("players", "a scoresheet names four different players")
        self._rules = _play_rules(self.ruleset)
        self.match = start(self._rules)
        self.totals = {p: 0 for p in self.players}

    def player_at(self, seat: Seat) -> str:
        return self.players[(int(seat) + self.match.east_player) % 4]

    def record(
        self,
        result: Mapping[str, Any],
        east_stays: bool | None = None,
        confirmed: bool = False,
    ) -> SheetRow:
        """Book one hand's result (the `mjtable score` output, with ``winner`` as given in
        the input) and move the match on. A false Mah-jongg found by scoring (its ``mahjong``
        says ``confirm``) is a penalty: it is booked only with ``confirmed=True``, once the
        referee has seen why the hand is no Mah-jongg."""
        net_by_seat = result.get("net")
        if not isinstance(net_by_seat, Mapping):
            raise MalformedInput("net", "a scored hand has a net by seat")
        mahjong = result.get("mahjong") or {}
        if mahjong.get("confirm") and not confirmed:
            raise MalformedInput(
                "mahjong",
                f"{mahjong.get('reason', 'no Mah-jongg')}: the referee confirms the false "
                "Mah-jongg before its penalty is entered",
            )
        winner_seat = result.get("winner")
        winner = parse_seat(winner_seat, "winner") if winner_seat is not None else None
        if mahjong.get("valid"):
            outcome = "win"
        elif mahjong.get("drawn"):
            outcome = "drawn"
        else:
            outcome = "false_mahjong"
        net = {self.player_at(s): int(net_by_seat.get(s.name, 0)) for s in SEATS}
        for player, amount in net.items():
            self.totals[player] += amount
        row = SheetRow(
            hand=self.match.hand + 1,
            prevailing=self.match.prevailing.name if self.match.prevailing is not None else None,
            east=self.player_at(Seat.E),
            winner=self.player_at(winner) if winner is not None and outcome == "win" else None,
            outcome=outcome,
            net=net,
            totals=dict(self.totals),
        )
        self.rows.append(row)
        if east_stays is None:
            east_stays = self._east_stays(outcome, winner, net_by_seat)
        self.match = next_hand(self._rules, self.match, east_stays)
        return row

    def _east_stays(
        self, outcome: str, winner: Seat | None, net_by_seat: Mapping[str, Any]
    ) -> bool:
        if self._rules.rotation == "every_hand":
            return False
        if outcome == "win":
            return winner == Seat.E
        if outcome == "drawn":
            return True
        # a false call: East keeps the seat unless East made it (Law 86)
        return int(net_by_seat.get("E", 0)) >= 0

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "players": list(self.players),
            "hands": [row.__dict__ for row in self.rows],
            "totals": dict(self.totals),
            "next": {
                "hand": self.match.hand + 1,
                "prevailing": self.match.prevailing.name if self.match.prevailing else None,
                "east": self.player_at(Seat.E),
            },
        }

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            ["hand", "prevailing", "east", "winner", "outcome"]
            + [f"{p} net" for p in self.players]
            + [f"{p} total" for p in self.players]
        )
        for r in self.rows:
            writer.writerow(
                [r.hand, r.prevailing or "", r.east, r.winner or "", r.outcome]
                + [r.net[p] for p in self.players]
                + [r.totals[p] for p in self.players]
            )
        return out.getvalue()
