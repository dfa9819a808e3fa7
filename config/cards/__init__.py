"""American cards shipped with the table, and loading card files (docs/cards.md).

Compiling a card (parse, lint, expand) costs tens of milliseconds; a table checks hands many
times a second, and scripts run ``mjtable card check`` once per hand. So the compiled card is
cached on disk, keyed by the SHA-256 of the card text and of the compiler's own source (a code
change can never serve a stale compilation). The cache lives under
``$XDG_CACHE_HOME/mahjong-table/`` (default ``~/.cache/mahjong-table/``) as plain data
(``config/cards/cache.py``: read only if the file is the user's own, and checked as it is
read); if it cannot be written the card is simply compiled each time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from config.cards import cache
from engine.american.compiled import CardError, CompiledCard, Problem

__all__ = ["SAMPLE_CARD", "CardError", "CompiledCard", "card_at", "card_for", "default_card",
           "load_card", "load_card_text"]

SAMPLE_CARD = Path(__file__).resolve().parent / "sample-2026.card"


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mahjong-table"


def _cache_key(data: bytes) -> str:
    from engine.american.card import compiler_sources

    digest = hashlib.sha256(data)
    for source in compiler_sources():
        digest.update(source.read_bytes())
    return digest.hexdigest()


def load_card_text(data: bytes, source: str = "<card>", use_cache: bool = True) -> CompiledCard:
    """Compile a card from its bytes, through the on-disk cache. Raises :class:`CardError`."""
    key = _cache_key(data)
    path = _cache_dir() / f"card-{key}.data"
    if use_cache:
        cached = cache.read(path)
        if cached is not None:
            return cached
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardError(source, [Problem(1, 1, "error", "P0",
                                         f"the card is not UTF-8 text (byte {exc.start})")])\
            from None
    from engine.american.card import compile_card

    compiled, problems = compile_card(text, source)
    if compiled is None:
        raise CardError(source, problems)
    if use_cache:
        cache.write(path, compiled)
    return compiled


def load_card(path: str | os.PathLike[str], use_cache: bool = True) -> CompiledCard:
    """Load a card file. Raises :class:`CardError` naming line and column, or ``OSError`` if
    the file cannot be read."""
    data = Path(path).read_bytes()
    return load_card_text(data, str(path), use_cache)


def default_card() -> CompiledCard:
    """The card bundled with the table."""
    return load_card(SAMPLE_CARD)


def card_at(path: str) -> CompiledCard:
    """The card a table's ``table.card`` (or a command's ``--card``) names: a card file's
    path, or empty for the bundled card."""
    return load_card(path or SAMPLE_CARD)


def card_for(ruleset: str, path: str = "") -> CompiledCard | None:
    """The card ``ruleset`` is played from (the registry's ``needs_card``): ``path`` (a table's
    ``table.card``, a command's ``--card``), or the bundled card when it is empty; ``None`` for
    a ruleset played without one. Raises :class:`CardError` naming line and column, or
    ``OSError`` if the file cannot be read.

    >>> card_for("pungchow") is None, card_for("american/3").name == default_card().name
    (True, True)
    """
    from engine.rulesets import entry

    return card_at(path) if entry(ruleset).needs_card else None
