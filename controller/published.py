"""What a logged record published, derived from the record again: the page's feed, rebuilt
from the store when the service starts (controller/web/feed.py), draws the hand in play as a
page that never left drew it.

Each family's table publishes its records as it logs them (``_record``); these functions
(and the American table's own, for its records' shape) give the same messages from the log
alone, in the same order. Only what is not in the log cannot come back: a call button's
refusal is a message, not an event (docs/face.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.mqtt import Topics
from controller.penalties import PENALTY_HELD
from controller.store import EventStore, dumps
from engine import events as ev
from engine.tiles import tile_name

HELD = "ObservationHeld"
ENVELOPE = ("seq", "hand", "ts")
Published = list[tuple[str, bytes]]


def hand_in_play(store: EventStore) -> list[dict[str, Any]]:
    """The records from the hand in play's ``HandStarted`` on (a page's log is that hand)."""
    started = store.events_of_types(["HandStarted"])
    return list(store.events(int(started[-1]["seq"]) - 1)) if started else []


def table_event_messages(record: Mapping[str, Any], topics: Topics) -> Published:
    """A table's own event (held, settled, scored ...): published as logged, and a question
    put to the referee also on ``prompts``."""
    out = [(topics.events, dumps(dict(record)).encode())]
    if record["type"] == HELD:
        body = {k: v for k, v in record.items() if k not in ENVELOPE}
        out.append((topics.prompts, dumps({"seat": record["observation"].get("seat"),
                                           **body}).encode()))
    elif record["type"] == PENALTY_HELD:
        out.append((topics.prompts, dumps(dict(record)).encode()))
    return out


def classical_messages(record: Mapping[str, Any], topics: Topics,
                       table_events: Iterable[str]) -> Published:
    """A Chinese family's record (controller/table.py): an engine event's public form, and a
    closed call window's decision on ``adjudications``."""
    if record["type"] in table_events:
        return table_event_messages(record, topics)
    env = {k: record[k] for k in ENVELOPE}
    event = ev.event_from_json({k: v for k, v in record.items() if k not in ENVELOPE})
    out = [(topics.events, dumps({**env, **event.public_json()}).encode())]
    if isinstance(event, ev.ClaimsClosed):
        out.append((topics.adjudications, dumps({
            "seq": env["seq"], "hand": env["hand"], "type": "decision",
            "discard": tile_name(event.discard), "discarder": event.discarder.name,
            "claims": list(event.claims),
            "winner": None if event.winner is None else event.winner.name,
            "kind": event.kind, "rule": event.rule,
            "opened_us": event.opened_us, "closed_us": event.closed_us,
        }).encode()))
    return out
