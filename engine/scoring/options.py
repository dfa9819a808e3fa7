"""House-rule options of `mjtable score`: each key, its type, its default per family, and the
decision it changes (docs/rules.md). Unknown keys and wrong types are refused by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedInput
from engine.scoring.tables import Ruleset


@dataclass(frozen=True)
class Option:
    kind: str  # "int?" (int or null), "int", "bool", one of "a|b|c"
    default: Callable[[Ruleset], Any]
    families: tuple[str, ...]  # ruleset name prefixes it applies to ("" = all)
    doc: str


def _const(value: Any) -> Callable[[Ruleset], Any]:
    return lambda _r: value


OPTIONS: Mapping[str, Option] = {
    "limit": Option(
        "int?",
        lambda r: r.limit,
        ("",),
        "the limit of payment (null: no limit); 1924 Law 93: 500; Pung-Chow II: 300; "
        "Classical 500; BMJA 1000; Pung-Chow Part I has none",
    ),
    "limit_hand_value": Option(
        "int",
        lambda r: r.limit_hand_value,
        ("",),
        "what a limit hand is worth when playing without a limit (1924 Law 100: agreed value)",
    ),
    "losers_settle": Option(
        "bool",
        lambda r: r.losers_settle is not None,
        ("",),
        "whether the non-winners settle their differences (1924 Law 82; Classical option)",
    ),
    "loser_limit": Option(
        "difference|score",
        lambda r: r.losers_settle or "difference",
        ("",),
        "the limit among non-winners caps the difference (1924 Law 93, B1) or each score first",
    ),
    "east_double": Option(
        "bool", lambda r: r.east_double, ("",), "East pays and receives double (1924 Law 81)"
    ),
    "only_place_on_discard": Option(
        "bool",
        _const(True),
        ("",),
        "filling the only place also scores when the tile is claimed (1924 A6; Pung-Chow Ex. 15)",
    ),
    "mixed_nonwinner_suit_doubles": Option(
        "bool",
        _const(False),
        ("code1924/mixed",),
        "non-winners of the Mixed-Hand game get the suit doubles too (1924 A1; literal: no)",
    ),
    "one_suit_and_terminals_both": Option(
        "bool",
        _const(True),
        ("code1924",),
        "a hand of one suit's terminals with Honours takes both doubles (1924 A15)",
    ),
    "seven_twins_qualifies": Option(
        "bool",
        lambda r: r.name == "code1924/mixed",
        ("code1924",),
        "Seven Twins is a complete hand in the One-Double and Cleared-Hand games (1924 A11)",
    ),
    "pay_for_all": Option(
        "bool",
        lambda r: r.pay_for_all is not None,
        ("code1924", "pungchow"),
        "insurance (1924 Laws 77-79) / the reckless-discard penalty (Pung-Chow II)",
    ),
    "mahjong_points": Option(
        "int",
        lambda r: 20 if r.name != "pungchow/limit" else 10,
        ("pungchow/limit",),
        "Pung-Chow II bonus for Mah-Jongg: 10, or 20 by agreement (then the limit is 400)",
    ),
    "final_pair_simple_claimed": Option(
        "int",
        _const(2),
        ("pungchow/limit",),
        "Pung-Chow II: pair of 2-8 punged to complete the hand (table: 2; Example 3: 0)",
    ),
    "false_mahjong_penalty": Option(
        "int?",
        lambda r: r.false_mahjong_amount or None,
        ("classical",),
        "Classical: what a false Mah Jongg pays each other player (null: half the limit)",
    ),
}


def _applies(option: Option, ruleset: Ruleset) -> bool:
    return any(ruleset.name.startswith(prefix) for prefix in option.families)


def option_defaults(ruleset: Ruleset) -> dict[str, Any]:
    return {k: o.default(ruleset) for k, o in OPTIONS.items() if _applies(o, ruleset)}


def validate_options(ruleset: Ruleset, raw: Mapping[str, Any]) -> dict[str, Any]:
    values = option_defaults(ruleset)
    for key, value in raw.items():
        where = f"options.{key}"
        option = OPTIONS.get(key)
        if option is None or not _applies(option, ruleset):
            known = ", ".join(sorted(values))
            raise MalformedInput(where, f"unknown option for {ruleset.name}; known: {known}")
        kind = option.kind
        if kind in ("int", "int?"):
            ok = (value is None and kind == "int?") or (
                isinstance(value, int) and not isinstance(value, bool) and value >= 0
            )
            if not ok:
                raise MalformedInput(
                    where,
                    f"expected a whole number >= 0{' or null' if kind == 'int?' else ''}, "
                    f"got {value!r}",
                )
        elif kind == "bool":
            if not isinstance(value, bool):
                raise MalformedInput(where, f"expected true or false, got {value!r}")
        elif value not in kind.split("|"):
            raise MalformedInput(where, f"expected one of {kind.replace('|', ', ')}, got {value!r}")
        values[key] = value
    if (
        ruleset.name == "pungchow/limit"
        and "limit" not in raw
        and values.get("mahjong_points") == 20
    ):
        values["limit"] = 400  # Part II: "400 in games giving a bonus of 20 points"
    return values
