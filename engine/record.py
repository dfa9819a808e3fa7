"""The event log of simulated hands (``mjtable play --log``), line by line (JSON Lines).

Each line is one JSON object. An event line is the event's full JSON form (private fields
included: a simulation has no secrets) with ``seq`` (rising by one per line of the log) and
``hand``. After each hand's events one ``final`` line records what the hand ended as: its
public view and a digest of everything a rebuild must reproduce. ``mjtable replay`` rebuilds
each hand from its events and checks both.

This module only formats and parses lines; the commands do the file I/O.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from engine.errors import MalformedInput
from engine.events import Event, event_from_json
from engine.game import public_view
from engine.state import HandState


def digest(state: HandState) -> str:
    """A digest of the state a rebuild must reproduce exactly."""
    body = {
        "public": public_view(state),
        "concealed": [s.concealed for s in state.seats],
        "counts": [s.n for s in state.seats],
        "wall": [state.front, state.back],
        "seen": state.seen,
        "standing": [e.to_json() for e in state.standing],
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def event_line(seq: int, hand: int, event: Event) -> str:
    return json.dumps({"seq": seq, "hand": hand, **event.to_json()}, separators=(",", ":"))


def final_line(hand: int, state: HandState) -> str:
    return json.dumps({"hand": hand, "final": public_view(state), "digest": digest(state)},
                      separators=(",", ":"))


@dataclass
class LoggedHand:
    hand: int
    first_line: int
    events: list[Event] = field(default_factory=list)
    final: dict[str, Any] | None = None
    digest: str | None = None


def parse_log(lines: list[str]) -> list[LoggedHand]:
    """Group a log's lines by hand. A bad line raises ``MalformedInput`` naming the line and
    the field."""
    hands: list[LoggedHand] = []
    current: LoggedHand | None = None
    expected_seq = 0
    for number, raw in enumerate(lines, start=1):
        where = f"line {number}"
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise MalformedInput(where, f"not JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(obj, dict):
            raise MalformedInput(where, "a log line is a JSON object")
        hand = obj.get("hand")
        if isinstance(hand, bool) or not isinstance(hand, int):
            raise MalformedInput(f"{where}: hand", f"a hand number, not {hand!r}")
        if "final" in obj:
            if current is None or current.hand != hand or current.final is not None:
                raise MalformedInput(f"{where}: hand", f"a final line for hand {hand} that has "
                                     "no events before it")
            if not isinstance(obj["final"], dict):
                raise MalformedInput(f"{where}: final", "the final view is a JSON object")
            dg = obj.get("digest")
            if not isinstance(dg, str):
                raise MalformedInput(f"{where}: digest", f"a digest string, not {dg!r}")
            current.final, current.digest = obj["final"], dg
            continue
        seq = obj.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise MalformedInput(f"{where}: seq", f"a sequence number, not {seq!r}")
        if seq != expected_seq:
            raise MalformedInput(f"{where}: seq", f"expected {expected_seq}, found {seq}")
        expected_seq += 1
        body = {k: v for k, v in obj.items() if k not in ("seq", "hand")}
        try:
            event = event_from_json(body)
        except MalformedInput as exc:
            raise MalformedInput(f"{where}: {exc.where}", exc.message) from None
        if current is None or current.hand != hand:
            if current is not None and current.final is None:
                raise MalformedInput(where, f"hand {current.hand} has no final line")
            current = LoggedHand(hand, number)
            hands.append(current)
        current.events.append(event)
    if current is not None and current.final is None:
        raise MalformedInput(f"line {len(lines)}", f"hand {current.hand} has no final line")
    return hands
