"""Standings schemes: how an event turns its finished games into a ranking.

Every scheme reads the hub's records (:mod:`hub.records`) of finished games only; a game in
progress counts when it ends. Players are the names the tables seated (a registered player is
matched to the name when the game is seated).

* ``raw``: the sum of the player's game totals as the tables' own scoresheets give them.
  Ties: more hands won, then fewer games, then the name (as :func:`hub.standings.raw`).
* ``placement``: table placement points per game, 4 for first, 2 for second, 1 for third and
  0 for fourth by the game's totals (the table points of the European Mahjong Association's
  Mahjong Competition Rules tournaments). Players tied on a game's total share the points of
  the places they span: two tied for first take (4 + 2) / 2 = 3 each; three tied for second
  take (2 + 1 + 0) / 3 = 1 each. A table of three awards the first three places' points
  (4, 2, 1). Ties in the standings: the raw points, then more hands won, then the name.
* ``american``: the tournament points of American tournament play, hand by hand (American
  "Tournament points", SC-9), summed over the American games only. Each hand's points are
  what the American engine booked with ``engine.american.payments.tournament_points``:

  - the winner scores the card value of the line, +10 for a self-pick (none for a Heavenly
    Hand), +20 for a jokerless hand (never on Singles and Pairs) (SC-9);
  - the player who threw the winning tile: -10 if the winner had no exposure or one, -20 for
    two, -25 for three or more (SC-9);
  - a wall game: +10 to every player; a hand that went dead, or was declared dead, scores zero,
    taking neither the wall points nor a penalty (SC-9, W-2);
  - misnaming the discard that gave Mah Jongg: -25 (SC-9, MN-3);
  - a false Mah Jongg with a tile exposed: the declarer's hand is dead and scores zero; if the
    three others then throw in, all four score zero; if one keeps her hand intact she scores
    10 and the rest zero (American "Tournament points", M-4). Hands that end this way are
    scored here by :func:`false_mahjong_points`, as the engine books no tournament points
    for them.

  Ties: more hands won, then the raw points, then the name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.american.payments import tournament_points
from engine.seats import Seat
from hub.db import ClubDB
from hub.records import GameRecord, HandRecord

PLACEMENT_POINTS = (4, 2, 1, 0)  # EMA Mahjong Competition Rules table points
AMERICAN_RULESETS = ("american",)


class SchemeError(ValueError):
    def __init__(self, error: str, where: str) -> None:
        self.error = error
        self.where = where
        super().__init__(f"{where}: {error}")


@dataclass
class Standing:
    name: str
    points: Fraction = Fraction(0)
    games: int = 0
    hands_won: int = 0
    raw: int = 0
    player_id: int | None = None

    def to_json(self) -> dict[str, object]:
        points: int | float = int(self.points) if self.points.denominator == 1 \
            else float(self.points)
        out: dict[str, object] = {"name": self.name, "points": points, "games": self.games,
                                  "hands_won": self.hands_won}
        if self.player_id is not None:
            out["player_id"] = self.player_id
        return out


@dataclass
class Standings:
    scheme: str
    players: list[Standing]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"scheme": self.scheme,
                                  "players": [p.to_json() for p in self.players]}
        if self.notes:
            out["notes"] = self.notes
        return out


def placement_points(totals: Mapping[str, int]) -> dict[str, Fraction]:
    """Table placement points for one game's totals, tied players sharing their places."""
    values = PLACEMENT_POINTS[:len(totals)]
    order = sorted(totals, key=lambda p: -totals[p])
    out: dict[str, Fraction] = {}
    place = 0
    while place < len(order):
        tied = [p for p in order if totals[p] == totals[order[place]]]
        share = Fraction(sum(values[place:place + len(tied)]), len(tied))
        for p in tied:
            out[p] = share
        place += len(tied)
    return out


def false_mahjong_points(hand: HandRecord, players: Sequence[str]) -> dict[str, int]:
    """A hand ended by a false Mah Jongg and hands thrown in (American "Tournament points",
    M-4): the dead score zero; a single intact hand scores 10."""
    out_of_play = set(hand.dead) | ({hand.false_mahjong} if hand.false_mahjong else set())
    intact = [p for p in players if p not in out_of_play]
    return {p: (10 if len(intact) == 1 and p in intact else 0) for p in players}


