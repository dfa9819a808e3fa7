"""Small builders so each scoring test reads like the hand it scores."""

from __future__ import annotations

from typing import Any

from engine.scoring import score_hand


def meld(tiles: str, exposed: bool = True) -> dict[str, Any]:
    return {"tiles": tiles.split(), "exposed": exposed}


def seat_hand(concealed: str = "", *melds: dict[str, Any], flowers: str = "") -> dict[str, Any]:
    return {"melds": list(melds), "concealed": concealed.split(), "flowers": flowers.split()}


def game(
    ruleset: str,
    hands: dict[str, dict[str, Any]],
    winner: str | None,
    tile: str | None = None,
    by: str = "wall",
    source: str | None = None,
    context: tuple[str, ...] = (),
    prevailing: str | None = "E",
    **extra: Any,
) -> dict[str, Any]:
    doc: dict[str, Any] = {"ruleset": ruleset, "hands": hands, "winner": winner}
    if prevailing is not None:
        doc["prevailing_wind"] = prevailing
    if winner is not None:
        doc["win"] = {"tile": tile, "by": by, "from": source, "context": list(context)}
    doc.update(extra)
    return doc


def score(doc: dict[str, Any]) -> dict[str, Any]:
    return score_hand(doc)


def items(result: dict[str, Any], seat: str) -> dict[str, Any]:
    """item name -> its points, doubles or limit."""
    out: dict[str, Any] = {}
    for i in result["hands"][seat]["items"]:
        out[i["item"]] = i.get("points", i.get("doubles", i.get("limit")))
    return out


def has(result: dict[str, Any], seat: str, name: str) -> Any:
    """The value of the one item whose name starts with ``name`` (None if absent)."""
    found = [v for k, v in items(result, seat).items() if k.startswith(name)]
    assert len(found) <= 1, found
    return found[0] if found else None
