"""Compiling a card: parse, lint and expand its text into a :class:`CompiledCard` (pure: no
I/O; reading card files and the on-disk cache of compiled cards live in :mod:`config.cards`).

Requirement vectors are *thermometer codes*: tile ``i`` owns bits ``16*i .. 16*i+15`` and a count
``n`` sets the low ``n`` of them. Then a per-tile minimum is a bitwise AND, "a <= b for every
tile" is ``a & ~b == 0`` and a total is ``int.bit_count()``: a whole-card check is a few integer
operations per expansion, with no numpy on the command-line path.
"""

from __future__ import annotations

from pathlib import Path

from engine.american.compiled import (
    CardError,
    CompiledCard,
    Expansion,
    LineInfo,
    Problem,
    therm,
    tile_slot,
)

__all__ = ["CardError", "CompiledCard", "Expansion", "LineInfo", "Problem", "compile_card",
           "compiler_sources", "therm", "tile_slot"]

_PACKAGE_DIR = Path(__file__).resolve().parent
_SOURCES = ("cln.py", "expand.py", "card.py", "compiled.py")


def compiler_sources() -> list[Path]:
    """The files whose code decides a compilation (a cache must be keyed by them too)."""
    return [_PACKAGE_DIR / name for name in _SOURCES]


def compile_card(text: str, source: str = "<card>") -> tuple[CompiledCard | None, list[Problem]]:
    """Parse, lint and expand. Returns ``(None, problems)`` if any problem is an error."""
    from engine.american.cln import parse_card
    from engine.american.expand import expand_card

    card, problems = parse_card(text)
    per_line, meaning = expand_card(card)
    problems = sorted(problems + meaning, key=lambda p: (p.line, p.column))
    if any(p.severity == "error" for p in problems):
        return None, problems
    expansions = tuple(e for group in per_line for e in group)
    compiled = CompiledCard(
        name=card.name, year=card.year, version=card.version, options=dict(card.options),
        lines=tuple(LineInfo(line.id, line.section, line.points, line.concealed, line.note)
                    for line in card.lines),
        expansions=expansions,
        line_of=tuple(e.line for e in expansions),
        nat_code=tuple(therm(e.nat) for e in expansions),
        need_code=tuple(therm(tuple(e.need().items())) for e in expansions),
        jok_total=tuple(sum(n for _, n in e.jok) for e in expansions),
        warnings=tuple(problems),
    )
    return compiled, problems
