"""`mjtable replay STORE`: every hand of a table's store rebuilt from its log, the last one
checked against the retained ``state`` the table published, and the games folded again and
checked against the retained ``scores``."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from controller.cli import CommandInputError


def replay_store(path: str) -> dict[str, Any]:
    from controller.commands.export import open_store_records
    from controller.games import export_games

    started = time.perf_counter()
    records = open_store_records(path, path)
    if not records:
        raise CommandInputError("the store has no events", path)
    by_hand: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_hand[int(record["hand"])].append(record)
    mismatches: list[dict[str, Any]] = []
    views: dict[int, dict[str, Any]] = {}
    for hand, hand_records in sorted(by_hand.items()):
        try:
            views[hand] = _rebuilt_view(hand_records)
        except Exception as exc:  # a hand the engine cannot rebuild is what replay reports
            mismatches.append({"hand": hand, "problem": f"cannot rebuild: {exc}"})
    retained = _retained(path)
    last = max(by_hand)
    state = retained.get("state")
    if state is not None and last in views and state.get("seats") != views[last].get("seats"):
        mismatches.append({"hand": last, "problem": "the rebuilt hand differs from the "
                           "retained state"})
    games = export_games(records)
    scores = retained.get("scores") or {}
    game = scores.get("game")
    if game is not None and games and games[-1]["totals"] != game.get("totals"):
        mismatches.append({"game": games[-1]["id"], "problem": "the games folded again differ "
                           "from the retained scores"})
    return {
        "hands": len(by_hand),
        "events": len(records),
        "games": len(games),
        "matched": len(by_hand) - sum(1 for m in mismatches if "hand" in m),
        "mismatches": mismatches,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _rebuilt_view(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The public view of one hand rebuilt from its records, by the family of the engine that
    wrote them (the ruleset its ``HandStarted`` names)."""
    from controller.families import rule_family

    first = next(r for r in records if r["type"] == "HandStarted")
    ruleset = first.get("ruleset") or (first.get("public") or {}).get("ruleset")
    if not isinstance(ruleset, str):
        raise ValueError(f"seq {first['seq']}: the hand's HandStarted names no ruleset")
    family = rule_family(ruleset)
    state = family.rebuild(records)
    if state is None:
        raise ValueError(f"hand {first['hand']}: no record of its engine's")
    return family.public_view(state)


def _retained(path: str) -> dict[str, Any]:
    import json
    import sqlite3

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT topic, payload FROM retained").fetchall()
    finally:
        db.close()
    return {str(t).rsplit("/", 1)[-1]: json.loads(p) for t, p in rows}
