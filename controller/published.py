"""What a logged record published, derived from the record again: the page's feed, rebuilt
from the store when the service starts (controller/web/feed.py), draws the hand in play as a
page that never left drew it.

The table publishes its records as it logs them (``Table.record``); these functions give the
same messages from the log alone, in the same order, each family's engine saying what of its
records is public (``engine.family``). Only what is not in the log cannot come back: a call button's
refusal is a message, not an event (docs/face.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.mqtt import Topics
from controller.penalties import PENALTY_HELD
from controller.store import EventStore, dumps
from engine.family import RuleFamily

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


def messages_of(record: Mapping[str, Any], topics: Topics, family: RuleFamily[Any]) -> Published:
    """A logged record's messages: the engine's event's public form (its family says which
    records are its engine's, and what of them is public), and a closed call window's
    decision on ``adjudications``; the table's own events as :func:`table_event_messages`."""
    kept = family.published_of(record)
    if kept is None:
        return table_event_messages(record, topics)
    out = [(topics.events, dumps(kept.public).encode())]
    if kept.decision is not None:
        out.append((topics.adjudications, dumps({
            "seq": record["seq"], "hand": record["hand"], "type": "decision",
            **kept.decision}).encode()))
    return out
