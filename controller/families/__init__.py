"""Each rule family's objects: the one package where the service's parts learn which family a
ruleset belongs to (engine/rulesets.py), so that nothing else branches on it: the live table,
and the world `mjtable simulate` plays it against.

The classical families share one engine (``engine.game``) and one table
(:class:`controller.table.Table`); the American game plays from its card
(:class:`controller.american_table.AmericanTable`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.lights import LightLog
from controller.live_table import LiveTable, TableSettings
from controller.scoresheet import Scorer
from controller.store import EventStore
from engine.rulesets import entry

if TYPE_CHECKING:  # the simulation's worlds load only for `mjtable simulate`
    from controller.world import SimulatedFamily


def table_for(
    settings: TableSettings,
    store: EventStore,
    lights: LightLog | None = None,
    on_append: Callable[[], None] | None = None,
    scorer: Scorer | None = None,
) -> LiveTable:
    """The live table that plays ``settings.ruleset``, recovered from ``store``. ``scorer``
    scores the classical families' hands; the American game settles its own by the card."""
    if entry(settings.ruleset).family == "american":
        from controller.american_table import AmericanTable

        return AmericanTable(settings, store, lights, on_append)
    from controller.table import Table

    return Table(settings, store, lights, on_append, scorer=scorer)


def simulation_for(table: LiveTable) -> SimulatedFamily:
    """How ``mjtable simulate`` plays ``table``'s family: the bots' world and the checks of the
    table's mirror against it."""
    found = entry(table.settings.ruleset)
    if found.family == "american":
        from controller.american_world import AmericanSimulation

        return AmericanSimulation(table)
    from controller.world import ClassicalSimulation

    return ClassicalSimulation(found.plays)
