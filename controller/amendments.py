"""The moves of the hand in play, as the referee picks one to amend (``cmd/moves``), and the
check that an amendment is not stale (``cmd/correct`` with ``at`` and ``was``).

Each move is ``{"at", "seat", "type", "command"}``: ``at`` is what ``cmd/correct`` takes for
it (the index of its first event in the hand's standing record for the Chinese families, the
``seq`` of its event for the American game), ``command`` the engine command behind it, as a
correction replaces it. Nothing concealed is listed: a drawn tile's face is left out (the
answer goes to ``cmd/moves/result``, which viewers of the table's topics read too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.referee import CommandError
from engine.game import HandState, commands_of

CONCEALED_FIELDS = ("tile", "tiles", "concealed")
UNCOMPARED = ("time_us",)  # the board's time is not part of what the referee amends


def shown_command(command: Mapping[str, Any], concealed: bool) -> dict[str, Any]:
    drop = UNCOMPARED + (CONCEALED_FIELDS if concealed else ())
    return {k: v for k, v in command.items() if k not in drop}


def classical_moves(state: HandState | None) -> list[dict[str, Any]]:
    """The commands behind the hand's standing record (the engine's ``Correct`` replaces
    one of these)."""
    if state is None:
        return []
    moves = []
    for at, command in commands_of(state.standing):
        body = command.to_json()
        concealed = body.get("type") == "Draw"  # a drawn tile is the drawer's alone
        moves.append({"at": at, "seat": body.get("seat"), "type": body.get("type"),
                      "command": shown_command(body, concealed)})
    return moves


def check_fresh(moves: list[dict[str, Any]], at: int, was: Mapping[str, Any]) -> None:
    """Refuse an amendment made from a move list that is out of date: the move at ``at`` is
    no longer ``was`` (another referee amended it, or the hand moved on without it)."""
    move = next((m for m in moves if m["at"] == at), None)
    if move is None:
        raise CommandError("at", f"no move {at} in this hand now: it was amended or struck "
                           "out meanwhile; pick it again from the list")
    if any(was.get(key) != value for key, value in move["command"].items()):
        raise CommandError("was", f"the move at {at} is now {move['command']}, not {dict(was)}:"
                           " it was amended meanwhile; pick it again from the list")
