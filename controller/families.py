"""The live table of each rule family: the one place the service's parts learn which family a
ruleset belongs to (engine/rulesets.py), so that nothing else branches on it.

The classical families share one engine (``engine.game``) and one table
(:class:`controller.table.Table`); the American game plays from its card
(:class:`controller.american_table.AmericanTable`).
"""

from __future__ import annotations

from collections.abc import Callable

from controller.lights import LightLog
from controller.live_table import LiveTable, TableSettings
from controller.scoresheet import Scorer
from controller.store import EventStore
from engine.rulesets import entry


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
