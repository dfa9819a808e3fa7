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

from controller.families.parts import part_for, rule_family
from controller.lights import LightLog
from controller.scoresheet import Scorer
from controller.settings import TableSettings
from controller.store import EventStore
from engine.rulesets import entry

__all__ = ["part_for", "rule_family", "simulation_for", "table_for"]

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


def simulation_for(table: Table) -> SimulatedFamily:
    """How ``mjtable simulate`` plays ``table``'s family: the bots' world and the checks of the
    table's mirror against it."""
    found = entry(table.settings.ruleset)
    if found.family == "american":
        from controller.american_world import AmericanSimulation

        return AmericanSimulation(table)
    from controller.world import ClassicalSimulation

    return ClassicalSimulation(found.plays)
