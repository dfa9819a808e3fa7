"""The referee's commands: each ``cmd/<verb>`` message parsed into one typed command, or refused
with a :class:`CommandError` naming the field.

Parsing is strict because a command comes from outside the table (a club's software, a
person at a terminal): a boolean is not a number (JSON ``true`` is not event 1), a number
must fit the table (no event 10^30), a field has the type its verb documents, and a payload
nested too deeply to read is refused rather than raising ``RecursionError`` in the loop. The
table then acts on a command whose every field is already of its type (``match`` on the
class), and answers each exactly once (docs/service.md, "Referee commands").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.inputs import CLAIM_BUTTONS, InputError, Observation
from engine.seats import SEAT_NAMES

# The largest whole number a command may carry: a seq or a held observation's id. SQLite's
# integers are 64-bit, and nothing the table numbers comes near this.
MAX_INT = 2**53


class CommandError(ValueError):
    """A malformed or impossible referee command; ``where`` names the field."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        super().__init__(message)


@dataclass(frozen=True)
class Status:
    """``cmd/status``: the table's status, as ``mjtable status`` shows it."""


@dataclass(frozen=True)
class Observe:
    """``cmd/observe``: an observation in the referee's words, applied or refused (not held)."""

    observation: Observation


@dataclass(frozen=True)
class Claim:
    """``cmd/claim``: a call entered by the referee (a seat's button is broken)."""

    seat: str
    kind: str


@dataclass(frozen=True)
class Settle:
    """``cmd/confirm``, ``cmd/correct`` or ``cmd/dismiss`` of a held observation; a correction
    gives the fields that replace the held ones."""

    how: str
    pending: int
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Amend:
    """``cmd/correct`` with ``at``: the move behind event ``at`` replaced by ``command`` (an
    engine command's JSON) or struck out (None), for ``reason``."""

    at: int
    command: Mapping[str, Any] | None
    reason: str
    was: Mapping[str, Any] | None = None  # the move as the referee picked it (stale if not)


@dataclass(frozen=True)
class Moves:
    """``cmd/moves``: the hand's moves, each with the ``at`` a correction of it takes."""


@dataclass(frozen=True)
class Roll:
    """``cmd/roll``: the LED dice thrown for ``seat``."""

    seat: str


@dataclass(frozen=True)
class Challenge:
    """``cmd/challenge``: ``seat`` calls ``target``'s hand dead (American DH-1)."""

    seat: str
    target: str


@dataclass(frozen=True)
class Game:
    """``cmd/game``: a game started, its players seated, or ended; the table's game book
    checks the body (controller/games.py), as it knows the games going on."""

    body: Mapping[str, Any]


RefereeCommand = Status | Observe | Claim | Settle | Amend | Moves | Roll | Challenge | Game


def parse_command(verb: str, payload: bytes, verbs: tuple[str, ...]) -> RefereeCommand:
    """The typed command of one ``cmd/<verb>`` message; ``verbs``: those the table knows."""
    if verb not in verbs:
        raise CommandError("verb", f"unknown command {verb!r}; known: {', '.join(verbs)}")
    body = _object(payload)
    match verb:
        case "status":
            return Status()
        case "moves":
            return Moves()
        case "observe":
            return Observe(_observation(body))
        case "claim":
            kind = _text(body, "kind")
            if kind not in CLAIM_BUTTONS:
                raise CommandError("kind", f"{kind!r} is not one of {' '.join(CLAIM_BUTTONS)}")
            return Claim(_seat(body, "seat"), kind)
        case "roll":
            return Roll(_seat(body, "seat", default="E"))
        case "challenge":
            return Challenge(_seat(body, "seat"), _seat(body, "target"))
        case "game":
            return Game(body)
        case "correct" if "at" in body:
            reason = body.get("reason")
            if not isinstance(reason, str) or not reason.strip():
                raise CommandError("reason", "a correction names its reason")
            command = body.get("command")
            if command is not None and not isinstance(command, dict):
                raise CommandError("command", "an engine command as a JSON object, or null")
            was = body.get("was")
            if was is not None and not isinstance(was, dict):
                raise CommandError("was", "the move as picked, a JSON object (cmd/moves)")
            return Amend(_whole(body, "at"), command, reason, was)
        case "confirm" | "correct" | "dismiss":
            fields = {k: v for k, v in body.items() if k != "pending"}
            return Settle(verb, _whole(body, "pending"), fields if verb == "correct" else {})
    raise CommandError("verb", f"{verb!r} takes no payload this table reads")


def _object(payload: bytes) -> dict[str, Any]:
    try:
        body = json.loads(payload.decode("utf-8")) if payload.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CommandError("payload", f"not JSON: {exc}") from None
    except ValueError as exc:  # a number of more digits than Python reads (4,300)
        raise CommandError("payload", f"not readable: {exc}") from None
    except RecursionError:
        raise CommandError("payload", "nested too deeply to read") from None
    if not isinstance(body, dict):
        raise CommandError("payload", "expected a JSON object")
    return body


def _whole(body: Mapping[str, Any], key: str) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CommandError(key, f"expected a whole number, not {_shown(value)}")
    if not 0 <= value <= MAX_INT:
        raise CommandError(key, f"expected a whole number from 0 to {MAX_INT}, "
                                f"not {_shown(value)}")
    return value


def _text(body: Mapping[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise CommandError(key, f"expected a string, not {_shown(value)}")
    return value


def _seat(body: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if value not in SEAT_NAMES:
        raise CommandError(key, f"{_shown(value)} is not one of {' '.join(SEAT_NAMES)}")
    return str(value)


def _observation(body: Mapping[str, Any]) -> Observation:
    try:
        return Observation.from_json(body, "payload")
    except InputError as exc:
        raise CommandError("payload", str(exc)) from None


def _shown(value: object) -> str:
    """A value as the answer quotes it: short, whatever its size."""
    try:
        text = json.dumps(value) if not isinstance(value, str) else repr(value)
    except ValueError:  # an integer too long to print
        text = "a number too long to print"
    return text if len(text) <= 40 else f"{text[:37]}..."
