"""`mjtable score`: score and settle one finished hand, JSON in, JSON out (contracts.md).

Club software calls this once per hand, so it imports only the pure scoring package (no numpy,
no pydantic). `--batch` scores one object per line and keeps going past a bad line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.cli import CommandInputError, emit_json
from controller.json_input import JsonInputError, batch_lines, binary_stdin, load_json

HELP = "score and settle one finished hand (JSON in, JSON out)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", nargs="?", default="-", help="the hand as one JSON object (default: stdin)"
    )
    parser.add_argument(
        "--batch",
        metavar="FILE",
        help="one JSON object per line, one result per line; '-' for stdin",
    )


def _score(doc: Any) -> dict[str, Any]:
    from engine.errors import EngineError
    from engine.scoring import score_hand

    try:
        return score_hand(doc)
    except EngineError as exc:
        where = getattr(exc, "where", "")
        message = getattr(exc, "message", str(exc))
        raise CommandInputError(message, where) from None
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        # A shape the hand's reader does not check yet: answer it rather than end the batch.
        raise CommandInputError(
            f"the hand could not be read ({type(exc).__name__}: {str(exc)[:200]})", "hand"
        ) from None


def _parse(text: str, one_line: bool = False) -> Any:
    try:
        return load_json(text, one_line)
    except JsonInputError as exc:
        raise CommandInputError(exc.message, exc.where) from None


def _open(path: str, where: str) -> Any:
    try:
        return binary_stdin() if path == "-" else open(path, "rb")
    except OSError as exc:
        raise CommandInputError(f"cannot read {path}: {exc.strerror or exc}", where) from None


def run(args: argparse.Namespace) -> int:
    if args.batch is None:
        with _open(args.file, "file") as stream:
            try:
                data = stream.read()
                text = data if isinstance(data, str) else data.decode("utf-8")
            except UnicodeDecodeError:
                raise CommandInputError("the input is not UTF-8 text", "file") from None
        emit_json(_score(_parse(text)))
        return 0
    with _open(args.batch, "--batch") as stream:
        for number, line in batch_lines(stream):
            try:
                if isinstance(line, JsonInputError):
                    raise CommandInputError(line.message, line.where)
                emit_json(_score(_parse(line, one_line=True)))
            except CommandInputError as exc:
                place = f"line {number}" + (f": {exc.where}" if exc.where else "")
                emit_json({"error": exc.error, "where": place})
            sys.stdout.flush()
    return 0
