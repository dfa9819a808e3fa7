"""Each rule family's objects: the one package where the service's parts learn which family a
ruleset belongs to (engine/rulesets.py), so that nothing else branches on it: the family's part
of the one live table (:class:`controller.table.Table`), and each family's part of the world
`mjtable simulate` plays it against (``*_world.py``).

The classical families share one engine (``engine.game``) and their part of the table
(``classical.py``); the American game plays from its card (``american.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.families.parts import part_for, rule_family
from controller.lights import LightLog
from controller.scoresheet import Scorer
from controller.settings import TableSettings
from controller.store import EventStore
from engine.rulesets import entry
from engine.seats import Seat

__all__ = ["part_for", "rule_family", "simulation_for", "table_for"]

if TYPE_CHECKING:  # the simulation's worlds load only for `mjtable simulate`
    import random

    from controller.table import Table
    from controller.world import FamilyWorld, HandWorld, Simulation
    from engine.american.compiled import CompiledCard
    from engine.family import RuleFamily


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


def simulation_for(table: Table) -> Simulation:
    """How ``mjtable simulate`` plays ``table``'s family: the bots' world and the checks of the
    table's mirror against it."""
    from controller.world import Simulation

    return Simulation(table.family, world_part_for(table.family))


def world_part_for(family: RuleFamily[Any]) -> FamilyWorld:
    """What is ``family``'s own in the simulated world."""
    if entry(family.ruleset).family == "american":
        from controller.families.american_world import AmericanWorld

        return AmericanWorld()
    from controller.families.classical_world import ClassicalWorld

    return ClassicalWorld()


def world_for(ruleset: str, rng: random.Random, *, hand: int = 1,
              prevailing: Seat | None = Seat.E, card: CompiledCard | None = None) -> HandWorld:
    """One hand of the simulated world for ``ruleset`` with no table (``card``: the American
    game's; the bundled one by default)."""
    from controller.world import HandWorld
    from engine.family import family_for

    if card is None and entry(ruleset).family == "american":
        from config.cards import default_card

        card = default_card()
    family = family_for(ruleset, card)
    return HandWorld(family, world_part_for(family), rng, hand=hand, prevailing=prevailing)
