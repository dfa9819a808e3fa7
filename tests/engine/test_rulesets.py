"""The registry of rulesets names exactly what the engine plays and the scorer scores."""

from __future__ import annotations

import subprocess
import sys

from engine import rulesets
from engine.rules import RULESETS as PLAYED
from engine.scoring.tables import RULESETS as SCORED


def test_the_registry_names_every_ruleset_the_engine_plays_and_the_scorer_scores() -> None:
    entries = [rulesets.entry(n) for n in rulesets.names()]
    assert {e.name for e in entries if e.family != "american" and not e.preset} == set(PLAYED)
    assert {e.scores for e in entries if e.scores} == set(SCORED)
    assert all(e.plays in PLAYED for e in entries if e.family != "american")


def test_taking_a_name_does_not_load_the_scorer() -> None:
    code = ("import sys; from engine.rulesets import entry, names; names();"
            " entry('classical/dmjl'); print('engine.scoring' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_scoring_a_hand_does_not_load_the_rules_of_play() -> None:
    """`mjtable score` runs once per hand: its door reads only the scorer's tables."""
    code = ("import sys; from engine.rulesets import score;"
            " score({'ruleset': 'pungchow'}, card=print); print('engine.rules' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
