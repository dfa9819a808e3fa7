"""No command payload, however malformed, raises out of the table or changes the game unless
it is a valid command: the service must never crash on what arrives on cmd/<verb>."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.families.classical import ClassicalPart
from controller.lights import LightLog
from controller.store import EventStore
from controller.table import Table, TableSettings

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    ["pending", "at", "command", "reason", "kind", "seat", "tiles", "dice", "confidence",
     "winning", "type"]
)
FIELDS = st.dictionaries(KEYS, JSON, max_size=5)
VERBS = st.sampled_from(ClassicalPart.verbs) | st.text(max_size=10)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(verb=VERBS, payload=st.binary(max_size=40) | FIELDS.map(lambda d: json.dumps(d).encode()))
def test_any_command_gets_a_result_and_never_raises(
    tmp_path_factory: object, verb: str, payload: bytes
) -> None:
    path = Path(tmp_path_factory.mktemp("fuzz")) / "t.sqlite3"  # type: ignore[attr-defined]
    table = Table(TableSettings("fz", courtesy_pause_ms=10), EventStore(path), LightLog(),
                  scorer=None, roll=lambda: 3)
    table.start()
    result = table.command(verb, payload, 1_000)
    assert isinstance(result, dict) and isinstance(result.get("ok"), bool)
    if not result["ok"]:
        assert result["error"] and "where" in result
    published = table.store.pending()[-1]
    assert published.topic == f"mahjong/v1/fz/cmd/{verb}/result"
    assert json.loads(published.payload) == json.loads(json.dumps(result))
    again = Table(TableSettings("fz"), EventStore(path), scorer=None)
    assert again.public_state() == table.public_state()  # whatever happened is in the log
