"""The scoresheet: each finished hand scored through the `mjtable score` contract, and the
running totals per player.

A mirrored hand knows what the table showed: every grounded set and flower, and the winner's
hand shown at Mah-jongg. The losers' concealed tiles are never shown to the camera, so the
sheet settles the winner's hand only: the others count as "holding nothing that scores"
(contracts.md) and pay the winner. Settling the losers among themselves needs their hands
shown at the end, which the table does not yet observe.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import Any

from engine import events as ev
from engine.game import HandState
from engine.tiles import tile_name

Scorer = Callable[[dict[str, Any]], dict[str, Any]]


def hand_document(state: HandState, options: Mapping[str, Any]) -> dict[str, Any] | None:
    """The `mjtable score` input for a finished hand, or None for a hand not won."""
    winner = state.winner
    if state.result != "mahjong" or winner is None:
        return None
    declared = next(
        (e for e in reversed(state.standing) if isinstance(e, ev.MahjongDeclared)), None
    )
    if declared is None:
        return None
    # Only the winner's hand is known whole; the others pay as holding nothing that scores.
    s = state.seats[winner]
    hands: dict[str, Any] = {
        winner.name: {
            "melds": [
                {"tiles": [tile_name(t) for t in m.tiles], "exposed": not m.concealed}
                for m in s.melds
            ],
            "concealed": [tile_name(t) for t in declared.concealed],
            "flowers": [tile_name(t) for t in s.flowers],
        }
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


def contract_scorer(doc: dict[str, Any]) -> dict[str, Any]:
    """Score through the `mjtable score` command: the contract is the stable interface."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
         "score"],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    try:
        result: dict[str, Any] = json.loads(line)
    except json.JSONDecodeError:
        return {"error": (done.stderr.strip() or "no result from `mjtable score`")[-300:]}
    return result


def net_of(result: Mapping[str, Any]) -> dict[str, int] | None:
    """The per-seat net of a score result, if it is one."""
    net = result.get("net")
    if isinstance(net, dict) and all(isinstance(v, int) for v in net.values()):
        return {str(k): int(v) for k, v in net.items()}
    return None
