"""The event log of simulated hands (``mjtable play --log``), line by line (JSON Lines).

Each line is one JSON object. An event line is the event's full JSON form (private fields
included: a simulation has no secrets) with ``seq`` (rising by one per line of the log) and
``hand``. After each hand's events one ``final`` line records what the hand ended as: its
public view and a digest of everything a rebuild must reproduce. ``mjtable replay`` rebuilds
each hand from its events and checks both (``check_hand``: the classical families' check;
each family answers for its own hands through ``engine.family.RuleFamily.replay_hand``).

This module only formats, parses and checks lines; the commands do the file I/O.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from engine import events as ev
from engine.errors import EngineError, MalformedInput
from engine.events import Event, event_from_json
from engine.game import apply, commands_of, new_hand, public_view, rebuild
from engine.invariants import InvariantBroken, check
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


# What a hand's recorded start can make the engine raise when it cannot be rebuilt from it (the
# engine's own errors are ValueErrors): the hand is a mismatch, the log is still read.
CANNOT_REBUILD = (ValueError, KeyError, IndexError, TypeError)


@dataclass(frozen=True)
class ReplayedHand:
    """One logged hand rebuilt and checked: ``events``, how many the family counts in it;
    ``problems``, what differs from its record; ``unbuilt``, why it cannot be rebuilt at all
    (then there is nothing to compare)."""

    events: int
    problems: list[str] = field(default_factory=list)
    unbuilt: str | None = None


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


def check_hand(logged: LoggedHand, where: str) -> ReplayedHand:
    """A classical hand rebuilt from its events (the trusted fold) and checked against its
    record. A malformed event raises ``MalformedInput`` naming ``where`` and the field."""
    try:
        state = rebuild(logged.events)
    except MalformedInput as exc:
        raise MalformedInput(f"{where}: {exc.where}", exc.message) from None
    except CANNOT_REBUILD as exc:  # e.g. a ruleset the engine does not know
        return ReplayedHand(len(logged.events), unbuilt=str(exc))
    return ReplayedHand(len(logged.events), _problems(state, logged))


def _problems(state: HandState, logged: LoggedHand) -> list[str]:
    """What differs between a hand rebuilt from its events and its record: the final view,
    the digest, the invariants, and the commands re-applied through the checked engine."""
    problems = []
    if public_view(state) != logged.final:
        problems.append("the rebuilt public view differs from the recorded one")
    if digest(state) != logged.digest:
        problems.append("the rebuilt state's digest differs from the recorded one")
    try:
        check(state)
    except InvariantBroken as exc:
        problems.append(f"invariant: {exc}")
    started = logged.events[0]
    assert isinstance(started, ev.HandStarted)
    try:
        again, _ = new_hand(started.ruleset, started.mode,  # type: ignore[arg-type]
                            wall=started.wall, prevailing=started.prevailing,
                            hand=started.number, players=started.players)
        for _, command in commands_of(state.standing):
            apply(again, command)
        if digest(again) != digest(state):
            problems.append("re-applying the commands reaches another state")
    except EngineError as exc:
        problems.append(f"the engine refuses the recorded play: {exc}")
    return problems
