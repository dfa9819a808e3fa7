"""The game record: players by name, East's passing, the Round of the Winds, running totals and
the final settlement, for every family and table size; exported as JSON and CSV.

Players keep their chairs; the seat winds move round them as East passes (Code 1924, Laws
94-97; engine.rounds). Each hand's result (its ``net`` by seat) is booked to the players who
held those seats. When East passes, when a drawn hand keeps him, and when the game ends are
each family's own (:func:`game_rules`, every rule cited):

- Code 1924: East keeps his seat on his own win, a drawn hand, or another's false call (Law
  94); the game is a Round of the Winds, four rounds (Laws 95-97), after which the players draw
  for positions again (Law 98).
- Pung-Chow: East keeps the wind box on his win or a drawn hand (Harr, Part I, A); four games
  of East make a round and four rounds a set (Part II, A); the players decide how many sets
  before starting (Part II, A): ``sets``.
- Classical: the seats rotate after every hand, washouts too (seed's "When the scoring is
  done"); the book names no end of a game: ours is four prevailing winds, as the Code's Round
  of the Winds.
- American: East and the dice pass to the right after every hand, won or a wall game ("Choosing
  East"); a hand thrown in is dealt again by the same East. The book defines no game beyond
  the hand: the table's config says how many hands make one (``hands_per_game``; default four,
  as a tournament round is four games, "Tournament play").

>>> sheet = Scoresheet("code1924/mixed", ["Ann", "Bob", "Cy", "Di"])
>>> row = sheet.record({"net": {"E": -136, "S": 272, "W": -68, "N": -68},
...                     "mahjong": {"valid": True}, "winner": "S"})
>>> sheet.totals["Bob"], sheet.player_at(Seat.E)
(272, 'Bob')
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from engine.errors import MalformedInput
from engine.rounds import CHAIRS, Match
from engine.seats import SEATS, Seat, parse_seat

Passing = Literal["east_keeps_on_win_or_draw", "every_hand"]
Outcome = Literal["win", "drawn", "false_mahjong", "thrown_in"]


@dataclass(frozen=True)
class GameRules:
    """How one family's game moves from hand to hand and when it ends."""

    family: str
    prevailing_wind: bool
    passing: Passing
    passing_rule: str
    drawn_rule: str
    end: Literal["rounds", "hands"]
    rounds: int  # rounds of East's passing that make a game (end == "rounds")
    hands: int  # hands that make a game (end == "hands")
    end_rule: str


DEFAULT_AMERICAN_HANDS = 4


def game_rules(ruleset: str, hands_per_game: int | None = None, sets: int = 1) -> GameRules:
    """The game rules of a ruleset name (a scoring preset plays as its family)."""
    family = ruleset.split("/")[0]
    if family == "code1924":
        return GameRules(
            family, True, "east_keeps_on_win_or_draw",
            "Code 1924, Law 94 (East keeps his seat on his own win, a drawn hand or another's "
            "false call); Law 95 (otherwise South becomes East)",
            "Code 1924, Law 94", "rounds", 4, 0,
            "Code 1924, Law 97 (four complete rounds make a Round of the Winds)",
        )
    if family == "pungchow":
        limit = ruleset == "pungchow/limit"
        return GameRules(
            family, limit, "east_keeps_on_win_or_draw",
            "Harr, Part I, A (East remains East Wind if he wins or the game is a draw)",
            "Harr, Part I, A", "rounds", 4 * max(1, sets), 0,
            f"Harr, Part II, A (four rounds make a set; {max(1, sets)} set(s) decided before "
            "starting)",
        )
    if family == "classical":
        return GameRules(
            family, True, "every_hand",
            "Classical, When the scoring is done (the seats rotate after each hand)",
            "Classical, When the scoring is done (a washout rotates too)", "rounds", 4, 0,
            "Classical names no end of a game: four prevailing winds, as Code 1924, Law 97",
        )
    if family == "american":
        n = hands_per_game or DEFAULT_AMERICAN_HANDS
        return GameRules(
            family, False, "every_hand",
            "American, Choosing East (after each hand, won or a wall game, East passes to "
            "the right)",
            "American, Choosing East (a wall game passes East too)", "hands", 0, n,
            f"American: no game is defined beyond the hand; the table's config makes {n} "
            "hands a game (a tournament round is four games)",
        )
    raise MalformedInput("ruleset", f"no game rules for {ruleset!r}")


