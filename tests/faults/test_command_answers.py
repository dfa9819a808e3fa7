"""A command's error answer names the field and never echoes the whole payload: a 256 kB value
echoed back made an answer the broker (message_size_limit) refused, and the table's outbox
could not get past it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.lights import LightLog
from controller.store import EventStore
from controller.table import Table, TableSettings


@pytest.mark.parametrize("payload", [
    {"pending": "x" * 250_000},
    {"pending": list(range(80_000))},
    {"seat": "E" * 250_000, "kind": "pung"},
])
def test_an_error_answer_stays_small_whatever_the_payload(
    tmp_path: Path, payload: dict[str, object]
) -> None:
    table = Table(TableSettings("t", courtesy_pause_ms=10), EventStore(tmp_path / "t.sqlite3"),
                  LightLog(), scorer=None, roll=lambda: 3)
    table.start()
    verb = "claim" if "kind" in payload else "confirm"
    result = table.command(verb, json.dumps(payload).encode(), 1_000)
    assert result["ok"] is False and result["where"]
    published = table.store.pending()[-1]
    assert published.topic == f"mahjong/v1/t/cmd/{verb}/result"
    assert len(published.payload) < 1_000