def american_hand_points(hand: HandRecord, players: Sequence[str]) -> dict[str, int]:
    """One American hand's tournament points by player name."""
    if hand.tournament is not None:
        return dict(hand.tournament)
    if hand.outcome == "drawn":
        seats = list(Seat)[:len(players)]
        by_seat = dict(zip(seats, players, strict=True))
        dead = [s for s, p in by_seat.items() if p in hand.dead]
        points = tournament_points(None, seats, dead)
        return {by_seat[Seat[s]]: p for s, (p, _) in points.items()}
    if hand.outcome in ("false_mahjong", "thrown_in"):
        return false_mahjong_points(hand, players)
    raise SchemeError("a won hand without the tournament points its scorer books "
                      "(American SC-9)", f"hand {hand.hand}")


def _standing(table: dict[str, Standing], game: GameRecord, name: str) -> Standing:
    if name not in table:
        table[name] = Standing(name, player_id=game.player_id(name))
    return table[name]


def _count(games: Iterable[GameRecord], points: Callable[[GameRecord], Mapping[str, Fraction]]
           ) -> dict[str, Standing]:
    table: dict[str, Standing] = {}
    for game in games:
        earned = points(game)
        for name in game.players:
            s = _standing(table, game, name)
            s.games += 1
            s.raw += game.totals.get(name, 0)
            s.hands_won += sum(1 for h in game.hands if h.winner == name)
            s.points += earned.get(name, Fraction(0))
    return table


def raw_standings(games: Sequence[GameRecord]) -> Standings:
    table = _count(games, lambda g: {p: Fraction(v) for p, v in g.totals.items()})
    order = sorted(table.values(),
                   key=lambda s: (-s.points, -s.hands_won, s.games, s.name.casefold()))
    return Standings("raw", order)


def placement_standings(games: Sequence[GameRecord]) -> Standings:
    table = _count(games, lambda g: placement_points({p: g.totals.get(p, 0)
                                                      for p in g.players}))
    order = sorted(table.values(), key=lambda s: (-s.points, -s.raw, -s.hands_won, s.name))
    return Standings("placement", order)


def american_standings(games: Sequence[GameRecord]) -> Standings:
    american = [g for g in games if g.ruleset in AMERICAN_RULESETS]
    notes = []
    if len(american) < len(games):
        notes.append(f"{len(games) - len(american)} games of other rule families are not "
                     "counted by American tournament points")
    unscored: list[str] = []

    def points(game: GameRecord) -> dict[str, Fraction]:
        total: dict[str, Fraction] = {}
        for hand in game.hands:
            try:
                earned = american_hand_points(hand, game.players)
            except SchemeError as e:
                unscored.append(f"table {game.table} game {game.game} {e.where}: {e.error}")
                continue
            for p, v in earned.items():
                total[p] = total.get(p, Fraction(0)) + v
        return total

    table = _count(american, points)
    notes += unscored
    order = sorted(table.values(), key=lambda s: (-s.points, -s.hands_won, -s.raw, s.name))
    return Standings("american", order, notes)


BY_GAMES: dict[str, Callable[[Sequence[GameRecord]], Standings]] = {
    "raw": raw_standings,
    "placement": placement_standings,
    "american": american_standings,
}


def standings(games: Sequence[GameRecord], scheme: str = "raw") -> Standings:
    """Standings of the finished games among ``games`` by the named scheme."""
    if scheme not in BY_GAMES:
        raise SchemeError(f"unknown scheme {scheme!r}: one of {', '.join(BY_GAMES)}",
                          "--scheme")
    return BY_GAMES[scheme]([g for g in games if g.finished])


def _over_the_club(scheme: str) -> Callable[[ClubDB], list[dict[str, Any]]]:
    def rows(db: ClubDB) -> list[dict[str, Any]]:
        return [p.to_json() for p in standings(db.games(finished=True), scheme).players]
    return rows


# The schemes `mjtable hub standings --scheme` finds (hub.standings.schemes); ``raw`` is the
# hub's own, counted by club registration.
SCHEMES: dict[str, Callable[[ClubDB], list[dict[str, Any]]]] = {
    name: _over_the_club(name) for name in BY_GAMES if name != "raw"}
