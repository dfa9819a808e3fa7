"""Expanding card lines into concrete requirements, and the card's meaning checks (lint).

Every line is expanded once, at load, over all values of its variables (suits, numbers, winds,
"any dragon" choices). An expansion says, per tile, how many naturals the line demands in
joker-proof places (singles, pairs, blocks, ``!`` sets: ``nat``) and how many in sets a Joker
may fill (``jok``), plus its set groups ``(tile, size, jokerable)`` that an exposure must equal.

The per-tile test built on these is exact (design note american.md §3): Jokers are
interchangeable, sets of one tile are interchangeable, and a concealed set may be all Jokers
(American S-6).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from engine.american.cln import (
    NUMBER_VARS,
    SUIT_VARS,
    WIND_VARS,
    Card,
    CardLine,
    Group,
)
from engine.american.compiled import Expansion, Problem, supply
from engine.tiles import EW, FLOWER, GD, NW, RD, SW, WD, WW, Tile

SUITS = "BCD"
# T-4: Red with Crak, Green with Bam, Soap with Dot.
DRAGON_OF_SUIT = {"B": GD, "C": RD, "D": WD}
WIND_TILE = {"N": NW, "E": EW, "W": WW, "S": SW}
LITERAL_TILE = {"0": WD, "R": RD, "G": GD, "F": FLOWER, **WIND_TILE}

def _group_needs_suit(group: Group) -> bool:
    return any((e.symbol.isdigit() and e.symbol != "0") or e.symbol in NUMBER_VARS
               or e.symbol == "D" for e in group.elements)


def line_problems(line: CardLine) -> list[Problem]:
    """Structural meaning checks of one line (L1, L3, L4, L6, L8, L9)."""
    problems: list[Problem] = []

    def add(col: int, sev: str, code: str, msg: str) -> None:
        problems.append(Problem(line.lineno, col, "error" if sev == "e" else "warning", code, msg))

    for groups in line.patterns:
        size = sum(g.size for g in groups)
        if size != 14:
            add(groups[0].column, "e", "L1", f"this hand comes to {size} tiles, not 14 "
                "(American: a hand is 14 tiles)")
        letters = {g.suit for g in groups if g.suit in tuple(SUIT_VARS)}
        fixed = {g.suit for g in groups if g.suit and g.suit.startswith("@")}
        if len(letters) + len(fixed) > 3 and not line.constraints.same_suit_ok:
            add(groups[0].column, "e", "L3", "more than three suits on one line (American K-3)")
        for g in groups:
            needs = _group_needs_suit(g)
            if needs and g.suit is None:
                what = "a dragon D" if any(e.symbol == "D" for e in g.elements) else "a number"
                add(g.column, "e", "L4", f"{what} in {g.text!r} needs a suit: a, b, c, "
                    "@B, @C or @D (or * after D for any dragon)")
            if g.suit == "*" and any(e.symbol != "D" for e in g.elements):
                add(g.column, "e", "L4", f"'*' (any dragon) in {g.text!r} applies to D only")
            if g.suit is not None and not needs:
                add(g.column + len(g.text) - 1, "w", "L6",
                    f"suit {g.suit!r} on {g.text!r} has no effect: winds, Flowers and Soap "
                    "belong to no suit (T-5, K-3)")
            if g.naturals_only and not g.is_set:
                add(g.column, "w", "L6", f"'!' on {g.text!r} has no effect: only sets of "
                    "three or more like tiles take Jokers (J-1)")
            if (not g.is_like and any(e.symbol in NUMBER_VARS for e in g.elements)
                    and any(e.symbol == "0" for e in g.elements)):
                add(g.column, "e", "L8", f"{g.text!r}: Soap as zero never joins a run of "
                    "numbers (T-5, K-5)")
        for g in groups:
            for e in g.elements:
                if e.symbol in NUMBER_VARS and not any(
                        1 <= v + (e.offset or 0) <= 9
                        for v in line.constraints.numbers_for(e.symbol)):
                    add(e.column, "e", "L5", f"{e.symbol}+{e.offset} has no possible value "
                        "in 1-9 (number domain and offset; a run never wraps, K-5)")
    note = line.note.lower()
    groups_all = [g for p in line.patterns for g in p]
    var_offsets = {(e.symbol, e.offset) for g in groups_all for e in g.elements
                   if e.symbol in NUMBER_VARS}
    checks = [
        ("consecutive", len({o for _, o in var_offsets}) > 1
         or any(not g.is_like for g in groups_all)),
        ("like", any(len({g.suit for g in groups_all if any(e.key == k for e in g.elements)})
                     >= 2 for k in var_offsets)),
        ("any dragon", any(g.suit == "*" for g in groups_all)),
        ("1 or 2 suits", bool(line.constraints.same_suit_ok)),
        ("any wind", any(e.symbol in WIND_VARS for g in groups_all for e in g.elements)),
    ]
    for word, present in checks:
        if word in note and not present:
            add(len(line.text) - len(line.text.lstrip()) + 1, "w", "L9",
                f"the parenthetical says {word!r} but the groups do not express it")
    return problems


def _assignments(line: CardLine, groups: tuple[Group, ...]) -> Iterator[
        tuple[dict[str, str], dict[str, int], dict[str, str], tuple[Tile, ...]]]:
    cons = line.constraints
    letters = sorted({g.suit for g in groups if g.suit and g.suit in tuple(SUIT_VARS)})
    fixed = {g.suit[1] for g in groups if g.suit and g.suit.startswith("@")}
    free_suits = [s for s in SUITS if s not in fixed]
    nvars: dict[str, set[int]] = {}
    wvars: set[str] = set()
    for g in groups:
        for e in g.elements:
            if e.symbol in NUMBER_VARS:
                nvars.setdefault(e.symbol, set()).add(e.offset or 0)
            elif e.symbol in WIND_VARS:
                wvars.add(e.symbol)
    any_dragon = [i for i, g in enumerate(groups) if g.suit == "*"]
    number_names = sorted(nvars)
    number_values = [
        [v for v in sorted(cons.numbers_for(n)) if all(1 <= v + o <= 9 for o in nvars[n])]
        for n in number_names
    ]
    wind_names = sorted(wvars)
    wind_values = [sorted(cons.winds_for(w)) for w in wind_names]

    def distinct(names: list[str], values: tuple[object, ...],
                 allowed: frozenset[frozenset[str]]) -> bool:
        for (n1, v1), (n2, v2) in itertools.combinations(zip(names, values, strict=True), 2):
            if v1 == v2 and frozenset((n1, n2)) not in allowed:
                return False
        return True

    for suits in itertools.product(free_suits, repeat=len(letters)):
        if not distinct(letters, suits, cons.same_suit_ok):
            continue
        suit_map = dict(zip(letters, suits, strict=True))
        for numbers in itertools.product(*number_values):
            if not distinct(number_names, numbers, cons.same_number_ok):
                continue
            number_map = dict(zip(number_names, numbers, strict=True))
            for winds in itertools.product(*wind_values):
                if not distinct(wind_names, winds, cons.same_wind_ok):
                    continue
                wind_map = dict(zip(wind_names, winds, strict=True))
                for dragons in itertools.product((RD, GD, WD), repeat=len(any_dragon)):
                    yield suit_map, number_map, wind_map, dragons


def _resolve(group: Group, symbol: str, offset: int | None, suit_map: dict[str, str],
             number_map: dict[str, int], wind_map: dict[str, str], dragon: Tile | None) -> Tile:
    suit = ""
    if group.suit and group.suit.startswith("@"):
        suit = group.suit[1]
    elif group.suit in suit_map:
        suit = suit_map[group.suit]
    if symbol in LITERAL_TILE:
        return LITERAL_TILE[symbol]
    if symbol in WIND_VARS:
        return WIND_TILE[wind_map[symbol]]
    if symbol == "D":
        return dragon if dragon is not None else DRAGON_OF_SUIT[suit]
    number = number_map[symbol] + (offset or 0) if symbol in NUMBER_VARS else int(symbol)
    return SUITS.index(suit) * 9 + number - 1


MAX_COMBINATIONS = 200_000  # a line beyond this is a typing slip, not a hand (L10)


def combinations(line: CardLine) -> int:
    """An upper bound on the variable values a line ranges over, before any is tried."""
    total = 0
    for groups in line.patterns:
        letters = {g.suit for g in groups if g.suit and g.suit in tuple(SUIT_VARS)}
        numbers = {e.symbol for g in groups for e in g.elements if e.symbol in NUMBER_VARS}
        winds = {e.symbol for g in groups for e in g.elements if e.symbol in WIND_VARS}
        stars = sum(1 for g in groups if g.suit == "*")
        total += 3 ** len(letters) * 9 ** len(numbers) * 4 ** len(winds) * 3 ** stars
    return total


def expand_line(line: CardLine, index: int) -> list[Expansion]:
    """All distinct expansions of a line that respect the tile supply (design §5.2 rule 8).
    A line with structural errors (see :func:`line_problems`) must not be expanded."""
    result: list[Expansion] = []
    seen: set[tuple[object, ...]] = set()
    jokers_ok = not line.constraints.no_jokers
    for alt, groups in enumerate(line.patterns):
        any_dragon = [i for i, g in enumerate(groups) if g.suit == "*"]
        for suit_map, number_map, wind_map, dragons in _assignments(line, groups):
            chosen = dict(zip(any_dragon, dragons, strict=True))
            nat: dict[Tile, int] = {}
            jok: dict[Tile, int] = {}
            set_groups: list[tuple[Tile, int, bool]] = []
            for gi, g in enumerate(groups):
                dragon = chosen.get(gi)
                if g.is_set:
                    e = g.elements[0]
                    t = _resolve(g, e.symbol, e.offset, suit_map, number_map, wind_map, dragon)
                    jokerable = jokers_ok and not g.naturals_only
                    target = jok if jokerable else nat
                    target[t] = target.get(t, 0) + g.size
                    set_groups.append((t, g.size, jokerable))
                else:
                    for e in g.elements:
                        t = _resolve(g, e.symbol, e.offset, suit_map, number_map, wind_map,
                                     dragon)
                        nat[t] = nat.get(t, 0) + e.count
            if any(n > supply(t) for t, n in nat.items()):
                continue  # more naturals than exist: this value is impossible
            exp = Expansion(index, alt, tuple(sorted(nat.items())), tuple(sorted(jok.items())),
                            tuple(sorted(set_groups)))
            key = (exp.nat, exp.jok, exp.groups)
            if key not in seen:
                seen.add(key)
                result.append(exp)
    return result


def expand_card(card: Card) -> tuple[list[list[Expansion]], list[Problem]]:
    """Expand every line; returns per-line expansions and the lint problems (L1-L9).
    A line with an error gets no expansions."""
    problems: list[Problem] = []
    per_line: list[list[Expansion]] = []
    from engine.american.payments import known_options

    for name in card.options:
        if name not in known_options():
            problems.append(Problem(card.option_lines.get(name, 1), 1, "warning", "P11",
                                    f"option {name!r} is not known and has no effect (known: "
                                    f"{', '.join(sorted(known_options()))})"))
    owner: dict[tuple[object, ...], str] = {}
    for index, line in enumerate(card.lines):
        found = line_problems(line)
        problems += found
        if any(p.severity == "error" for p in found):
            per_line.append([])
            continue
        if combinations(line) > MAX_COMBINATIONS:
            problems.append(Problem(line.lineno, 1, "error", "L10",
                                    f"the line ranges over {combinations(line)} combinations "
                                    f"(at most {MAX_COMBINATIONS}): split it into lines"))
            per_line.append([])
            continue
        expansions = expand_line(line, index)
        if not expansions:
            problems.append(Problem(
                line.lineno, len(line.text) - len(line.text.lstrip()) + 1, "error", "L5",
                "no value of the line's variables gives a hand that can exist (check number "
                "domains, offsets that leave 1-9, suits that must differ, and the four-natural "
                "supply)"))
        reported: set[str] = set()
        for exp in expansions:
            key = (exp.nat, exp.jok, exp.groups)
            other = owner.setdefault(key, line.id)
            if other != line.id and other not in reported:
                reported.add(other)
                problems.append(Problem(line.lineno, 1, "warning", "L7",
                                        f"{line.id} and {other} share a hand: both are reported "
                                        "as matches; the winner names the value (M-3)"))
        per_line.append(expansions)
    return per_line, problems
