"""The records the hub keeps: games seen at the club's tables and their hands.

A table publishes its game record as events (docs/mqtt.md): ``GameStarted`` seats the players,
every ``HandScored`` carries the scorer's whole result, ``GameEnded`` stops a game early. The
hub folds them with the table's own fold (:class:`controller.games.GameBook`), so a game's
totals here are the table's scoresheet to the point, and turns each game into the frozen
records below. Standings schemes and the club page read only these.

Players are named as the table named them; ``player_id`` is the club's registration the name
was matched to when the game was seated (None: nobody registered under that name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["win", "drawn", "false_mahjong", "thrown_in"]
SEAT_LETTERS = ("E", "S", "W", "N")


@dataclass(frozen=True)
class SeatRecord:
    """One player of a game: ``wind`` is the seat held in the game's first hand (E is the
    first East)."""

    wind: str
    name: str
    player_id: int | None = None


@dataclass(frozen=True)
class HandRecord:
    """One scored hand of a game.

    ``net`` and ``totals`` are by player name, as the table's scoresheet books them;
    ``winner`` is the player who went out (None for a wall game, a hand thrown in or a false
    Mah-jongg); ``value`` the scorer's value of the winning hand (after any limit: the points
    the others pay on; for an American hand the card line's points); ``name`` the limit hand or
    the card line where the scorer gives one; ``false_mahjong`` the player whose declaration
    was false (Code 1924, Law 76; American M-4), ``dead`` the players whose hands were
    declared dead (American DH-1, J-3); ``tournament`` the hand's tournament points by player
    where the scorer gives them (American tournament play)."""

    hand: int
    seq: int
    table_hand: int | None
    outcome: Outcome
    winner: str | None
    value: int | None
    name: str | None
    false_mahjong: str | None
    dead: tuple[str, ...]
    net: Mapping[str, int]
    totals: Mapping[str, int]
    seats: Mapping[str, str]
    prevailing: str | None
    rule: str | None
    tournament: Mapping[str, int] | None = None

    @property
    def wall_game(self) -> bool:
        return self.outcome == "drawn"


@dataclass(frozen=True)
class GameRecord:
    """A game at one table, finished or running. ``game`` is the table's own game number;
    ``totals`` are the table's scoresheet totals by player (for a finished game, its final
    settlement); ``final`` is the scoresheet's final settlement (None while it runs)."""

    table: str
    game: int
    ruleset: str
    seats: tuple[SeatRecord, ...]
    totals: Mapping[str, int]
    finished: bool
    started_seq: int
    hands: tuple[HandRecord, ...] = ()
    final: Mapping[str, Any] | None = None
    updated: str | None = None  # the table's time of the last event folded into it

    @property
    def key(self) -> str:
        return f"{self.table}/{self.game}"

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    def player_id(self, name: str) -> int | None:
        return next((s.player_id for s in self.seats if s.name == name), None)


@dataclass(frozen=True)
class Player:
    """A registered club member: ``club_id`` is the club's own membership id."""

    id: int
    club_id: str
    name: str


# -- from a table's game (controller.games.Game.export()) to records ------------------------


def _named(value: Any, seats: Mapping[str, str]) -> str | None:
    if not isinstance(value, str):
        return None
    return seats.get(value, value)


def _winning_hand(score: Mapping[str, Any], winner: str | None) -> Mapping[str, Any]:
    hands = score.get("hands")
    if isinstance(hands, Mapping) and winner is not None:
        hand = hands.get(winner)
        if isinstance(hand, Mapping):
            return hand
    return {}


def hand_record(hand: Mapping[str, Any]) -> HandRecord:
    """A hand of a game as the table's fold exports it (docs/mqtt.md, ``scores.game``)."""
    seats = {str(k): str(v) for k, v in (hand.get("seats") or {}).items()}
    score = hand.get("score") if isinstance(hand.get("score"), Mapping) else {}
    assert isinstance(score, Mapping)
    outcome: Outcome = hand.get("outcome") or "drawn"
    declarer = _named(score.get("winner"), seats)
    winner = hand.get("winner") if outcome == "win" else None
    won = _winning_hand(score, winner or declarer)
    value = won.get("value", score.get("points"))
    name = won.get("limit_hand") or won.get("line") or score.get("line")
    mahjong = score.get("mahjong") if isinstance(score.get("mahjong"), Mapping) else {}
    assert isinstance(mahjong, Mapping)
    false_mj = declarer if outcome == "false_mahjong" else None
    if false_mj is None and isinstance(mahjong.get("dead"), str) and not mahjong.get("valid"):
        false_mj = _named(mahjong["dead"], seats)
    dead_raw = score.get("dead") if isinstance(score.get("dead"), list) else []
    assert isinstance(dead_raw, list)
    dead = tuple(n for n in (_named(d, seats) for d in dead_raw) if n is not None)
    raw_points = score.get("tournament")
    tournament = ({_named(k, seats) or k: int(v) for k, v in raw_points.items()}
                  if isinstance(raw_points, Mapping) else None)
    return HandRecord(
        hand=int(hand["hand"]),
        seq=int(hand.get("seq") or 0),
        table_hand=hand.get("table_hand"),
        outcome=outcome,
        winner=winner,
        value=int(value) if isinstance(value, int) else None,
        name=str(name) if name else None,
        false_mahjong=false_mj,
        dead=dead,
        net={str(k): int(v) for k, v in (hand.get("net") or {}).items()},
        totals={str(k): int(v) for k, v in (hand.get("totals") or {}).items()},
        seats=seats,
        prevailing=hand.get("prevailing"),
        rule=hand.get("rule"),
        tournament=tournament,
    )


def game_record(table: str, game: Mapping[str, Any], started_seq: int,
                ids: Mapping[str, int] | None = None, updated: str | None = None) -> GameRecord:
    """A table's game as :meth:`controller.games.Game.export` gives it; ``ids``: player name
    -> registered player id, where the name is registered."""
    ids = ids or {}
    players = [str(p) for p in game["players"]]
    winds = SEAT_LETTERS if len(players) == 4 else ("E", "S", "N") if len(players) == 3 \
        else ("E", "W")
    final = game.get("final")
    totals = (final or {}).get("settlement") or game.get("totals") or {}
    return GameRecord(
        table=table,
        game=int(game["id"]),
        ruleset=str(game["ruleset"]),
        seats=tuple(SeatRecord(w, p, ids.get(p)) for w, p in zip(winds, players, strict=False)),
        totals={str(k): int(v) for k, v in totals.items()},
        finished=final is not None,
        started_seq=started_seq,
        hands=tuple(hand_record(h) for h in game.get("hands") or []),
        final=final,
        updated=updated,
    )
