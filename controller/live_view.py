"""The live view of `mjtable simulate`: one line per thing the table did, as a spectator would
tell it, from the record alone. One ``describe`` serves every family: a record that carries
its event's public part apart (the American table's shape) is read through it, and its
``private`` part never."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TextIO

Line = Callable[[Mapping[str, Any]], str]


def _started(r: Mapping[str, Any]) -> str:
    card = r.get("card")
    after = f"card {card['name']}" if card else f"prevailing {r.get('prevailing') or '-'}"
    return f"── new hand ({r['ruleset']}, {after}) ──"


def _closed(r: Mapping[str, Any]) -> str:
    claims = ", ".join(r["claims"]) or "no calls"
    won = f"{r['winner']} takes {r['discard']} ({r['kind']})" if r["winner"] else "nobody"
    return f"[{claims}] -> {won}  ({r['rule']})"


def _window(r: Mapping[str, Any]) -> str:
    if not r.get("winner"):
        return ""
    return f"[{', '.join(r['claims'])}] -> {r['winner']} takes {r['discard']}  ({r['rule']})"


def _scored(r: Mapping[str, Any]) -> str:
    net = r.get("net_by_player") or {}
    scores = ", ".join(f"{k} {v:+d}" for k, v in net.items()) or r.get("error", "")
    winner = r.get("winner")  # the seat; the player who held it, by name
    won = f"{(r.get('players') or {}).get(winner, winner)} ({winner}) won; " if winner else ""
    return f"score: {won}{scores}"


def _ended(r: Mapping[str, Any]) -> str:
    return f"hand over: {r['result']}{' by ' + r['winner'] if r.get('winner') else ''}"


def _passed(r: Mapping[str, Any]) -> str:
    blind = f", {r['blind']} blind" if r.get("blind") else ""
    return f"{r['seat']} passes ({r['stage']}{blind})"


_LINES: dict[str, Line] = {
    "HandStarted": _started,
    "DiceThrown": lambda r: f"{r['seat']} throws {'+'.join(map(str, r['dice']))}",
    "WallBroken": lambda r: f"the wall is broken at {r['wall_of']}'s wall, stack {r['stack']}",
    "Discarded": lambda r: f"{r['seat']} discards {r['tile']}",
    "ClaimMade": lambda r: f"{r['seat']} calls {r['kind']}!",
    "CallMade": lambda r: f"{r['seat']} calls for {r['kind']}!",
    "ClaimsClosed": _closed,
    "WindowClosed": _window,
    "MeldExposed": lambda r: f"{r['seat']} lays {' '.join(r['tiles'])}",
    "Exposed": lambda r: f"{r['seat']} exposes {' '.join(r['tiles'])}",
    "KongDeclared": lambda r: f"{r['seat']} kong of {r['tile']}",
    "KongAdded": lambda r: f"{r['seat']} kong of {r['tile']}",
    "FlowerGrounded": lambda r: f"{r['seat']} grounds {r['tile']}",
    "CharlestonPassOffered": _passed,
    "JokerExchanged": lambda r: (f"{r['seat']} exchanges {r['tile']} for a Joker from "
                                 f"{r['owner']}"),
    "MahjongDeclared": lambda r: (f"{r['seat']} MAH-JONGG with {' '.join(r['concealed'])} "
                                  f"(on {r['win_tile']}, {r['by']})"),
    "MahJongg": lambda r: f"{r['seat']} MAH JONGG: line {r['line']} for {r['points']} ({r['by']})",
    "FalseMahjong": lambda r: f"{r['seat']} false Mah-jongg: {r['reason']} ({r['rule']})",
    "FalseMahJongg": lambda r: f"{r['seat']} false Mah Jongg: {r['why']} ({r['rule']})",
    "HandEnded": _ended,
    "HandScored": _scored,
    "ObservationHeld": lambda r: f"table asked (#{r['id']}): {r['reason']}",
    "ObservationSettled": lambda r: f"#{r['id']} {r['how']} by the referee",
}


def describe(record: Mapping[str, Any]) -> str:
    """One line for a record of the table's log, or "" for one a spectator would not be told."""
    public = record.get("public")
    flat = {**record, **public} if isinstance(public, dict) else dict(record)
    flat["seat"] = flat.get("seat") or ""
    line = _LINES.get(str(flat.get("type")))
    return line(flat) if line is not None else ""


class _Records(Protocol):
    def events(self, after: int = 0) -> Any: ...


class Progress:
    """The live view, written to ``out`` as the table records."""

    def __init__(self, out: TextIO, enabled: bool) -> None:
        self.out = out
        self.enabled = enabled
        self.last = 0

    def show(self, store: _Records) -> None:
        if not self.enabled:
            return
        for record in store.events(self.last):
            self.last = record["seq"]
            line = describe(record)
            if line:
                self.out.write(f"{record['seq']:>6}  hand {record['hand']:<3} {line}\n")
        self.out.flush()
