"""A compiled card: the parsed lines, their expansions, and bit-packed requirement vectors.

Compiling a card (parse, lint, expand) costs tens of milliseconds; a table checks hands many
times a second, and scripts run ``mjtable card check`` once per hand. So the compiled card is
cached on disk, keyed by the SHA-256 of the card text and of this package's own source (a code
change can never serve a stale compilation). The cache lives under
``$XDG_CACHE_HOME/mahjong-table/`` (default ``~/.cache/mahjong-table/``); if it cannot be
written the card is simply compiled each time.

Requirement vectors are *thermometer codes*: tile ``i`` owns bits ``16*i .. 16*i+15`` and a count
``n`` sets the low ``n`` of them. Then a per-tile minimum is a bitwise AND, "a <= b for every
tile" is ``a & ~b == 0`` and a total is ``int.bit_count()``: a whole-card check is a few integer
operations per expansion, with no numpy on the command-line path.
"""

from __future__ import annotations

import hashlib
import os
import pickle
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

__all__ = ["SAMPLE_CARD", "CardError", "CompiledCard", "Expansion", "LineInfo", "Problem",
           "compile_card", "load_card", "load_card_text", "therm", "tile_slot"]

_PACKAGE_DIR = Path(__file__).resolve().parent
_SOURCES = ("cln.py", "expand.py", "card.py", "compiled.py")


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


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mahjong-table"


def _cache_key(data: bytes) -> str:
    digest = hashlib.sha256(data)
    for name in _SOURCES:
        digest.update((_PACKAGE_DIR / name).read_bytes())
    return digest.hexdigest()


def load_card_text(data: bytes, source: str = "<card>", use_cache: bool = True) -> CompiledCard:
    """Compile a card from its bytes, through the on-disk cache. Raises :class:`CardError`."""
    key = _cache_key(data)
    path = _cache_dir() / f"card-{key}.pickle"
    if use_cache:
        try:
            with path.open("rb") as fh:
                cached = pickle.load(fh)
            if isinstance(cached, CompiledCard):
                return cached
        except Exception:  # no cache yet, or a broken one: compile afresh
            pass
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardError(source, [Problem(1, 1, "error", "P0",
                                         f"the card is not UTF-8 text (byte {exc.start})")])\
            from None
    compiled, problems = compile_card(text, source)
    if compiled is None:
        raise CardError(source, problems)
    if use_cache:
        _write_cache(path, compiled)
    return compiled


def _write_cache(path: Path, compiled: CompiledCard) -> None:
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".card-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(compiled, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)  # atomic: a reader never sees half a file
    except OSError:
        pass  # a read-only home is not an error; the card is compiled each run


def load_card(path: str | os.PathLike[str], use_cache: bool = True) -> CompiledCard:
    """Load a card file (see docs/cards.md). Raises :class:`CardError` naming line and column,
    or ``OSError`` if the file cannot be read."""
    data = Path(path).read_bytes()
    return load_card_text(data, str(path), use_cache)


SAMPLE_CARD = Path(__file__).resolve().parents[2] / "config" / "cards" / "sample-2026.card"
