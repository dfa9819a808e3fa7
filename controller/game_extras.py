"""What the export and the scoreboard add to a table's games, beside the points: the money at
the table's stakes (engine.scoring.stakes) and an American game's tournament points
(engine.scoring.tournament). This module only reads the config and adds fields, never
changing one that was there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedInput
from engine.scoring.stakes import Stakes, convert_game
from engine.scoring.tournament import game_points


def stakes_of(section: Any) -> Stakes | None:
    """The config's ``[stakes]`` as engine Stakes; None when the table plays for points."""
    if section is None or not section.unit:
        return None
    return Stakes(section.unit, section.per_point, section.settle, section.decimals)


@dataclass(frozen=True)
class HouseLimit:
    """The table's house rule on the limit (``table.options.limit``): a number, ``null`` for
    none (``unlimited``), or absent (the book's)."""

    limit: int | None = None
    unlimited: bool = False


def table_limit(options: Mapping[str, Any]) -> HouseLimit:
    if "limit" not in options:
        return HouseLimit()
    limit = options["limit"]
    if limit is None:
        return HouseLimit(unlimited=True)
    if isinstance(limit, int | float) and not isinstance(limit, bool):
        return HouseLimit(int(limit))
    return HouseLimit()


def with_stakes(games: list[dict[str, Any]], stakes: Stakes | None,
                house: HouseLimit = HouseLimit()) -> list[dict[str, Any]]:
    """Each game with its ``stakes`` block, and each hand with its ``money`` by player."""
    if stakes is None:
        return games
    out = []
    for game in games:
        try:
            money = convert_game(game, stakes, house.limit, house.unlimited)
        except MalformedInput as exc:  # a game of a ruleset with no stakes rules: said so
            out.append({**game, "stakes": {"error": str(exc)}})
            continue
        hands = [{**hand, "money": converted["net"]}
                 for hand, converted in zip(game["hands"], money["hands"], strict=True)]
        out.append({**game, "hands": hands, "stakes": money})
    return out


def with_tournament(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each American game with its ``tournament`` points (American SC-9)."""
    out = []
    for game in games:
        points = game_points(game)
        out.append(game if points is None else {**game, "tournament": points})
    return out


def extend_games(games: list[dict[str, Any]], stakes: Stakes | None,
                 house: HouseLimit = HouseLimit()) -> list[dict[str, Any]]:
    """The export's games with all that this module adds."""
    return with_tournament(with_stakes(games, stakes, house))