def default_players(n: int) -> list[str]:
    """Names for players the table was not told: never a seat letter, which would be mistaken
    for the seat the player holds once East passes."""
    return [f"Player {i + 1}" for i in range(n)]


@dataclass(frozen=True)
class SheetRow:
    hand: int
    prevailing: str | None
    east: str
    winner: str | None
    outcome: str  # "win" | "drawn" | "false_mahjong" | "thrown_in"
    net: dict[str, int]
    totals: dict[str, int]
    seats: dict[str, str] = field(default_factory=dict)  # seat -> player this hand


@dataclass
class Scoresheet:
    """One game. ``players``: the names in the first hand's seat order (E, S, W, N; three
    players sit E, S, N and two E, W, as engine.rounds.CHAIRS), so the first East is
    ``players[0]``."""

    ruleset: str
    players: Sequence[str]
    hands_per_game: int | None = None
    sets: int = 1
    match: Match = field(init=False)
    rows: list[SheetRow] = field(default_factory=list)
    totals: dict[str, int] = field(init=False)
    ended_early: str | None = None  # why the game ended before its rules end it
    rounds_done: int = field(default=0, init=False)  # rounds of East's passing completed

    def __post_init__(self) -> None:
        n = len(self.players)
        if n not in CHAIRS:
            raise MalformedInput("players", f"a game seats 2, 3 or 4 players, not {n}")
        if len(set(self.players)) != n or not all(str(p).strip() for p in self.players):
            raise MalformedInput("players", f"a scoresheet names {n} different players")
        seat_letters = [p for p in self.players if p in ("E", "S", "W", "N")]
        if seat_letters:
            raise MalformedInput(
                "players", f"{seat_letters[0]!r} is a seat letter: name the player, not the "
                "seat (the seats move round the players)")
        self.rules = game_rules(self.ruleset, self.hands_per_game, self.sets)
        self.match = Match(prevailing=Seat.E if self.rules.prevailing_wind else None,
                           chairs=CHAIRS[n])
        self.totals = {p: 0 for p in self.players}

    # -- who sits where ------------------------------------------------------------------

    def player_at(self, seat: Seat) -> str | None:
        """The player holding ``seat`` this hand (None: an empty chair of a short table)."""
        chair = (int(seat) + self.match.east_player) % 4
        chairs = self.match.chairs
        return self.players[chairs.index(chair)] if chair in chairs else None

    def seating(self) -> dict[str, str]:
        """Seat letter -> player, this hand."""
        return {s.name: p for s in SEATS if (p := self.player_at(s)) is not None}

    # -- booking a hand ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        if self.ended_early is not None:
            return True
        if self.rules.end == "hands":  # a hand thrown in is dealt again: not a hand played
            return sum(r.outcome != "thrown_in" for r in self.rows) >= self.rules.hands
        return self.rounds_done >= self.rules.rounds

    def record(
        self,
        result: Mapping[str, Any],
        east_stays: bool | None = None,
        outcome: Outcome | None = None,
        seats: Mapping[str, str] | None = None,
        prevailing: str | None = None,
        confirmed: bool = False,
    ) -> SheetRow:
        """Book one hand's result (the `mjtable score` output, with ``winner`` as given in
        the input) and move the game on. ``seats``: who held each seat, where the table says
        (its word is kept; by default the sheet's own seating); ``prevailing``: the wind the
        hand was played in, where the table says; ``east_stays``: the table's word on East,
        where it differs from the book's (:meth:`east_stays`). A false Mah-jongg found by
        scoring (its ``mahjong`` says ``confirm``) is a penalty: it is booked only with
        ``confirmed=True``, once the referee has seen why the hand is no Mah-jongg."""
        if self.over:
            raise MalformedInput("hand", "the game is over: start a new game")
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
        outcome = outcome or outcome_of(result)
        held = dict(seats) if seats is not None else self.seating()
        unknown = [p for p in held.values() if p not in self.totals]
        if unknown:
            raise MalformedInput("seats", f"{unknown[0]!r} does not play in this game")
        net = {p: 0 for p in self.players}
        for seat, player in held.items():
            net[player] += int(net_by_seat.get(seat, 0))
        for player, amount in net.items():
            self.totals[player] += amount
        row = SheetRow(
            hand=len(self.rows) + 1,
            prevailing=prevailing or (self.match.prevailing.name if self.match.prevailing
                                      is not None else None),
            east=held.get("E") or "",
            winner=held.get(winner.name) if winner is not None and outcome == "win" else None,
            outcome=outcome,
            net=net,
            totals=dict(self.totals),
            seats=held,
        )
        self.rows.append(row)
        if east_stays is None:
            east_stays = self.east_stays(outcome, winner, net_by_seat)
        self._advance(east_stays)
        return row

    def east_stays(
        self, outcome: str, winner: Seat | None, net_by_seat: Mapping[str, Any]
    ) -> bool:
        """The book's word on whether East keeps the seat after this hand."""
        if outcome == "thrown_in":  # dealt again, by the same East (American CH-7)
            return True
        if self.rules.passing == "every_hand":
            return False
        if outcome == "win":
            return winner == Seat.E
        if outcome == "drawn":
            return True
        # a false call: East keeps the seat unless East made it (Code 1924, Law 94)
        return int(net_by_seat.get("E", 0)) >= 0

    def _advance(self, east_stays: bool) -> None:
        m = self.match
        if east_stays:
            self.match = Match(m.hand + 1, m.prevailing, m.passes, m.east_player, m.chairs)
            return
        passes, prevailing = m.passes + 1, m.prevailing
        if passes == len(m.chairs):  # each player has held and lost East: a round (Law 95)
            passes = 0
            self.rounds_done += 1
            if prevailing is not None:  # the next wind prevails (Law 96)
                prevailing = SEATS[(prevailing + 1) % 4]
        k = m.chairs.index(m.east_player)
        self.match = Match(m.hand + 1, prevailing, passes, m.chairs[(k + 1) % len(m.chairs)],
                           m.chairs)

    def end(self, why: str) -> None:
        """End the game before its rules do (the players stop for the evening)."""
        if not why.strip():
            raise MalformedInput("reason", "an early end names its reason")
        if self.ended_early is None and not self.over:
            self.ended_early = why

    def final(self) -> dict[str, Any] | None:
        """The final settlement once the game is over (None while it goes on): each player's
        total, which sums to zero, as every hand settles among the players."""
        if not self.over:
            return None
        ranked = sorted(self.players, key=lambda p: -self.totals[p])
        return {
            "settlement": dict(self.totals),
            "ranking": ranked,
            "hands": len(self.rows),
            "rounds": self.rounds_done,
            "why": self.ended_early or self.rules.end_rule,
        }

    # -- export ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        nxt = None if self.over else {
            "hand": len(self.rows) + 1,
            "prevailing": self.match.prevailing.name if self.match.prevailing else None,
            "east": self.player_at(Seat.E),
        }
        return {
            "ruleset": self.ruleset,
            "players": list(self.players),
            "hands": [asdict(row) for row in self.rows],
            "totals": dict(self.totals),
            "next": nxt,
            "final": self.final(),
            "rules": {"passing": self.rules.passing_rule, "drawn": self.rules.drawn_rule,
                      "end": self.rules.end_rule},
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


def outcome_of(result: Mapping[str, Any]) -> Outcome:
    """A hand's outcome from its scoring result, or from the table's ``result`` word
    (``mahjong``, ``drawn``, ``wall``, ``washed``, ``false_mahjong``, ``thrown_in``)."""
    word = result.get("result")
    if word in ("drawn", "wall", "washed"):
        return "drawn"
    if word in ("thrown_in", "redeal"):
        return "thrown_in"
    if word == "false_mahjong":
        return "false_mahjong"
    mahjong = result.get("mahjong") or {}
    if mahjong.get("valid") or (word == "mahjong" and not mahjong):
        return "win"
    if mahjong.get("drawn") or (result.get("winner") is None and not mahjong):
        return "drawn"
    return "false_mahjong"
