"""`mjtable score`: score and settle one finished hand, JSON in, JSON out (docs/score.md).

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

RULESETS_HELP = """rulesets ("ruleset" in the JSON; docs/rules.md gives every value and its source):
  code1924/mixed, code1924/one-double, code1924/cleared
                   the Code of 1924 (its Laws; grounded and concealed sets)
  pungchow         Harr's Pung-Chow, Part I, without a limit
  pungchow/limit   Harr's Pung-Chow, Part II, "Playing with a Limit"
  classical        Chinese Classical as Kajongg's "Classical Chinese standard" rule set
  classical/dmjl   the German league's rules: the Deutsche Mah Jongg Liga (DMJL), as
                   Kajongg's "Classical Chinese DMJL"; limit 500, any number of chows,
                   Little/Big Three Dragons and Four Joys doubles for every hand,
                   Squirming Snake, false Mah Jongg 300 to each
  classical/bmja   the British association's rules: the British Mah-Jong Association
                   (BMJA), as Kajongg's "Classical Chinese BMJA"; limit 1000, at most one
                   chow (limit hands too), Purity, Knitting, Wriggling Snake, Gates of
                   Heaven, "Calling for ..." hands of the non-winners, false Mah Jongg
                   half the limit to each
  american         the National Mah Jongg League's card (needs "card")"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = RULESETS_HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "file", nargs="?", default="-", help="the hand as one JSON object (default: stdin)"
    )
    parser.add_argument(
        "--batch",
        metavar="FILE",
        help="one JSON object per line, one result per line; '-' for stdin",
    )
    parser.add_argument(
        "--card",
        metavar="FILE",
        help="the card American hands are scored against when the JSON names none "
        "(default: the shipped sample card)",
    )


_CARDS: dict[str, Any] = {}  # card path -> compiled card, so a batch reads each card once


def _card(path: object, default: str | None) -> Any:
    """The card an American hand is scored against: ``"card"`` (a card file's path), else
    ``--card``, else the shipped sample card (docs/cards.md)."""
    from config.cards import SAMPLE_CARD, CardError, load_card

    if path is not None and not isinstance(path, str):
        raise CommandInputError("the path of a card file", "card")
    chosen = path or default or str(SAMPLE_CARD)
    if chosen not in _CARDS:
        try:
            _CARDS[chosen] = load_card(chosen)
        except CardError as exc:
            raise CommandInputError(f"the card does not load: {exc.message}", exc.where) from None
        except OSError as exc:
            raise CommandInputError(f"cannot read the card file: {exc.strerror or exc}",
                                    "card") from None
    return _CARDS[chosen]


def _score(doc: Any, default_card: str | None = None) -> dict[str, Any]:
    from engine.errors import EngineError
    from engine.rulesets import score

    try:
        return score(doc, card=lambda path: _card(path, default_card))
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
        emit_json(_score(_parse(text), args.card))
        return 0
    with _open(args.batch, "--batch") as stream:
        for number, line in batch_lines(stream):
            try:
                if isinstance(line, JsonInputError):
                    raise CommandInputError(line.message, line.where)
                emit_json(_score(_parse(line, one_line=True), args.card))
            except CommandInputError as exc:
                place = f"line {number}" + (f": {exc.where}" if exc.where else "")
                emit_json({"error": exc.error, "where": place})
            sys.stdout.flush()
    return 0
