"""A live table's settings: what the service's config gives the table (controller/service.py's
``settings_of``), whichever family it plays."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TableSettings:
    table_id: str
    ruleset: str = "code1924/mixed"
    options: Mapping[str, Any] = field(default_factory=dict)
    courtesy_pause_ms: int = 1500
    press_latency_ms: int = 100
    min_confidence: float = 0.9
    snapshot_every: int = 50
    players: Mapping[str, str] = field(default_factory=dict)
    topic_prefix: str = "mahjong/v1"
    publish: bool = True  # False: no broker configured, so nothing goes to the outbox
    scoring: str = ""  # the ruleset name `mjtable score` gets (a preset), if not the ruleset
    hands_per_game: int | None = None  # where the book defines no game (American)
    card: str = ""  # the American card's path; empty: the bundled card
