"""The engine's errors: one root, and a leaf per kind of mistake, each also a ValueError."""

from __future__ import annotations


class EngineError(ValueError):
    """Root of every error the engine raises on bad input."""


class RuleViolation(EngineError):
    """A command the rules forbid. ``rule`` names the rule that forbids it, as the book cites it;
    ``code`` is a stable key for the kind of refusal (the same in every family, e.g.
    ``"chow_left"``), for programs that react to it.

    >>> str(RuleViolation("Code 1924, Law 43", "a grounded triplet cannot be konged"))
    'Code 1924, Law 43: a grounded triplet cannot be konged'
    """

    def __init__(self, rule: str, message: str, code: str = "") -> None:
        self.rule = rule
        self.message = message
        self.code = code
        # Set by ``engine.game.apply``: the refused command and the seq it would have taken,
        # so the refusal alone reproduces itself against the hand's record.
        self.command: object | None = None
        self.seq: int | None = None
        super().__init__(f"{rule}: {message}")


class MalformedInput(EngineError):
    """Input that is not even well-formed (a bad event line, a missing field).

    ``where`` names the place: a line number, a JSON path, a seat and field.
    """

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)
