"""The service scores a won hand in process, and answers exactly what `mjtable score` prints
for the same document: the command's JSON contract is the interface either way."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from controller.scoresheet import engine_scorer
from tests.scoring.test_score_cli import GOOD

MAIN = "import sys; from controller.cli import main; sys.exit(main())"

WON = GOOD  # the contract's example hand (docs/score.md)


def _command(doc: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", MAIN, "score"], input=json.dumps(doc),
                          capture_output=True, text=True, timeout=60)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    "doc",
    [
        WON,
        {**WON, "ruleset": "pungchow"},
        {**WON, "ruleset": "classical/dmjl", "options": {}},
        {**WON, "options": {"limit": "lots"}},  # a bad option: an error naming it
        {**WON, "winner": "X"},  # a bad seat
    ],
    ids=["code1924", "pungchow", "dmjl", "bad-option", "bad-seat"],
)
def test_engine_scorer_answers_what_mjtable_score_prints(doc: dict[str, Any]) -> None:
    assert engine_scorer(json.loads(json.dumps(doc))) == _command(doc)


def test_engine_scorer_names_the_field_of_a_hand_it_cannot_score() -> None:
    result = engine_scorer({**WON, "ruleset": "bridge"})
    assert result["where"] == "ruleset"
    assert "unknown ruleset 'bridge'" in result["error"]
