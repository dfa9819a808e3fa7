"""The on-disk cache of compiled cards: JSON data, checked field by field as it is read.

A cache is data, never code: a file that is not exactly a compiled card (a broken write,
another version, a file planted by someone else) is ignored and the card compiled afresh. The
file must also belong to the user reading it and be writable by nobody else, so another account
cannot choose what a card says. The matcher's bit codes are recomputed from the expansions.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from engine.american.compiled import (
    FIELD,
    CompiledCard,
    Expansion,
    LineInfo,
    Problem,
    therm,
)
from engine.tiles import FLOWER

FORMAT = 1
_MAX_BYTES = 16 * 1024 * 1024  # the sample card's cache is about 200 kB


class _Malformed(ValueError):
    pass


def encode(card: CompiledCard) -> bytes:
    doc = {
        "format": FORMAT,
        "name": card.name, "year": card.year, "version": card.version,
        "options": card.options,
        "lines": [list(line) for line in card.lines],
        "expansions": [[e.line, e.alternative, e.nat, e.jok, e.groups] for e in card.expansions],
        "warnings": [list(p) for p in card.warnings],
    }
    return json.dumps(doc, separators=(",", ":")).encode()


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise _Malformed(what)


def _tiles_ok(values: list[Any]) -> bool:
    # A card names the 34 kinds and the American Flower (packed at slot 34, engine.tiles);
    # a count fills at most one 16-bit field of a code. `type() is int` also refuses a bool.
    return all(
        type(t) is int and (0 <= t < 34 or t == FLOWER) and type(n) is int and 0 <= n <= FIELD
        for t, n, *_ in values
    )


def _expansion(value: Any, lines: int) -> Expansion:
    line, alternative, nat, jok, groups = value
    _check(type(line) is int and 0 <= line < lines and type(alternative) is int,
           "expansion of an unknown line")
    _check(_tiles_ok(nat) and _tiles_ok(jok) and _tiles_ok(groups), "tile or count")
    _check(all(len(p) == 2 for p in nat) and all(len(p) == 2 for p in jok), "pair")
    _check(all(len(g) == 3 and type(g[2]) is bool for g in groups), "group")
    return Expansion(line, alternative, tuple(map(tuple, nat)), tuple(map(tuple, jok)),
                     tuple(map(tuple, groups)))


def _line(value: Any) -> LineInfo:
    id_, section, points, concealed, note = value
    _check(isinstance(id_, str) and isinstance(section, str) and type(points) is int
           and type(concealed) is bool and isinstance(note, str), "line")
    return LineInfo(id_, section, points, concealed, note)


def _problem(value: Any) -> Problem:
    line, column, severity, code, message = value
    _check(type(line) is int and type(column) is int and severity in ("error", "warning")
           and isinstance(code, str) and isinstance(message, str), "problem")
    return Problem(line, column, severity, code, message)


def decode(data: bytes) -> CompiledCard | None:
    """The compiled card in ``data``, or None if it is anything else."""
    try:
        doc = json.loads(data)
        _check(isinstance(doc, dict) and doc.get("format") == FORMAT, "format")
        options = doc["options"]
        _check(isinstance(options, dict) and all(
            isinstance(v, int) for v in options.values()), "options")
        lines = tuple(_line(v) for v in doc["lines"])
        expansions = tuple(_expansion(v, len(lines)) for v in doc["expansions"])
        name, year, version = doc["name"], doc["year"], doc["version"]
        _check(isinstance(name, str) and type(year) is int and type(version) is int, "header")
        return CompiledCard(
            name=name, year=year, version=version, options=options, lines=lines,
            expansions=expansions,
            line_of=tuple(e.line for e in expansions),
            nat_code=tuple(therm(e.nat) for e in expansions),
            need_code=tuple(therm(tuple(e.need().items())) for e in expansions),
            jok_total=tuple(sum(n for _, n in e.jok) for e in expansions),
            warnings=tuple(_problem(v) for v in doc["warnings"]),
        )
    except (ValueError, KeyError, TypeError, IndexError, RecursionError):
        return None


def read(path: Path) -> CompiledCard | None:
    """A cached card, if the file is ours alone and holds exactly one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid()
                or info.st_mode & 0o022 or info.st_size > _MAX_BYTES):
            return None
        return decode(fh.read())


def write(path: Path, card: CompiledCard) -> None:
    """Write atomically (a reader never sees half a file); a read-only home is not an error."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".card-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(encode(card))
        os.replace(tmp, path)
    except OSError:
        pass
