"""The compiled form of a card, in types that load fast: plain NamedTuples of ints.

`mjtable card check` reads a compiled card from the cache and matches one hand, so this
module (and what it imports) is all that path loads: no parser, no regular expressions, no
dataclasses. The parser (`cln`) and the expander (`expand`) are imported only to compile.

Requirement vectors are *thermometer codes*: tile ``i`` owns bits ``16*i .. 16*i+15`` and a count
``n`` sets the low ``n`` of them. Then a per-tile minimum is a bitwise AND, "a <= b for every
tile" is ``a & ~b == 0`` and a total is ``int.bit_count()``: a whole-card check is a few integer
operations per expansion, with no numpy on the command-line path.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from engine.errors import EngineError
from engine.tiles import FLOWER, Tile

Severity = Literal["error", "warning"]
FIELD = 16


class Problem(NamedTuple):
    """One problem of a card file, at a 1-based line and column."""

    line: int
    column: int
    severity: Severity
    code: str
    message: str

    def as_json(self) -> dict[str, object]:
        return {"line": self.line, "column": self.column, "severity": self.severity,
                "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity} {self.code}: {self.message}"


class Expansion(NamedTuple):
    """One concrete way to make a line. ``nat`` (joker-proof demand: singles, pairs, blocks,
    ``!`` sets) and ``jok`` (demand a Joker may fill) are sorted (tile, count) pairs;
    ``groups`` the set groups an exposure must equal."""

    line: int  # index into the card's lines
    alternative: int
    nat: tuple[tuple[Tile, int], ...]
    jok: tuple[tuple[Tile, int], ...]
    groups: tuple[tuple[Tile, int, bool], ...]  # set groups: tile, size, takes Jokers

    @property
    def jokerable(self) -> bool:
        """The line permits Jokers here (SC-4, SC-5: a singles-and-pairs hand never does)."""
        return any(j for _, _, j in self.groups)

    def need(self) -> dict[Tile, int]:
        total = dict(self.nat)
        for t, n in self.jok:
            total[t] = total.get(t, 0) + n
        return total

    def tiles(self) -> list[Tile]:
        """The 14 tiles of a natural-only realisation, for display and tests."""
        return sorted(t for t, n in self.need().items() for _ in range(n))


def supply(tile: Tile) -> int:
    """Naturals of a tile in the set: four of every tile, eight Flowers ("Four of every
    tile")."""
    return 8 if tile == FLOWER else 4


def tile_slot(tile: Tile) -> int:
    """Packed position of a tile kind: 0-33 as in engine.tiles, the American Flower at 34."""
    return 34 if tile == FLOWER else tile


def therm(counts: dict[Tile, int] | tuple[tuple[Tile, int], ...]) -> int:
    items = counts.items() if isinstance(counts, dict) else counts
    code = 0
    for tile, n in items:
        if n > 0:
            code |= ((1 << n) - 1) << (FIELD * tile_slot(tile))
    return code


class CardError(EngineError):
    """A card file that cannot be loaded; ``problems`` lists every problem found."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = problems
        errors = [p for p in problems if p.severity == "error"]
        first = errors[0] if errors else (problems[0] if problems else None)
        where = f"{source}:{first.line}:{first.column}" if first else source
        self.where = where
        self.message = (f"{first.code}: {first.message}" if first else "the card is empty")
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        super().__init__(f"{where}: {self.message}{more}")


class LineInfo(NamedTuple):
    id: str
    section: str
    points: int
    concealed: bool
    note: str


class CompiledCard(NamedTuple):
    name: str
    year: int
    version: int
    options: dict[str, int | bool]
    lines: tuple[LineInfo, ...]
    expansions: tuple[Expansion, ...]
    # Parallel to `expansions`:
    line_of: tuple[int, ...]
    nat_code: tuple[int, ...]
    need_code: tuple[int, ...]
    jok_total: tuple[int, ...]
    warnings: tuple[Problem, ...]

    @property
    def lowest_value(self) -> int:
        """The lowest value on the card (M-4 cascade, the Bettor's wall-game bet B-4)."""
        return min(line.points for line in self.lines)

    def line_index(self, line_id: str) -> int:
        for i, line in enumerate(self.lines):
            if line.id == line_id:
                return i
        raise KeyError(line_id)
