"""Standings: who leads the club, from the finished games in the club database.

A scheme is a function from the database to the standings rows, best first. ``raw`` is the
sum of each player's game totals as the tables' own scoresheets give them (for a finished
game its final settlement). Other schemes (table placement points, American tournament
scoring) live in :mod:`hub.schemes`, whose ``SCHEMES`` mapping is merged in here when present.

A player is counted under the club registration the table's seat name was matched to; a name
nobody registered is counted under that name, so an unregistered guest still shows.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hub.db import ClubDB, name_key

Scheme = Callable[[ClubDB], list[dict[str, Any]]]


@dataclass
class Tally:
    name: str
    points: int = 0
    games: int = 0
    hands_won: int = 0

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "points": self.points, "games": self.games,
                "hands_won": self.hands_won}


def raw(db: ClubDB) -> list[dict[str, Any]]:
    """Raw points: the sum of the player's finished games' totals; best first, ties broken by
    more hands won, then fewer games, then name."""
    registered = {p.id: p.name for p in db.players()}
    tallies: dict[object, Tally] = {}
    for game in db.games(finished=True):
        won: dict[str, int] = {}
        for hand in game.hands:
            if hand.winner is not None:
                won[hand.winner] = won.get(hand.winner, 0) + 1
        for seat in game.seats:
            key: object = seat.player_id if seat.player_id is not None \
                else ("guest", name_key(seat.name))
            name = registered.get(seat.player_id, seat.name) if seat.player_id else seat.name
            tally = tallies.setdefault(key, Tally(name))
            tally.points += int(game.totals.get(seat.name, 0))
            tally.games += 1
            tally.hands_won += won.get(seat.name, 0)
    ordered = sorted(tallies.values(),
                     key=lambda t: (-t.points, -t.hands_won, t.games, t.name.casefold()))
    return [t.row() for t in ordered]


def schemes() -> dict[str, Scheme]:
    """Every scheme by name: ``raw`` and those of :mod:`hub.schemes` where it is installed."""
    found: dict[str, Scheme] = {"raw": raw}
    try:
        module = importlib.import_module("hub.schemes")
    except ModuleNotFoundError:
        return found
    found.update(getattr(module, "SCHEMES", {}))
    return found


def standings(db: ClubDB, scheme: str = "raw") -> dict[str, Any]:
    """``{"players": [...]}`` by ``scheme`` (KeyError for a scheme that does not exist)."""
    return {"players": schemes()[scheme](db)}
