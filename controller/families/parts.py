"""Each family's part of the live table, and its engine: the picker the table itself calls
(:class:`controller.table.Table` asks for its part here, by its ruleset's family in
engine/rulesets.py), kept apart from the package's door so that the parts never reach back to
the table (they see it through :class:`~controller.family_part.TableHost`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.family_part import FamilyPart, TableHost
from controller.scoresheet import Scorer
from engine.family import American as AmericanFamily
from engine.family import Classical, RuleFamily, family_for
from engine.rules import get_ruleset
from engine.rulesets import entry


def part_for(table: TableHost, scorer: Scorer | None, roll: Callable[[], int],
             card: Any = None) -> FamilyPart:
    """The family's part of ``table`` (:class:`~controller.family_part.FamilyPart`), with
    the engine's family inside it. An unknown ruleset fails here, not mid-game; an American
    table without ``card`` loads ``table.settings.card`` (empty: the bundled card)."""
    ruleset = table.settings.ruleset
    found = entry(ruleset)
    if found.family == "american":
        from config.cards import card_at
        from controller.families.american import AmericanPart
        from engine.american.family import options_for

        card = card_at(table.settings.card) if card is None else card
        options_for(ruleset, card)  # an unknown table size: ValueError
        return AmericanPart(table, AmericanFamily(found.name, card))
    from controller.families.classical import ClassicalPart

    get_ruleset(ruleset)  # an unknown family fails here, not mid-game
    return ClassicalPart(table, Classical(found.plays), scorer, roll)


def rule_family(ruleset: str, card_path: str = "") -> RuleFamily[Any]:
    """The engine's family that plays ``ruleset``, a card loaded where it plays from one
    (``card_path``; empty: the bundled card)."""
    if entry(ruleset).family == "american":
        from config.cards import card_at

        return family_for(ruleset, card_at(card_path))
    return family_for(ruleset)
