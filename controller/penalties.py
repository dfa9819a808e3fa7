"""A false Mah-jongg found by scoring is a question to the referee, not a payment.

The scorer answers a hand the rules do not accept as a Mah-jongg with its penalty and why
(``mahjong``: ``reason``, ``rule``, ``closest``, ``unarranged``, ``lacks``,
``would_complete``, and ``confirm``). One misread tile or a mistyped one would otherwise cost
a player the limit (Code 1924, Law 86), so the table books nothing yet: its ``HandScored``
carries ``held`` (the question's id) and is followed, in the same transaction, by a
``PenaltyHeld`` event, the question. The referee answers it as any of the table's questions,
``cmd/confirm`` or ``cmd/dismiss`` with its ``pending`` id; the answer is a
``PenaltySettled`` event (``how``: confirmed, with the amounts then booked, or dismissed,
with nothing booked). Both are in the log, so a restart keeps an open question open.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.referee import CommandError

PENALTY_HELD = "PenaltyHeld"
PENALTY_SETTLED = "PenaltySettled"
KIND = "false_mahjong"  # the question's kind beside the observations' kinds
EXPLAINED = ("reason", "rule", "closest", "unarranged", "lacks", "would_complete", "confirm")


def false_call(score: Any) -> Mapping[str, Any] | None:
    """The scorer's ``mahjong`` of a false Mah-jongg the referee must confirm, else None."""
    if not isinstance(score, Mapping):
        return None
    mahjong = score.get("mahjong")
    if isinstance(mahjong, Mapping) and mahjong.get("confirm") and not mahjong.get("valid"):
        return mahjong
    return None


def hold(entry: dict[str, Any], pid: int) -> list[dict[str, Any]]:
    """The ``HandScored`` entry of a finished hand, and its question if the scorer found a
    false Mah-jongg; the entry then carries ``held`` and books nothing until answered."""
    mahjong = false_call(entry.get("score"))
    if mahjong is None or not isinstance(entry.get("net_by_player"), dict):
        return [entry]
    seat = str(mahjong.get("dead") or entry.get("winner") or "")
    question: dict[str, Any] = {
        "type": PENALTY_HELD, "id": pid, "kind": KIND, "seat": seat,
        "player": (entry.get("players") or {}).get(seat, seat),
        "penalty": dict(entry["net_by_player"]),
    }
    question.update({k: mahjong[k] for k in EXPLAINED if k in mahjong})
    return [{**entry, "held": pid}, question]


def is_question(pending: Mapping[str, Any]) -> bool:
    return pending.get("kind") == KIND


def question_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    """A ``PenaltyHeld`` record as the table keeps it among its pending questions."""
    return {k: v for k, v in record.items() if k not in ("type", "id", "seq", "ts")}


def answer(pid: int, question: Mapping[str, Any], how: str) -> dict[str, Any]:
    """The ``PenaltySettled`` event of ``cmd/confirm`` or ``cmd/dismiss``; a ``cmd/correct``
    is no answer to it."""
    if how == "correct":
        raise CommandError("pending", f"question {pid} is a false Mah-jongg's penalty: confirm "
                           "or dismiss it (a move is corrected with `at`)")
    confirmed = how == "confirm"
    return {
        "type": PENALTY_SETTLED, "id": pid, "how": "confirmed" if confirmed else "dismissed",
        "scored_hand": question.get("hand"), "seat": question.get("seat"),
        "net_by_player": dict(question.get("penalty") or {}) if confirmed else {},
        "rule": question.get("rule", ""),
    }
