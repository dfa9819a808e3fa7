"""What the table shows (``public_view``) and what one seat sees (``seat_view``): JSON-ready,
and never a concealed tile in the public form."""

from __future__ import annotations

from typing import Any

from engine import events as ev
from engine.seats import SEATS, Seat
from engine.state import HandState, Meld
from engine.tiles import tile_name
from engine.wall import second_thrower


def _meld_json(m: Meld) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": m.kind, "tiles": [tile_name(t) for t in m.tiles],
                           "exposed": not m.concealed}
    if m.claimed is not None:
        out["claimed"] = tile_name(m.claimed)
        out["from"] = str(m.discarder)
    return out


def public_view(state: HandState) -> dict[str, Any]:
    """What the table shows, JSON-ready: never a concealed tile."""
    seats = {}
    for seat in SEATS:
        s = state.seats[seat]
        entry: dict[str, Any] = {
            "concealed": s.n,
            "melds": [_meld_json(m) for m in s.melds],
            "flowers": [tile_name(t) for t in s.flowers],
            "discards": [tile_name(t) for t in s.discards],
        }
        if s.fault:
            entry["fault"] = s.fault
        seats[seat.name] = entry
    view: dict[str, Any] = {
        "ruleset": state.ruleset.name,
        "mode": state.mode,
        "hand": state.hand,
        "prevailing": None if state.prevailing is None else state.prevailing.name,
        "players": [s.name for s in state.players],
        "phase": state.phase,
        "turn": state.turn.name,
        "wall": state.remaining,
        "live": state.live_left(),
        "seats": seats,
        "discard": None if state.claimable is None else
        {"tile": tile_name(state.claimable[0]), "from": state.claimable[1].name},
        "claims": [f"{e.seat}:{e.kind}" for e in state.claims],
        "robbable": None if state.rob is None or state.phase != "rob" else
        {"tile": tile_name(state.rob[0]), "from": state.rob[1].name},
        "awarded": None if state.award is None else
        {"seat": state.award[0].name, "kind": state.award[1]},
        "expect": expected(state),
    }
    if state.phase == "ended":
        view["result"] = {"result": state.result,
                          "winner": None if state.winner is None else state.winner.name,
                          "rule": state.end_rule, "east_stays": state.east_stays}
        if state.result == "mahjong" and state.winner is not None:
            view["seats"][state.winner.name]["shown"] = [
                tile_name(t) for t in state.concealed_tiles(state.winner)
            ] if state.mode == "full" else _shown(state)
    return view


def expected(state: HandState) -> dict[str, Any] | None:
    """What the table waits for next, for lights and prompts: ``{"do": verb, "seat": S}``
    (``calls`` means the call window on the live discard or kong is open)."""
    phase = state.phase
    if phase == "ended":
        return None
    if phase == "break":
        if not state.throws:
            return {"do": "throw", "seat": "E"}
        return {"do": "throw", "seat": second_thrower(state.throws[0][1], state.players,
                                                      state.ruleset.dummy_walls).name}
    if phase == "deal":
        return {"do": "deal", "seat": None}
    if phase in ("claims", "rob"):
        return {"do": "calls", "seat": None}
    if phase == "award" and state.award is not None:
        seat, kind = state.award
        return {"do": "show" if kind == "mahjong" else "expose", "seat": seat.name}
    owing = [s for s in state.players if state.seats[s].owed_loose]
    if owing:
        return {"do": "draw_loose", "seat": owing[0].name}
    if state.need_draw:
        return {"do": "draw", "seat": state.turn.name}
    return {"do": "discard", "seat": state.turn.name}


def _shown(state: HandState) -> list[str]:
    for e in reversed(state.standing):
        if isinstance(e, ev.MahjongDeclared):
            return [tile_name(t) for t in e.concealed]
    return []


def seat_view(state: HandState, seat: Seat) -> dict[str, Any]:
    """The public view plus the seat's own concealed tiles (full mode)."""
    view = public_view(state)
    view["seat"] = seat.name
    view["own"] = [tile_name(t) for t in state.concealed_tiles(seat)]
    return view
