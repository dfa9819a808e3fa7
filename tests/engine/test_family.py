"""Every rule family behind one interface: the same code begins a hand, applies commands and
reads the public view of a classical and an American hand, and a refusal carries a rule and a
stable code in both."""

from __future__ import annotations

from typing import Any

import pytest

from config.cards import default_card
from engine import commands as cm
from engine.american import commands as am
from engine.errors import RuleViolation
from engine.family import RuleFamily, family_for
from engine.rulesets import names
from engine.seats import Seat


def _family(name: str) -> RuleFamily[Any]:
    return family_for(name, default_card())


@pytest.mark.parametrize("name", names())
def test_every_ruleset_of_the_registry_has_a_family(name: str) -> None:
    family = _family(name)
    state, events = family.new_hand("mirror", hand=1)
    assert events and family.public_view(state)
    first: dict[str, cm.Command] = {
        "american": am.CharlestonPass(Seat.E, count=3),  # four players pass first (CH-2)
        "american/3": am.Discard(Seat.E, 5),  # smaller tables have no Charleston
        "american/2": am.Discard(Seat.E, 5),
    }
    state, events = family.apply(state, first.get(name, cm.Throw(seat=Seat.E, dice=(3, 4))))
    assert events and family.public_view(state) != {}


@pytest.mark.parametrize(
    ("name", "command", "rule", "code"),
    [
        ("code1924/mixed", cm.Discard(seat=Seat.S, tile=5), "Code 1924, Law 26", "turn"),
        ("american", am.Discard(Seat.S, 5), "American P-1", "p_1"),
    ],
)
def test_a_refusal_names_its_rule_and_code_in_every_family(
    name: str, command: cm.Command, rule: str, code: str
) -> None:
    family = _family(name)
    state, _ = family.new_hand("mirror", hand=1)
    before = family.public_view(state)
    with pytest.raises(RuleViolation) as refused:
        family.apply(state, command)
    assert (refused.value.rule, refused.value.code) == (rule, code)
    assert family.public_view(state) == before  # nothing half-applied


def test_the_american_family_needs_its_card() -> None:
    with pytest.raises(ValueError, match="american/2 is played from a card"):
        family_for("american/2")
