"""The table's scorekeeper: the part that keeps the scoresheet, folded from the log.

It knows who sits where (players' names, never seat letters), the games being played
(:mod:`controller.games`), the prevailing wind, every hand scored and the totals; it writes a
finished hand's scoresheet entry and shows the ``scores`` topic's body. The table feeds it every
record it folds and tells it when East passes; what a family scores a hand at is the table's
business (its engine or its scorer), handed in as the entry's ``net``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.games import GAME_STARTED, SCORED, GameBook, seated, table_defaults
from engine.seats import SEATS


def rotate(players: Mapping[str, str]) -> dict[str, str]:
    # East passes to the player on East's right: the South player becomes East (Law 94).
    names = [players[s.name] for s in SEATS]
    return {s.name: names[(i + 1) % 4] for i, s in enumerate(SEATS)}


class Scorekeeper:
    def __init__(self, configured: Mapping[str, str], ruleset: str,
                 hands_per_game: int | None, first_prevailing: str | None,
                 games_log: Iterable[Mapping[str, Any]]) -> None:
        self.first_prevailing = first_prevailing
        self.players = table_defaults(configured)
        # The games of the whole log (a snapshot does not hold them; controller/games.py)
        self.games = GameBook(ruleset, hands_per_game).load(games_log)
        self.prevailing: str | None = first_prevailing
        self.totals: dict[str, int] = {name: 0 for name in self.players.values()}
        self.sheet: list[dict[str, Any]] = []

    def fold(self, kind: str, record: Mapping[str, Any]) -> None:
        """What one logged record changes on the sheet."""
        self.games.fold(record)
        if kind == GAME_STARTED:
            self.players = seated(list(record["players"]))
        elif kind == SCORED:
            if self.games.current is not None:
                # The game knows how far the Round of the Winds has gone (Laws 95-96); a hand
                # alone does not (engine.events.HandEnded).
                self.prevailing = self.games.next_prevailing(self.first_prevailing)
            for name, amount in (record.get("net_by_player") or {}).items():
                self.totals[name] = self.totals.get(name, 0) + int(amount)
            self.sheet.append({k: v for k, v in record.items() if k not in ("seq", "ts")})

    def east_passes(self) -> None:
        self.players = rotate(self.players)

    def players_before_east_passed(self) -> dict[str, str]:
        """The seats as they were before the last hand's East passed."""
        names = [self.players[s.name] for s in SEATS]
        return {s.name: names[(i - 1) % 4] for i, s in enumerate(SEATS)}

    def entry(self, result: Any, winner: str | None, rule: str | None,
              players: Mapping[str, str], net: Mapping[str, int] | None = None,
              payments: Any = None, score: Mapping[str, Any] | None = None,
              error: str | None = None) -> dict[str, Any]:
        """A finished hand's scoresheet entry (the ``HandScored`` record): its result, the
        seats' players, and, when scored, each seat's ``net`` and each player's."""
        entry: dict[str, Any] = {"type": SCORED, "result": result, "winner": winner,
                                 "rule": rule, "players": dict(players)}
        if error is not None:
            entry["error"] = error
        if net is not None:
            entry["net"] = dict(net)
            entry["net_by_player"] = {players[s]: v for s, v in net.items() if s in players}
            entry["payments"] = payments if payments is not None else []
        if score is not None:
            entry["score"] = score  # the whole scoresheet (controller/games.py)
        return entry

    def scores(self) -> dict[str, Any]:
        """The ``scores`` topic's body, but for the table's ``seq`` and id."""
        return {"players": self.players, "totals": self.totals, "hands": self.sheet,
                "game": self.games.view()}

    def snapshot(self) -> dict[str, Any]:
        return {"players": self.players, "prevailing": self.prevailing,
                "totals": self.totals, "sheet": self.sheet}

    def load(self, saved: Mapping[str, Any]) -> None:
        self.players = dict(saved["players"])
        self.prevailing = saved["prevailing"]
        self.totals = dict(saved["totals"])
        self.sheet = list(saved["sheet"])
