"""Whatever JSON arrives, `score_hand` either scores it or raises an EngineError naming the
place (which `mjtable score` turns into exit 2): never another exception, never a traceback."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.scoring import score_hand

GOOD: dict[str, Any] = {
    "ruleset": "code1924/mixed",
    "options": {"limit": 500},
    "prevailing_wind": "E",
    "hands": {
        "S": {
            "melds": [
                {"tiles": ["5B", "5B", "5B"], "exposed": True},
                {"tiles": ["2C", "3C", "4C"], "exposed": True},
            ],
            "concealed": ["SW", "SW", "SW", "6D", "7D", "8D", "9C", "9C"],
            "flowers": ["F2"],
        },
        "E": {
            "concealed": [
                "1B",
                "2B",
                "3B",
                "4C",
                "5C",
                "6C",
                "7D",
                "8D",
                "9D",
                "RD",
                "RD",
                "RD",
                "EW",
            ]
        },
    },
    "winner": "S",
    "win": {"tile": "9C", "by": "wall", "from": None, "context": []},
    "faults": {},
}

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 2000),
    st.text(max_size=4),
    st.sampled_from(["E", "S", "W", "N", "5B", "F1", "J", "RD", "discard", "long", "x"]),
    st.lists(st.sampled_from(["5B", "9C", "EW", "F1", 3, None]), max_size=5),
    st.dictionaries(st.sampled_from(["tiles", "exposed", "S", "limit"]), st.none(), max_size=2),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(GOOD)[1:]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PATHS), JUNK), min_size=1, max_size=3))
def test_mutated_input_is_scored_or_refused_by_name(changes: list[tuple[Any, Any]]) -> None:
    doc = copy.deepcopy(GOOD)
    for path, value in changes:
        node: Any = doc
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    try:
        result = score_hand(doc)
    except EngineError as exc:
        assert str(exc)
        return
    json.dumps(result)
    assert sum(result["net"].values()) == 0
