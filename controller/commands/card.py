"""`mjtable card check` and `mjtable card lint` (docs/cards.md).

Scripts call `card check` once per hand, so this path imports only the card compiler and the
matcher (no numpy, no pydantic) and reads compiled cards from the on-disk cache.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json
from controller.json_input import JsonInputError, batch_lines, binary_stdin, load_json

HELP = "American cards: `card check` a hand against a card, `card lint` a card file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="verb", required=True, metavar="check|lint")
    check = sub.add_parser("check", help="which lines a 13- or 14-tile hand completes or nears")
    check.add_argument("--card", default=None,
                       help="card file (default: the shipped sample card)")
    check.add_argument("--exposed", action="append", default=[], metavar="TILES",
                       help='one exposure, e.g. --exposed "5D 5D J" (repeatable)')
    check.add_argument("--table", action="append", default=[], metavar="TILES",
                       help="another player's exposure on the table, e.g. --table \"4B 4B J\" "
                            "(repeatable): its Jokers may be exchangeable")
    check.add_argument("--batch", metavar="FILE",
                       help='one JSON object per line {"tiles": [...], "exposed": [[...]], '
                            '"table": [[...]]}; \'-\' for stdin')
    check.add_argument("--no-cache", action="store_true", help="compile the card afresh")
    check.add_argument("tiles", nargs="*", metavar="TILE", help="the concealed tiles")
    lint = sub.add_parser("lint", help="check a card file: every problem with line and column")
    lint.add_argument("file", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    if args.verb == "lint":
        return _lint(args.file)
    return _check(args)


def _load(path: str | None, use_cache: bool) -> Any:
    from config.cards import SAMPLE_CARD, CardError, load_card

    card_path = Path(path) if path else SAMPLE_CARD
    try:
        return load_card(card_path, use_cache=use_cache)
    except CardError as exc:
        raise CommandInputError(f"the card does not load: {exc.message}", exc.where) from None
    except OSError as exc:
        raise CommandInputError(f"cannot read the card file: {exc.strerror or exc}",
                                "--card") from None


def _split(tokens: list[str]) -> list[str]:
    return " ".join(tokens).replace(",", " ").split()


def _answer(card: Any, tiles: list[str], exposed: list[list[str]],
            table: list[list[str]] | None = None) -> dict[str, object]:
    from engine.cards import HandError, TileError, check_hand

    try:
        return check_hand(card, tiles, exposed, table or [])
    except TileError as exc:
        raise CommandInputError(f"unknown tile {exc.token!r}", exc.where) from None
    except HandError as exc:
        raise CommandInputError(exc.message, exc.where) from None
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        # A shape the hand's reader does not check yet: answer it rather than end the batch.
        raise CommandInputError(
            f"the hand could not be read ({type(exc).__name__}: {str(exc)[:200]})", "tiles"
        ) from None


def _check(args: argparse.Namespace) -> int:
    card = _load(args.card, not args.no_cache)
    if args.batch is None:
        exposed = [_split([e]) for e in args.exposed]
        table = [_split([e]) for e in args.table]
        emit_json(_answer(card, _split(args.tiles), exposed, table))
        return 0
    if args.tiles or args.exposed or args.table:
        raise CommandInputError("give tiles either on the command line or with --batch",
                                "arguments")
    try:
        stream = binary_stdin() if args.batch == "-" else open(args.batch, "rb")  # noqa: SIM115
    except OSError as exc:
        raise CommandInputError(f"cannot read the batch: {exc.strerror or exc}",
                                "--batch") from None
    with stream:
        for number, raw in batch_lines(stream):
            try:
                if isinstance(raw, JsonInputError):
                    raise CommandInputError(raw.message, raw.where)
                emit_json(_batch_line(card, raw))
            except CommandInputError as exc:
                emit_json({"error": exc.error, "where": f"line {number}: {exc.where}"})
            sys.stdout.flush()
    return 0


def _batch_line(card: Any, raw: str) -> dict[str, object]:
    try:
        obj = load_json(raw, one_line=True)
    except JsonInputError as exc:
        raise CommandInputError(exc.message, exc.where) from None
    if not isinstance(obj, dict):
        raise CommandInputError("each line is a JSON object", "line")
    tiles = obj.get("tiles")
    exposed = obj.get("exposed", [])
    if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
        raise CommandInputError("'tiles' must be a list of tile tokens", "tiles")
    table = obj.get("table", [])
    for key, value in (("exposed", exposed), ("table", table)):
        if not isinstance(value, list) or not all(
                isinstance(e, list) and all(isinstance(t, str) for t in e) for e in value):
            raise CommandInputError(f"'{key}' must be a list of lists of tile tokens", key)
    return _answer(card, tiles, exposed, table)


def _lint(file: str) -> int:
    from engine.cards import compile_card

    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandInputError(f"cannot read the card file: {exc}", file) from None
    compiled, problems = compile_card(text, file)
    errors = [p for p in problems if p.severity == "error"]
    report: dict[str, object] = {
        "file": file,
        "ok": not errors,
        "errors": len(errors),
        "warnings": len(problems) - len(errors),
        "problems": [p.as_json() for p in problems],
    }
    if compiled is not None:
        report.update({"card": compiled.name, "year": compiled.year,
                       "version": compiled.version, "lines": len(compiled.lines),
                       "expansions": len(compiled.expansions)})
    for p in problems:
        sys.stderr.write(f"{file}:{p}\n")
    if errors:
        first = errors[0]
        report = {"error": f"{len(errors)} error(s) in the card; first: {first.code}: "
                           f"{first.message}",
                  "where": f"{file}:{first.line}:{first.column}", **report}
        emit_json(report)
        return 2
    emit_json(report)
    return 0
