"""The `american` rule family as the rest of the system sees it: names, options and the
whole-hand simulation behind `mjtable play --ruleset american`.

Ruleset names: ``american`` (four players), ``american/3`` and ``american/2`` (the three- and
two-handed games, no Charleston). The card defaults to the shipped sample card.
"""

from __future__ import annotations

import os
from typing import Any

from engine.american.card import SAMPLE_CARD, CompiledCard, load_card
from engine.american.game import AmericanOptions

NAMES = ("american", "american/3", "american/2")


def is_american(ruleset: str) -> bool:
    return ruleset.strip().lower().split("/")[0] == "american"


def options_for(ruleset: str) -> AmericanOptions:
    name = ruleset.strip().lower()
    if name not in NAMES:
        raise ValueError(f"unknown American ruleset {ruleset!r} (known: {', '.join(NAMES)})")
    players = int(name.split("/")[1]) if "/" in name else 4
    return AmericanOptions(players=players)


def default_card() -> CompiledCard:
    """The card named by ``MJTABLE_AMERICAN_CARD``, else the sample card."""
    return load_card(os.environ.get("MJTABLE_AMERICAN_CARD") or SAMPLE_CARD)


def play(ruleset: str, hands: int, seed: int, log_path: str | None = None,
         card: CompiledCard | None = None) -> dict[str, Any]:
    """Bots play ``hands`` whole hands; the summary of contracts.md plus an ``american``
    breakdown (calls, exposures, Joker exchanges, Charleston passes)."""
    from engine.american.bots import play_hands

    summary = play_hands(card or default_card(), hands, seed, options_for(ruleset), log_path)
    summary["ruleset"] = ruleset
    summary["seed"] = seed
    return summary
