"""The scoresheet: each finished hand scored through the engine's scorer on the `mjtable score`
document, and the running totals per player.

A mirrored hand knows what the table showed: every grounded set and flower, and the winner's
hand shown at Mah-jongg. The losers' concealed tiles are never shown to the camera, so the
sheet settles the winner's hand only: the others count as "holding nothing that scores"
(contracts.md) and pay the winner. Settling the losers among themselves needs their hands
shown at the end, which the table does not yet observe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.game import HandState
from engine.tiles import tile_name

Scorer = Callable[[dict[str, Any]], dict[str, Any]]


def mahjong_declared(state: HandState) -> ev.MahjongDeclared | None:
    """The hand's Mah-jongg as it stands in its record (the winner's hand shown), if any."""
    return next((e for e in reversed(state.standing) if isinstance(e, ev.MahjongDeclared)), None)


def hand_document(
    state: HandState,
    options: Mapping[str, Any],
    shown: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any] | None:
    """The `mjtable score` input for a finished hand, or None for a hand not won. ``shown``:
    the concealed tiles each of the others exposed after it (Law 82), by seat; the sets and
    flowers they laid during the hand are the mirror's."""
    winner = state.winner
    if state.result != "mahjong" or winner is None:
        return None
    declared = mahjong_declared(state)
    if declared is None:
        return None
    # The winner's hand is known whole; another's once it exposed its concealed tiles after
    # the win (its sets and flowers are the mirror's). One not shown holds nothing that
    # scores: it pays the winner and settles nothing with the others.
    hands: dict[str, Any] = {}
    for seat in state.players:
        s = state.seats[seat]
        if seat == winner:
            concealed = [tile_name(t) for t in declared.concealed]
        elif shown is not None and seat.name in shown:
            concealed = list(shown[seat.name])
        else:
            continue
        hands[seat.name] = {
            "melds": [
                {"tiles": [tile_name(t) for t in m.tiles], "exposed": not m.concealed}
                for m in s.melds
            ],
            "concealed": concealed,
            "flowers": [tile_name(t) for t in s.flowers],
        }
    doc: dict[str, Any] = {
        "ruleset": state.ruleset.name,
        "options": dict(options),
        "hands": hands,
        "winner": winner.name,
        "win": {
            "tile": tile_name(declared.win_tile),
            "by": declared.by,
            "from": None if declared.discarder is None else declared.discarder.name,
            "context": list(declared.context),
        },
    }
    if state.prevailing is not None:
        doc["prevailing_wind"] = state.prevailing.name
    return doc


def engine_scorer(doc: dict[str, Any]) -> dict[str, Any]:
    """Score in process: the engine's scorer on the `mjtable score` document, answering what
    the command prints, ``{"error", "where"}`` included for a hand it cannot score. The
    document stays the interface, so the sheet and the command cannot disagree."""
    from engine.errors import EngineError
    from engine.scoring import score_hand

    try:
        return score_hand(doc)
    except EngineError as exc:
        return {"error": getattr(exc, "message", str(exc)), "where": getattr(exc, "where", "")}


def net_of(result: Mapping[str, Any]) -> dict[str, int] | None:
    """The per-seat net of a score result, if it is one."""
    net = result.get("net")
    if isinstance(net, dict) and all(isinstance(v, int) for v in net.values()):
        return {str(k): int(v) for k, v in net.items()}
    return None
