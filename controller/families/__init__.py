"""Each rule family's objects: the one package where the service's parts learn which family a
ruleset belongs to (engine/rulesets.py), so that nothing else branches on it: the family's part
of the one live table (:class:`controller.table.Table`), and the world `mjtable simulate` plays
it against.

The classical families share one engine (``engine.game``) and their part of the table
(``classical.py``); the American game plays from its card (``american.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.family_part import FamilyPart
from controller.lights import LightLog
from controller.scoresheet import Scorer
from controller.settings import TableSettings
from controller.store import EventStore
from engine.family import American as AmericanFamily
from engine.family import Classical, RuleFamily, family_for
from engine.rules import get_ruleset
from engine.rulesets import entry

if TYPE_CHECKING:  # the simulation's worlds load only for `mjtable simulate`
    from controller.table import Table
    from controller.world import SimulatedFamily


def table_for(
    settings: TableSettings,
    store: EventStore,
    lights: LightLog | None = None,
    on_append: Callable[[], None] | None = None,
    scorer: Scorer | None = None,
    parts_status: Callable[[], dict[str, Any]] = dict,
) -> Table:
    """The live table that plays ``settings.ruleset``, recovered from ``store``. ``scorer``
    scores the hands of a family whose engine does not settle them (the classical ones); the
    American game settles its own by the card."""
    from controller.table import Table

    return Table(settings, store, lights, on_append, scorer=scorer, parts_status=parts_status)


def part_for(table: Table, scorer: Scorer | None, roll: Callable[[], int],
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


def simulation_for(table: Table) -> SimulatedFamily:
    """How ``mjtable simulate`` plays ``table``'s family: the bots' world and the checks of the
    table's mirror against it."""
    found = entry(table.settings.ruleset)
    if found.family == "american":
        from controller.american_world import AmericanSimulation

        return AmericanSimulation(table)
    from controller.world import ClassicalSimulation

    return ClassicalSimulation(found.plays)
