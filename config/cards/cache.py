"""The on-disk cache of compiled cards: plain data, checked as it is read.

A cache is data, never code: a file that is not exactly a compiled card (a broken write,
another version, a file planted by someone else) is ignored and the card compiled afresh. The
file must also belong to the user reading it and be writable by nobody else, so another account
cannot choose what a card says.

Format 2: one JSON line (the card's name, options, lines and warnings, the counts and the
SHA-256 of the body), then the body: every expansion's small ints as little-endian uint16
(see ``_words``), and the
matcher's two bit codes of each expansion as fixed-width little-endian integers. Reading it
costs about what unpickling did (JSON of the expansions cost 8x as much on a 60-line card):
the bulk is turned into ints by ``array`` and ``int.from_bytes`` in C, and the SHA-256 checks
it whole instead of field by field.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

from engine.american.compiled import FIELD, CompiledCard, Expansion, LineInfo, Problem
from engine.tiles import FLOWER

FORMAT = 2
_MAX_BYTES = 64 * 1024 * 1024  # a 60-line card's cache is about 1.5 MB
CODE_BYTES = FIELD * 35 // 8  # 34 kinds and the Flower, FIELD bits each


class _Malformed(ValueError):
    pass


def _words(card: CompiledCard) -> array[int]:
    """Three runs of uint16: five a expansion (line, alternative, the numbers of natural and
    Joker pairs and of groups), then every pair (tile, count), then every group (tile, size,
    takes Jokers)."""
    heads: array[int] = array("H")
    pairs: array[int] = array("H")
    groups: array[int] = array("H")
    for e in card.expansions:
        heads.extend((e.line, e.alternative, len(e.nat), len(e.jok), len(e.groups)))
        for tile, count in (*e.nat, *e.jok):
            pairs.extend((tile, count))
        for tile, size, jokers in e.groups:
            groups.extend((tile, size, int(jokers)))
    return heads + pairs + groups


def _little(words: array[int]) -> bytes:
    if sys.byteorder != "little":
        words = array("H", words)
        words.byteswap()
    return words.tobytes()


def encode(card: CompiledCard) -> bytes:
    body = _little(_words(card)) + b"".join(
        code.to_bytes(CODE_BYTES, "little") for code in (*card.nat_code, *card.need_code))
    header = {
        "format": FORMAT, "name": card.name, "year": card.year, "version": card.version,
        "options": card.options, "lines": [list(line) for line in card.lines],
        "warnings": [list(p) for p in card.warnings],
        "expansions": len(card.expansions), "words": len(body) // 2
        - len(card.expansions) * CODE_BYTES, "sha256": hashlib.sha256(body).hexdigest(),
    }
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + body


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise _Malformed(what)


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


def _expansions(words: array[int], count: int, lines: int) -> tuple[Expansion, ...]:
    """The expansions packed in ``words`` (see :func:`_words`), every tile, count and flag
    checked for range, a whole run at a time."""
    heads = words[:5 * count]
    n_pairs = sum(heads[2::5]) + sum(heads[3::5])
    pairs = words[5 * count:5 * count + 2 * n_pairs]
    triples = words[5 * count + 2 * n_pairs:]
    tiles_ok = set(range(34)) | {FLOWER}
    _check(len(heads) == 5 * count and len(pairs) == 2 * n_pairs
           and len(triples) == 3 * sum(heads[4::5]) and max(heads[0::5], default=0) < lines
           and set(pairs[0::2]) | set(triples[0::3]) <= tiles_ok
           and max(pairs[1::2], default=0) <= FIELD and max(triples[1::3], default=0) <= FIELD
           and set(triples[2::3]) <= {0, 1}, "expansions")
    pair_list = list(zip(pairs[0::2], pairs[1::2], strict=True))
    group_list = list(zip(triples[0::3], triples[1::3], map(bool, triples[2::3]), strict=True))
    out = []
    p = g = 0
    for at in range(0, 5 * count, 5):
        line, alternative, n_nat, n_jok, n_groups = heads[at:at + 5]
        nat = tuple(pair_list[p:p + n_nat])
        jok = tuple(pair_list[p + n_nat:p + n_nat + n_jok])
        p += n_nat + n_jok
        out.append(Expansion(line, alternative, nat, jok, tuple(group_list[g:g + n_groups])))
        g += n_groups
    return tuple(out)


def decode(data: bytes) -> CompiledCard | None:
    """The compiled card in ``data``, or None if it is anything else."""
    try:
        head, _, body = data.partition(b"\n")
        doc = json.loads(head)
        _check(isinstance(doc, dict) and doc.get("format") == FORMAT, "format")
        _check(hashlib.sha256(body).hexdigest() == doc["sha256"], "checksum")
        count, n_words = doc["expansions"], doc["words"]
        _check(type(count) is int and type(n_words) is int
               and len(body) == 2 * n_words + 2 * count * CODE_BYTES, "size")
        words: array[int] = array("H")
        words.frombytes(body[:2 * n_words])
        if sys.byteorder != "little":
            words.byteswap()
        options, name, year, version = doc["options"], doc["name"], doc["year"], doc["version"]
        _check(isinstance(options, dict) and all(isinstance(v, int) for v in options.values())
               and isinstance(name, str) and type(year) is int and type(version) is int,
               "header")
        lines = tuple(_line(v) for v in doc["lines"])
        expansions = _expansions(words, count, len(lines))
        codes = body[2 * n_words:]
        ints = [int.from_bytes(codes[i:i + CODE_BYTES], "little")
                for i in range(0, len(codes), CODE_BYTES)]
        return CompiledCard(
            name=name, year=year, version=version, options=options, lines=lines,
            expansions=expansions,
            line_of=tuple(e.line for e in expansions),
            nat_code=tuple(ints[:count]),
            need_code=tuple(ints[count:]),
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
