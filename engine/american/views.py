"""What an American hand shows and what a replay must reproduce: the public view (never a
concealed tile, DH-4), a seat's own view, the digest, and the invariants the bots and the
soak check after every command."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from engine.american.state import AmericanHand, names
from engine.seats import Seat
from engine.tiles import tile_name, tile_set


def digest(state: AmericanHand) -> str:
    """A digest of everything a replay must reproduce: the public view, every rack, the wall
    and the result."""
    body = {
        "public": public_view(state),
        "racks": {s.name: [names(r.concealed), r.count, [names(e.tiles) for e in r.exposures],
                           names(r.discards), r.declared_dead, [e.rule for e in r.evidence]]
                  for s, r in state.racks.items()},
        "wall": names(state.wall),
        "result": state.result,
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def public_view(state: AmericanHand) -> dict[str, Any]:
    """What the table shows: never a concealed tile, never the private dead-hand evidence."""
    return {
        "ruleset": "american", "mode": state.mode, "phase": state.phase,
        "turn": state.turn.name, "step": state.step, "wall": state.wall_left,
        "live": None if state.live is None else tile_name(state.live.tile),
        "seats": {s.name: {"count": r.count,
                           "exposures": [names(e.tiles) for e in r.exposures],
                           "discards": names(r.discards),
                           "declared_dead": r.declared_dead is not None}
                  for s, r in state.racks.items()},
        "result": state.result,
    }


def seat_view(state: AmericanHand, seat: Seat) -> dict[str, Any]:
    view = public_view(state)
    view["seat"] = seat.name
    view["concealed"] = names(state.rack(seat).concealed)
    return view


def check_invariants(state: AmericanHand) -> list[str]:
    """Broken invariants of a full-mode hand: every tile in exactly one place, and the counts."""
    if state.mode != "full":
        return []
    problems = []
    everywhere = list(state.wall)
    for seat, rack in state.racks.items():
        everywhere += rack.concealed + rack.discards
        for e in rack.exposures:
            everywhere += e.tiles
        if len(rack.concealed) != rack.count:
            problems.append(f"{seat.name}: count {rack.count} but {len(rack.concealed)} tiles")
        if not rack.out and not rack.evidence and state.result is None:
            held = rack.count + rack.exposed_count()
            turn_here = seat == state.turn and state.step in ("discard",)
            if state.phase != "play":  # passes never change a count: East 14, others 13
                allowed = {14} if seat == Seat.E else {13}
            else:
                allowed = {14} if turn_here else {13}
            if seat == state.turn and state.step == "awarded":
                allowed = {13}
            if held not in allowed:
                problems.append(f"{seat.name} holds {held} tiles")
    if state.called_tile is not None:
        everywhere.append(state.called_tile)
    if sorted(everywhere) != sorted(tile_set(152)):
        problems.append("the tiles on the table are not exactly the 152-tile set")
    if len(state.wall) != state.wall_left:
        problems.append("the wall count is off")
    return problems
