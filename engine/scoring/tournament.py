"""American tournament points on the scoreboard (American SC-9, W-2).

The table scores each hand's tournament points as it ends, by
:func:`engine.american.payments.tournament_points` (kept in the hand's result as
``tournament``, by player once the seats are named). This module adds them up over a game and
says why each player got them, by calling the same function again with what the hand's
public result shows: the winner, the line's value, how it was won, the discarder, jokerless.
The winner's exposures, which the result does not keep, are the ones the thrower's penalty
names (SC-9: minus 10 for none or one, 20 for two, 25 for three or more). Where the reasons
found so do not add up to what the table recorded (a misnamed discard, a dead hand), the
table's numbers stand and the reason says so: they were scored with the whole hand in view.

>>> hand = {"hand": 1, "seats": {"E": "Ann", "S": "Bob", "W": "Cy", "N": "Dee"},
...         "score": {"winner": "Bob", "by": "wall", "points": 25, "jokerless": False,
...                   "tournament": {"Ann": 0, "Bob": 35, "Cy": 0, "Dee": 0}}}
>>> hand_points(hand)["Bob"]
{'points': 35, 'why': ['card value (SC-9)', 'self-pick +10 (SC-9)']}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.american.payments import Win, WinBy, tournament_points
from engine.seats import Seat, parse_seat

EXPOSURES_BY_PENALTY = {-10: 0, -20: 2, -25: 3}
WIN_BY: tuple[WinBy, ...] = ("discard", "wall", "finesse", "heavenly", "earthly")
RECORDED = "as the table scored it, with the whole hand in view (SC-9)"


def _recorded(hand: Mapping[str, Any]) -> dict[str, int] | None:
    score = hand.get("score")
    if not isinstance(score, Mapping) or not isinstance(score.get("tournament"), Mapping):
        return None
    return {str(p): int(v) for p, v in score["tournament"].items()}


def _discarder(score: Mapping[str, Any], seat_of: Mapping[str, Seat]) -> Seat | None:
    if score.get("by") != "discard":
        return None
    for p in score.get("payments") or []:
        why = str(p.get("why", ""))
        if "winning tile" in why or "pays for the table" in why:
            return seat_of.get(str(p.get("from")))
    return None


def _win(score: Mapping[str, Any], seat_of: Mapping[str, Seat],
         recorded: Mapping[str, int]) -> Win | None:
    winner = seat_of.get(str(score.get("winner")))
    by = score.get("by")
    if winner is None or by not in WIN_BY:
        return None
    discarder = _discarder(score, seat_of)
    exposures = 0
    if discarder is not None:
        thrower = next((p for p, s in seat_of.items() if s == discarder), "")
        exposures = EXPOSURES_BY_PENALTY.get(recorded.get(thrower, -10), 0)
    return Win(winner, int(score.get("points") or 0), by, discarder,
               bool(score.get("jokerless")), exposures)


def hand_points(hand: Mapping[str, Any]) -> dict[str, dict[str, Any]] | None:
    """Each player's tournament points for one exported hand, with the reasons (rules);
    None for a hand that has none (not American, or not scored)."""
    recorded = _recorded(hand)
    if recorded is None:
        return None
    seats: Mapping[str, str] = hand.get("seats") or {}
    seat_of = {player: parse_seat(seat, "seats") for seat, player in seats.items()}
    score: Mapping[str, Any] = hand["score"]
    players = [seat_of[p] for p in recorded if p in seat_of]
    win = _win(score, seat_of, recorded) if score.get("winner") else None
    dead = [seat_of[p] for p, v in recorded.items() if p in seat_of and v == 0] \
        if score.get("winner") is None else []
    explained = tournament_points(win, players, dead) if players else {}
    name_of = {s.name: p for p, s in seat_of.items()}
    out = {}
    for player, points in recorded.items():
        seat = seat_of.get(player)
        found = explained.get(seat.name) if seat is not None else None
        if found is not None and found[0] == points:
            # the thrower's -10 is for a winner with no exposure or one: which, the result
            # does not say
            why = [w.replace("winner had 0 exposures", "winner had no exposure or one")
                   for w in found[1]]
        else:
            why = [RECORDED]
        out[name_of.get(seat.name, player) if seat else player] = {"points": points,
                                                                   "why": why}
    return out


def game_points(game: Mapping[str, Any]) -> dict[str, Any] | None:
    """A game's tournament points: each hand's, the totals, the standing (best first); None
    for a game with no tournament points (not American)."""
    hands = []
    totals = {p: 0 for p in game["players"]}
    for hand in game["hands"]:
        points = hand_points(hand)
        if points is None:
            continue
        for player, got in points.items():
            totals[player] = totals.get(player, 0) + int(got["points"])
        hands.append({"hand": hand["hand"],
                      "points": {p: points[p] for p in game["players"] if p in points}})
    if not hands:
        return None
    return {"hands": hands, "totals": totals,
            "standing": sorted(totals, key=lambda p: -totals[p]),
            "rule": "American SC-9 (tournament points), W-2 (a wall game)"}
