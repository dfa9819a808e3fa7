"""The messages a record published, derived again from the log (controller/published.py),
are the very messages the table published when it logged it: the outbox of a table with no
broker keeps them all, in order, to compare with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.inputs import Press
from controller.published import hand_in_play
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.web.feed import Feed

from .test_simulate_american import _east_discarded
from .test_table import _play, _table, obs


def _sent(table: Table) -> list[tuple[str, Any]]:
    """What the table put in its outbox: every message but a command's answer or a refused
    call (messages with no event in the log)."""
    out = []
    for m in table.store.pending(0, 100_000):
        body = json.loads(m.payload)
        if "/cmd/" in m.topic or body.get("type") == "refused":
            continue
        out.append((m.topic, body))
    return out


def _derived(table: Table) -> list[tuple[str, Any]]:
    return [(topic, json.loads(payload)) for record in table.store.events(0)
            for topic, payload in table.published(record)]


def test_a_chinese_table_publishes_what_its_log_gives_again(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _play(table, 80, seed=3)
    table.observe(obs("discard", "N", "7D", conf=0.4), now + 1)  # a question asked
    sent = _sent(table)
    topics = {t.rsplit("/", 1)[1] for t, _ in sent}
    assert {"events", "adjudications", "prompts"} <= topics  # the test sees every kind
    assert _derived(table) == sent


def test_an_american_table_publishes_what_its_log_gives_again(tmp_path: Path) -> None:
    table = _east_discarded(tmp_path, "5D")
    table.settings = TableSettings("t", "american", courtesy_pause_ms=100, publish=True)
    # the Charleston's passes were logged unpublished (publish was off): compare from here
    start = table.store.last_seq()
    assert table.press(Press("W", "pung", 2_000), 2_000).accepted
    table.tick(10_000_000)  # the window closes: a C-9 decision on adjudications
    table.observe(obs("discard", "S", "3B", conf=0.2), 10_000_001)  # a question asked
    sent = _sent(table)
    derived = [(topic, json.loads(payload)) for record in table.store.events(start)
               for topic, payload in table.published(record)]
    assert {t.rsplit("/", 1)[1] for t, _ in sent} >= {"events", "adjudications"}
    assert derived == sent
    assert all('"private"' not in json.dumps(body) for _, body in derived)


def test_a_feed_rebuilt_from_the_store_holds_the_hand_a_live_feed_holds(tmp_path: Path) -> None:
    table = _table(tmp_path)
    live = Feed(table.topics.base)
    table.store.listeners.append(live.on_store)
    _play(table, 60, seed=3)
    again = Feed(table.topics.base)
    store = EventStore(tmp_path / "table.sqlite3")
    again.replay(m for r in hand_in_play(store) for m in table.published(r))
    refused = [i for i in live.log if i["body"].get("type") == "refused"]
    assert list(again.log) == [i for i in live.log if i not in refused]
    assert len(again.log) > 40 and again.log[0]["body"]["type"] == "HandStarted"
