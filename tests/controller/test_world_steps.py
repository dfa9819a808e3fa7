"""The one simulated world plays every family's hand exactly as the two worlds it replaced:
with the same seed, the same steps (observations and button presses), in the same order, and
the same hand at the end. The fixture holds digests recorded from those worlds; a difference
names the ruleset, seed and hand, and where the steps first part is found by eye from
``steps_of``."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller.families import world_for
from controller.world import Claims, Step
from engine.rulesets import entry
from engine.seats import Seat

RECORDED = json.loads((Path(__file__).parent / "data" / "world_steps.json").read_text())
RULESETS = RECORDED["rulesets"]
HANDS = 3


def step_json(step: Step) -> dict[str, Any]:
    """A step as plain JSON: every field of an observation, or a window's presses."""
    if isinstance(step, Claims):
        return {"claims": [list(p) for p in step.presses]}
    out: dict[str, Any] = {}
    for f in dataclasses.fields(step):
        value = getattr(step, f.name)
        out[f.name] = (list(value) if isinstance(value, tuple)
                       else str(value) if f.name == "kind" else value)
    return out


def _digest(obj: object) -> str:
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def hands_of(ruleset: str, seed: int) -> list[dict[str, Any]]:
    """Three hands of the world from one RNG, each as its step count and digests."""
    rng = random.Random(seed)
    out = []
    for hand in range(1, HANDS + 1):
        world = world_for(ruleset, rng, prevailing=Seat.E, hand=hand)
        steps = [step_json(s) for s in world.steps()]
        view = world.family.public_view(world.result())
        view.pop("mode", None)
        out.append({"steps": len(steps), "steps_sha": _digest(steps), "view_sha": _digest(view)})
    return out


@pytest.mark.parametrize("ruleset,seed", [(r, int(s)) for r in sorted(RULESETS)
                                          for s in sorted(RULESETS[r])])
def test_the_world_plays_as_before(ruleset: str, seed: int) -> None:
    assert hands_of(ruleset, seed) == RULESETS[ruleset][str(seed)]


def test_every_family_is_recorded() -> None:
    assert {entry(r).family for r in RULESETS} == {"code1924", "pungchow", "classical",
                                                   "american"}


def test_a_different_seed_is_seen() -> None:
    """The check can fail: another seed's hands do not match the recorded ones."""
    assert hands_of("code1924/mixed", 5) != RULESETS["code1924/mixed"]["1"]
