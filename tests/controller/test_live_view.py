"""The live view tells every family's record in one voice, from its public part alone."""

from __future__ import annotations

import pytest

from controller.live_view import describe


@pytest.mark.parametrize(
    ("record", "line"),
    [
        ({"type": "HandStarted", "ruleset": "code1924/mixed", "prevailing": "E"},
         "── new hand (code1924/mixed, prevailing E) ──"),
        ({"type": "HandStarted", "seat": None,
          "public": {"ruleset": "american", "card": {"name": "sample"}},
          "private": {"wall": ["5B"]}},
         "── new hand (american, card sample) ──"),
        ({"type": "Discarded", "seat": "S", "tile": "5C"}, "S discards 5C"),
        ({"type": "Discarded", "seat": "S", "public": {"tile": "5C"}}, "S discards 5C"),
        ({"type": "ClaimsClosed", "claims": ["W:pung"], "winner": "W", "discard": "5C",
          "kind": "pung", "rule": "Code 1924, Law 52"},
         "[W:pung] -> W takes 5C (pung)  (Code 1924, Law 52)"),
        ({"type": "WindowClosed", "seat": None, "public": {"claims": [], "winner": None}}, ""),
        ({"type": "HandScored", "net_by_player": {"Ann": 64, "Bob": -64}},
         "score: Ann +64, Bob -64"),
        ({"type": "Dealt", "seat": "E", "public": {"count": 13}, "private": {"tiles": ["RD"]}},
         ""),
    ],
)
def test_describe_tells_a_record_of_either_family(record: dict[str, object], line: str) -> None:
    assert describe(record) == line
