"""Reading JSON that a person or a script typed: bounded, so that no input ends in a traceback.

Python's ``json`` recurses once per nesting level (100,000 brackets: ``RecursionError``) and
refuses to turn more than 4,300 digits into an int (``ValueError``). Neither says where the
problem is. :func:`load_json` checks both first, with limits far above anything a real hand,
card check or command needs, and raises :class:`JsonInputError` naming the place.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

MAX_DEPTH = 32  # a hand is 4 levels deep (hands.S.melds[0].tiles); commands 3
MAX_DIGITS = 32  # no count, score or timestamp needs more (2**64 has 20 digits)

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_DIGITS = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


class JsonInputError(ValueError):
    """Input that is not acceptable JSON; ``where`` is ``line L column C`` or ``column C``."""

    def __init__(self, message: str, where: str) -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}")


def _place(text: str, offset: int, one_line: bool) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"column {column}" if one_line else f"line {line} column {column}"


def _blank_strings(text: str) -> str:
    """The text with every string's contents replaced by spaces (offsets kept)."""
    return _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)


def _check_shape(text: str, one_line: bool) -> None:
    bare = _blank_strings(text)
    depth = 0
    for match in _BRACKET.finditer(bare):
        if match.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JsonInputError(
                    f"nested deeper than {MAX_DEPTH} levels", _place(text, match.start(), one_line)
                )
        else:
            depth -= 1
    long_number = _DIGITS.search(bare)
    if long_number is not None:
        raise JsonInputError(
            f"a number longer than {MAX_DIGITS} digits", _place(text, long_number.start(), one_line)
        )


def _finite(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise JsonInputError(f"number {token[:40]} is out of range", "number")
    return value


def _no_constant(token: str) -> Any:
    raise JsonInputError(f"{token} is not a JSON number", "number")


def load_json(text: str, one_line: bool = False) -> Any:
    """Parse one JSON document. Raises :class:`JsonInputError`, never anything else."""
    _check_shape(text, one_line)
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno} column {exc.colno}"
        raise JsonInputError(f"not JSON: {exc.msg}", where) from None
    except RecursionError:  # cannot happen below MAX_DEPTH; kept as a last guard
        raise JsonInputError(f"nested deeper than {MAX_DEPTH} levels", "document") from None


def binary_stdin() -> IO[bytes] | IO[str]:
    """Standard input as bytes where it has them (a test may give only text)."""
    return getattr(sys.stdin, "buffer", sys.stdin)


def batch_lines(stream: Iterable[bytes | str]) -> Iterator[tuple[int, str | JsonInputError]]:
    """The non-blank lines of a batch as ``(number, text)``; a line that is not UTF-8 comes as
    ``(number, JsonInputError)`` so that the batch answers it and goes on."""
    for number, raw in enumerate(stream, start=1):
        try:
            text = (raw if isinstance(raw, str) else raw.decode("utf-8")).strip()
        except UnicodeDecodeError as exc:
            yield number, JsonInputError("the line is not UTF-8 text", f"byte {exc.start + 1}")
            continue
        if text:
            yield number, text
