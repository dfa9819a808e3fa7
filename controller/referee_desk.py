"""The referee's desk: the part of the table that answers ``cmd/<verb>`` messages, and puts
the table's questions (an observation held) and refusals to the referee and the players.

Each message is parsed into a typed command (controller/referee.py) and answered exactly once
on ``cmd/<verb>/result``, never raising into the service: the table's status, the hand's
moves, an observation or a call entered by the referee, a held observation settled, a game
started or ended, and the commands only the family knows (its part's ``table_command``: the
LED dice, a challenge, an amendment of a move).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller import penalties
from controller.amendments import check_fresh
from controller.family_part import Outcome, TableHost
from controller.games import GameCommandError
from controller.inputs import InputError, Observation, Press
from controller.referee import (
    Amend,
    Claim,
    CommandError,
    Game,
    Moves,
    Observe,
    RefereeCommand,
    Settle,
    Status,
    parse_command,
)
from engine.errors import MalformedInput, RuleViolation

HELD = "ObservationHeld"
SETTLED = "ObservationSettled"


class RefereeDesk:
    def __init__(self, table: TableHost) -> None:
        self.table = table

    def command(self, verb: str, payload: bytes, now_us: int) -> dict[str, Any]:
        """A ``cmd/<verb>`` message. Always answers on ``cmd/<verb>/result``; never raises."""
        try:
            result = self._command(verb, payload, now_us)
        except CommandError as exc:
            result = {"ok": False, "error": _bounded(str(exc)), "where": exc.where}
        except (RuleViolation, MalformedInput, InputError) as exc:
            result = {"ok": False, "error": _bounded(str(exc)), "where": "payload"}
            if isinstance(exc, RuleViolation):
                result["rule"] = exc.rule
        self.table.message(self.table.topics.cmd_result(verb), result)
        return result

    def _command(self, verb: str, payload: bytes, now_us: int) -> dict[str, Any]:
        table = self.table
        match parse_command(verb, payload, (*table.part.verbs, "game", "moves")):
            case Status():
                return {"ok": True, **table.status(), **table.parts_status()}
            case Moves():  # the move list a correction picks from (controller/amendments.py)
                return {"ok": True, "seq": table.seq, "hand": table.hand_no,
                        "moves": table.moves()}
            case Amend(at=at, was=was) as amend if was is not None:
                check_fresh(table.moves(), at, was)
                return table.part.table_command(amend, now_us)
            case Observe(observation=obs):
                return self.outcome(table.observe(obs, now_us, ask=False))
            case Claim(seat=seat, kind=kind):  # a call entered by the referee
                return self.outcome(table.press(Press(seat, kind, now_us, "referee"), now_us))
            case Game(body=body):  # games started, players seated, ended (docs/mqtt.md)
                return self._game(body)
            case Settle() as settle:
                return self._settle(settle, now_us)
            case command:
                return table.part.table_command(command, now_us)

    # -- questions put to the referee, and refusals ---------------------------------------

    def refuse_press(self, press: Press, rule: str, message: str) -> Outcome:
        """A call button refused: the seat's "no" lit, the refusal published with its rule."""
        table = self.table
        table.refused += 1
        table.presses_refused += 1
        table.cues.refused(press.seat)
        table.message(table.topics.adjudications, {
            "seq": table.seq, "hand": table.hand_no, "type": "refused", "seat": press.seat,
            "kind": press.button, "time_us": press.time_us, "rule": rule, "reason": message})
        return Outcome(False, error=message, rule=rule)

    def refuse(self, obs: Observation, reason: str, rule: str = "") -> Outcome:
        """The referee's own word refused: answered, not held again."""
        self.table.refused += 1
        return Outcome(False, error=reason, rule=rule)

    def ask(self, obs: Observation, reason: str, rule: str = "") -> Outcome:
        """An observation the table cannot apply: held, and the table asked about it."""
        table = self.table
        table.refused += 1
        pid = table.next_pending
        body: dict[str, Any] = {"type": HELD, "id": pid, "observation": obs.to_json(),
                                "reason": reason}
        if rule:
            body["rule"] = rule
        records = table.record(table_events=[body])
        table.cues.ask(obs.seat)
        table.message(table.topics.prompts, {"seat": obs.seat, **body})
        return Outcome(False, records, error=reason, rule=rule, asked=pid)

    def _game(self, body: Mapping[str, Any]) -> dict[str, Any]:
        table = self.table
        try:
            event = table.games.command(body, len(table.players), table.hand_moved())
        except GameCommandError as exc:
            raise CommandError(exc.where, str(exc)) from None
        table.record(table_events=[event])
        return {"ok": True, "seq": table.seq, "game": event["game"], "events": [event["type"]]}

    def _settle(self, settle: Settle, now_us: int) -> dict[str, Any]:
        """``cmd/confirm``, ``cmd/correct`` or ``cmd/dismiss`` of a held observation."""
        table = self.table
        pid = settle.pending
        if pid not in table.pending:
            known = sorted(table.pending) or "none"
            raise CommandError("pending", f"no held observation {pid!r} (held: {known})")
        if penalties.is_question(table.pending[pid]):  # confirm books it, dismiss drops it
            body = penalties.answer(pid, table.pending[pid], settle.how)
            table.record(table_events=[body])
            return {"ok": True, "seq": table.seq, "pending": pid, "how": body["how"],
                    "events": [body["type"]]}
        held = table.part.held(pid)
        if settle.how == "dismiss":
            table.record(table_events=[{"type": SETTLED, "id": pid, "how": "dismissed"}])
            return {"ok": True, "pending": pid, "how": "dismissed"}
        if settle.how == "correct" or held is None:
            held = Observation.from_json({**table.pending[pid], **settle.fields}, "payload")
        sure = table.part.certain(held)
        outcome = table.observe(sure, now_us, ask=False)  # still held if this is refused
        if outcome.accepted:
            how = "confirmed" if settle.how == "confirm" else "corrected"
            table.record(table_events=[{"type": SETTLED, "id": pid, "how": how,
                                        "observation": sure.to_json()}])
        return {**self.outcome(outcome), "pending": pid}

    def outcome(self, outcome: Outcome) -> dict[str, Any]:
        return answer_of(outcome, self.table.seq)

def answer_of(outcome: Outcome, seq: int) -> dict[str, Any]:
    """A command's answer for what became of the input it entered."""
    out: dict[str, Any] = {"ok": outcome.accepted, "seq": seq}
    if outcome.records:
        out["events"] = [r["type"] for r in outcome.records]
    if outcome.error:
        out["error"] = outcome.error
    if outcome.rule:
        out["rule"] = outcome.rule
    if outcome.asked is not None:
        out["asked"] = outcome.asked
    return out


def unknown(command: RefereeCommand) -> CommandError:
    """A command the table's family does not take (its verbs admit none such)."""
    return CommandError("verb", f"{type(command).__name__.lower()} is not for this table")


def _bounded(error: str, limit: int = 300) -> str:
    """An error names the field and what was wrong, never the whole payload back: an echoed
    256 kB value would be an answer the broker refuses (docs/security.md)."""
    return error if len(error) <= limit else f"{error[:limit]}... ({len(error)} characters)"
