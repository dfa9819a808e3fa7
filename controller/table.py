"""The table: a real game mirrored through the engine and adjudicated live.

Inputs (observations and button presses, with the table time) become engine commands; the
engine accepts them, producing events, or refuses them, citing the rule. Every accepted event
gets the table's next sequence number and is written, with the MQTT messages it causes and the
retained topics it changes, in one store transaction; then the LEDs show it. Nothing here
waits on the network: publishing is the MQTT link's business, from the outbox.

The call window: a discard named by the table opens it. Claims (buttons) are recorded at once
with their board time; after the courtesy pause the claims made are closed and the engine
adjudicates by its priority rules (Code 1924, Laws 50-52, and each family's equivalent). The
next player's draw also closes it. Where the family keeps the discard claimable after that
draw (Law 53) the engine says so, and a late claim reopens the window.

Low-confidence or contradictory observations are never guessed at: the observation is held,
the table is asked (an LED prompt on the seat, a message on ``prompts``), and a referee
``cmd/confirm``, ``cmd/correct`` or ``cmd/dismiss`` settles it. Holding and settling are
events in the log too.

Single-threaded: call it from one loop. Time is handed in (microseconds of the table clock).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from controller.inputs import InputError, Observation, ObservationKind, Press
from controller.lights import LightLog, Pattern, Show
from controller.mirror import claim_for, command_for
from controller.mqtt import Topics
from controller.scoresheet import Scorer, hand_document, net_of
from controller.store import EventStore, dumps
from engine import commands as cm
from engine import events as ev
from engine.errors import EngineError, MalformedInput, RuleViolation
from engine.game import HandState, apply, new_hand, public_view, rebuild
from engine.rules import get_ruleset
from engine.seats import SEATS, Seat
from engine.tiles import tile_name
from engine.wall import breaker

log = logging.getLogger("mjtable.table")

# Events of the table itself, beside the engine's.
HELD = "ObservationHeld"  # an observation the table is asked about
SETTLED = "ObservationSettled"  # ... and how it was settled (confirmed, corrected, dismissed)
SCORED = "HandScored"  # the scoresheet entry of a finished hand
TABLE_EVENTS = frozenset({HELD, SETTLED, SCORED})
ENVELOPE = ("seq", "hand", "ts")


@dataclass(frozen=True)
class TableSettings:
    table_id: str
    ruleset: str = "code1924/mixed"
    options: Mapping[str, Any] = field(default_factory=dict)
    courtesy_pause_ms: int = 1500
    min_confidence: float = 0.9
    snapshot_every: int = 50
    players: Mapping[str, str] = field(default_factory=dict)
    topic_prefix: str = "mahjong/v1"
    publish: bool = True  # False: no broker configured, so nothing goes to the outbox
    scoring: str = ""  # the ruleset name `mjtable score` gets (a preset), if not the ruleset


@dataclass
class Outcome:
    """What became of one input."""

    accepted: bool
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    rule: str = ""
    asked: int | None = None


class CommandError(ValueError):
    """A malformed or impossible referee command; ``where`` names the field."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        super().__init__(message)


def _rotate(players: dict[str, str]) -> dict[str, str]:
    # East passes to the player on East's right: the South player becomes East (Law 94).
    names = [players[s.name] for s in SEATS]
    return {s.name: names[(i + 1) % 4] for i, s in enumerate(SEATS)}


class Table:
    def __init__(
        self,
        settings: TableSettings,
        store: EventStore,
        lights: LightLog | None = None,
        on_append: Callable[[], None] | None = None,
        scorer: Scorer | None = None,
        wallclock: Callable[[], float] = time.time,
        roll: Callable[[], int] = lambda: secrets.randbelow(6) + 1,
    ) -> None:
        get_ruleset(settings.ruleset)  # an unknown family fails here, not mid-game
        self.settings = settings
        self.store = store
        self.topics = Topics(settings.table_id, settings.topic_prefix)
        self.lights = lights or LightLog()
        self.on_append = on_append or (lambda: None)
        self.scorer = scorer
        self.wallclock = wallclock
        self.roll = roll
        self.pause_us = settings.courtesy_pause_ms * 1000
        self.state: HandState | None = None
        self._reset()
        # Not in the log: the call window's deadline (table time) and counters.
        self.window_deadline_us: int | None = None
        self.refused = 0
        self.since_snapshot = 0
        self.last_dice: tuple[int, ...] = ()
        self.close_to_led_ms: deque[float] = deque(maxlen=10_000)
        # The board event being applied, (boot_id, seq): stored with what it causes, in the
        # same transaction, so a restart knows it was applied (controller/store.py).
        self.source_key: tuple[int, int] | None = None
        self.source_key_stored = False
        self.recover()

    # -- recovery: the state is a fold of the log ------------------------------------------

    def _service_state(self) -> dict[str, Any]:
        return {
            "hand": self.hand_no,
            "players": self.players,
            "prevailing": self.prevailing,
            "totals": self.totals,
            "sheet": self.sheet,
            "pending": {str(k): v for k, v in self.pending.items()},
            "next_pending": self.next_pending,
        }

    def _reset(self) -> None:
        """The fold of an empty log."""
        self.seq = 0
        self.hand_no = 0
        self.state = None
        self.players = {s.name: self.settings.players.get(s.name) or s.name for s in SEATS}
        self.prevailing: str | None = "E"
        self.totals: dict[str, int] = {name: 0 for name in self.players.values()}
        self.sheet: list[dict[str, Any]] = []
        self.pending: dict[int, dict[str, Any]] = {}
        self.next_pending = 1

    def _load_service(self, svc: Mapping[str, Any]) -> None:
        self.hand_no = int(svc["hand"])
        self.players = dict(svc["players"])
        self.prevailing = svc["prevailing"]
        self.totals = dict(svc["totals"])
        self.sheet = list(svc["sheet"])
        self.pending = {int(k): v for k, v in svc["pending"].items()}
        self.next_pending = int(svc["next_pending"])

    def _fold(self, record: Mapping[str, Any]) -> None:
        """The table-level effect of one logged event (the engine folds its own)."""
        kind = record["type"]
        if kind == "HandStarted":
            self.hand_no = int(record["hand"])
        elif kind == "HandEnded":
            if not record["east_stays"]:
                self.players = _rotate(self.players)
            self.prevailing = record.get("next_prevailing") or self.prevailing
        elif kind == HELD:
            self.pending[int(record["id"])] = dict(record["observation"])
            self.next_pending = max(self.next_pending, int(record["id"]) + 1)
        elif kind == SETTLED:
            self.pending.pop(int(record["id"]), None)
        elif kind == SCORED:
            for name, amount in (record.get("net_by_player") or {}).items():
                self.totals[name] = self.totals.get(name, 0) + int(amount)
            self.sheet.append({k: v for k, v in record.items() if k not in ("seq", "ts")})

    def recover(self) -> None:
        """Come back to exactly the state the log describes (after a restart or a crash)."""
        self._reset()
        snapshot = self.store.latest_snapshot()
        after = 0
        if snapshot is not None:
            after, svc = snapshot
            self._load_service(svc)
        for record in self.store.events(after):
            self._fold(record)
        self.seq = self.store.last_seq()
        self.state = None
        if self.hand_no:
            hand_events = [
                ev.event_from_json({k: v for k, v in r.items() if k not in ENVELOPE})
                for r in self.store.events_of_hand(self.hand_no)
                if r["type"] not in TABLE_EVENTS
            ]
            if hand_events:
                self.state = rebuild(hand_events)
        if self.state is not None and self.state.phase in ("claims", "rob"):
            self.window_deadline_us = 0  # close what was open as soon as the loop ticks

    # -- recording ---------------------------------------------------------------------------

    def _ts(self) -> str:
        return datetime.fromtimestamp(self.wallclock(), UTC).isoformat(timespec="milliseconds")

    def _envelope(self, hand: int) -> dict[str, Any]:
        self.seq += 1
        return {"seq": self.seq, "hand": hand, "ts": self._ts()}

    def _record(
        self,
        engine_events: list[ev.Event],
        table_events: list[dict[str, Any]] | None = None,
        extra_messages: list[tuple[str, bytes, int | None]] | None = None,
    ) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        messages: list[tuple[str, bytes, int | None]] = []
        for event in engine_events:
            hand = event.number if isinstance(event, ev.HandStarted) else self.hand_no
            env = self._envelope(hand)
            record = {**env, **event.to_json()}
            public = {**env, **event.public_json()}
            records.append(record)
            messages.append((self.topics.events, dumps(public).encode(), env["seq"]))
            if isinstance(event, ev.ClaimsClosed):
                decision = {
                    "seq": env["seq"],
                    "hand": hand,
                    "type": "decision",
                    "discard": tile_name(event.discard),
                    "discarder": event.discarder.name,
                    "claims": list(event.claims),
                    "winner": None if event.winner is None else event.winner.name,
                    "kind": event.kind,
                    "rule": event.rule,
                }
                messages.append((self.topics.adjudications, dumps(decision).encode(), None))
            self._fold(record)
        for body in table_events or []:
            env = self._envelope(self.hand_no)
            record = {**env, **body}
            records.append(record)
            messages.append((self.topics.events, dumps(record).encode(), env["seq"]))
            self._fold(record)
        messages.extend(extra_messages or [])
        retained = {self.topics.state: dumps(self.public_state()).encode()}
        if any(r["type"] in (SCORED, "HandStarted") for r in records):
            retained[self.topics.scores] = dumps(self.scores()).encode()
        if not self.settings.publish:
            messages, retained = [], {}
        self.since_snapshot += len(records)
        snapshot = None
        if self.since_snapshot >= self.settings.snapshot_every or any(
            r["type"] == "HandStarted" for r in records
        ):
            snapshot = (self.seq, self._service_state())
            self.since_snapshot = 0
        try:
            self.store.append(records, messages, retained, snapshot, self.source_key)
            self.source_key_stored = self.source_key is not None
        except BaseException:
            # The store refused (disk full?): the log is the truth, so fall back to it.
            self.recover()
            raise
        self.on_append()
        return records

    def _message(self, topic: str, body: Mapping[str, Any]) -> None:
        """A message that is not an event (a prompt, a command result): outbox only."""
        if not self.settings.publish:
            return
        self.store.append([], [(topic, dumps(body).encode(), None)], board_key=self.source_key)
        self.source_key_stored = self.source_key is not None
        self.on_append()

    # -- views -----------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        view: dict[str, Any] = public_view(self.state) if self.state is not None else {}
        view.update(
            {
                "seq": self.seq,
                "table": self.settings.table_id,
                "hand": self.hand_no,
                "players": self.players,
                "pending": [{"id": k, **v} for k, v in sorted(self.pending.items())],
            }
        )
        return view

    def scores(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "table": self.settings.table_id,
            "players": self.players,
            "totals": self.totals,
            "hands": self.sheet,
        }

    # -- the game --------------------------------------------------------------------------

    def start(self) -> None:
        """Begin the first hand if the log has none."""
        if self.state is None:
            self._new_hand()

    def _new_hand(self) -> list[dict[str, Any]]:
        prevailing = Seat[self.prevailing] if self.prevailing else None
        state, events = new_hand(
            self.settings.ruleset, "mirror", prevailing=prevailing, hand=self.hand_no + 1
        )
        self.state = state
        self.window_deadline_us = None
        return self._record(events)

    def _apply(self, command: cm.Command, now_us: int) -> list[dict[str, Any]]:
        """Apply one command to the mirror; raises RuleViolation/MalformedInput untouched."""
        assert self.state is not None
        _, events = apply(self.state, command)
        records = self._record(list(events))
        self._after(events, now_us)
        if self.state.phase == "ended":
            records += self._finish_hand()
        return records

    def _after(self, events: list[ev.Event], now_us: int) -> None:
        """The call window and the LEDs follow what just happened."""
        assert self.state is not None
        for event in events:
            if isinstance(event, ev.Discarded | ev.KongAdded):
                self.window_deadline_us = now_us + self.pause_us
                pause = self.settings.courtesy_pause_ms
                self.lights.show(Pattern(Show.CALL_WINDOW, None, 0, pause))
            elif isinstance(event, ev.ClaimMade):
                if self.window_deadline_us is None:  # a late claim (Law 53) reopens it
                    self.window_deadline_us = now_us + self.pause_us
                self.lights.show(Pattern(Show.CLAIM_HEARD, event.seat.name))
            elif isinstance(event, ev.ClaimsClosed):
                self.window_deadline_us = None
                if event.winner is not None:
                    self.lights.show(Pattern(Show.CLAIM_WON, event.winner.name))
                for claim in event.claims:
                    seat = claim.split(":")[0]
                    if event.winner is None or seat != event.winner.name:
                        self.lights.show(Pattern(Show.CLAIM_REFUSED, seat))
                if event.winner is None:
                    self.lights.show(Pattern(Show.TURN, self.state.turn.name))
            elif isinstance(event, ev.Drew):
                if not event.loose:
                    self.window_deadline_us = None
                self.lights.show(Pattern(Show.TURN, event.seat.name))
                if self.state.live_left() <= 1:
                    self.lights.show(Pattern(Show.LAST_TILE, event.seat.name))
            elif isinstance(event, ev.WallBroken):
                self.lights.show(Pattern(Show.WALL_BREAK, event.wall_of.name, event.stack))
                self.lights.show(Pattern(Show.DEAD_WALL, event.wall_of.name, event.stack))
            elif isinstance(event, ev.HandEnded):
                self.window_deadline_us = None
                winner = None if event.winner is None else event.winner.name
                self.lights.show(Pattern(Show.HAND_OVER, winner))

    def _finish_hand(self) -> list[dict[str, Any]]:
        """Score the finished hand onto the sheet, then open the next hand."""
        assert self.state is not None
        state = self.state
        entry: dict[str, Any] = {
            "type": SCORED,
            "result": state.result,
            "winner": None if state.winner is None else state.winner.name,
            "rule": state.end_rule,
            "players": dict(self.players_before_rotation(state)),
        }
        doc = hand_document(state, self.settings.options)
        if doc is not None and self.settings.scoring:
            doc["ruleset"] = self.settings.scoring
        if doc is not None and self.scorer is not None:
            result = self.scorer(doc)
            net = net_of(result)
            if net is None:
                entry["error"] = str(result.get("error", "not scored"))
            else:
                entry["net"] = net
                entry["net_by_player"] = {entry["players"][s]: v for s, v in net.items()}
                entry["payments"] = result.get("payments", [])
        records = self._record([], [entry])
        return records + self._new_hand()

    def players_before_rotation(self, state: HandState) -> dict[str, str]:
        # _fold has already rotated the seats if East passed: undo that for this hand's names.
        if state.east_stays is False:
            names = [self.players[s.name] for s in SEATS]
            return {s.name: names[(i - 1) % 4] for i, s in enumerate(SEATS)}
        return dict(self.players)

    # -- inputs ----------------------------------------------------------------------------

    def press(self, press: Press, now_us: int) -> Outcome:
        """A call button. The claim goes to the engine at once, stamped with its table time;
        a refusal lights the seat's "no" and is published with its rule."""
        if self.state is None:
            self.start()
        command = claim_for(press)
        try:
            records = self._apply(command, now_us)
        except RuleViolation as exc:
            return self._refuse_press(press, exc.rule, exc.message)
        except MalformedInput as exc:
            return self._refuse_press(press, "", str(exc))
        return Outcome(True, records)

    def _refuse_press(self, press: Press, rule: str, message: str) -> Outcome:
        self.refused += 1
        self.lights.show(Pattern(Show.CLAIM_REFUSED, press.seat))
        self._message(
            self.topics.adjudications,
            {
                "seq": self.seq,
                "hand": self.hand_no,
                "type": "refused",
                "seat": press.seat,
                "kind": press.button,
                "time_us": press.time_us,
                "rule": rule,
                "reason": message,
            },
        )
        return Outcome(False, error=message, rule=rule)

    def observe(self, obs: Observation, now_us: int, ask: bool = True) -> Outcome:
        """Something the table showed. Applied if sure and lawful, otherwise held and asked.

        ``ask=False`` (the referee's own word): a refusal is returned, not held again."""
        if self.state is None:
            self.start()
        if obs.kind is ObservationKind.DICE and obs.seat is None:
            # The camera sees dice, not hands: it is the throw of whoever throws next.
            obs = replace(obs, seat=self.next_thrower())
        refuse = self._ask if ask else self._refuse
        if obs.kind is not ObservationKind.DICE and obs.confidence < self.settings.min_confidence:
            return refuse(
                obs, f"confidence {obs.confidence:.2f} is below {self.settings.min_confidence}"
            )
        try:
            command = command_for(obs)
        except InputError as exc:
            return refuse(obs, str(exc))
        try:
            records = self._close_before(command, now_us)
            records += self._apply(command, now_us)
        except RuleViolation as exc:
            return refuse(obs, exc.message, exc.rule)
        except MalformedInput as exc:
            return refuse(obs, str(exc))
        return Outcome(True, records)

    def _refuse(self, obs: Observation, reason: str, rule: str = "") -> Outcome:
        self.refused += 1
        return Outcome(False, error=reason, rule=rule)

    def _close_before(self, command: cm.Command, now_us: int) -> list[dict[str, Any]]:
        """A draw or a laid set shows the table has moved on: claims made before it are
        adjudicated first (the window closes on the next player's action)."""
        assert self.state is not None
        if self.state.phase == "rob":
            # The kong's owner going on (its loose tile) shows nobody robbed it (Law 90).
            return self._apply(cm.CloseClaims(), now_us)
        moving_on = isinstance(command, cm.Draw | cm.Expose | cm.DeclareMahjong | cm.Discard)
        if moving_on and self.state.phase == "claims" and self.state.claims:
            return self._apply(cm.CloseClaims(), now_us)
        return []

    def _ask(self, obs: Observation, reason: str, rule: str = "") -> Outcome:
        self.refused += 1
        pid = self.next_pending
        body = {"type": HELD, "id": pid, "observation": obs.to_json(), "reason": reason}
        if rule:
            body["rule"] = rule
        records = self._record([], [body])
        self.lights.show(Pattern(Show.ASK, obs.seat))
        self._message(self.topics.prompts, {"id": pid, "seat": obs.seat, **body})
        return Outcome(False, records, error=reason, rule=rule, asked=pid)

    def tick(self, now_us: int) -> list[dict[str, Any]]:
        """Close a call window whose courtesy pause is over."""
        if self.state is None or self.window_deadline_us is None:
            return []
        if now_us < self.window_deadline_us:
            return []
        deadline, self.window_deadline_us = self.window_deadline_us, None
        state = self.state
        # With claims made, the pause ends the window. Without, it ends it only where the
        # family does not keep the discard claimable after the next draw (Law 53), or when
        # no draw can follow (the last discard of a drawn hand).
        closes = state.phase == "rob" or (
            state.phase == "claims"
            and (
                bool(state.claims)
                or not state.ruleset.claims_after_next_draw
                or (state.need_draw and state.live_left() <= 0)
            )
        )
        if closes:
            try:
                records = self._apply(cm.CloseClaims(), now_us)
            except EngineError as exc:  # the engine's view wins; show it, lose nothing
                log.warning("closing the call window: %s", exc)
                self.lights.show(Pattern(Show.ERROR, None))
                return []
            won = self.lights.last(Show.CLAIM_WON)
            if deadline and won is not None and won.at_ns // 1000 >= deadline:
                # End of the courtesy pause to the winner's LED (the decision shown).
                self.close_to_led_ms.append((won.at_ns // 1000 - deadline) / 1000)
            return records
        self.lights.show(Pattern(Show.TURN, self.state.turn.name))
        return []

    def throw_dice(self, seat: str, now_us: int) -> Outcome:
        """Roll the LED dice (``secrets``) for ``seat`` and apply the throw."""
        dice = (self.roll(), self.roll())
        self.last_dice = dice
        obs = Observation(ObservationKind.DICE, seat, dice=dice, source="led-dice")
        return self.observe(obs, now_us)

    def next_thrower(self) -> str:
        """Who throws next: East first (Law 15), then the seat East's throw selects (Law 16)."""
        if self.state is None or not self.state.throws:
            return "E"
        return breaker(self.state.throws[0][1]).name

    # -- referee commands --------------------------------------------------------------------

    VERBS = ("claim", "confirm", "correct", "dismiss", "observe", "roll", "status")

    def command(self, verb: str, payload: bytes, now_us: int) -> dict[str, Any]:
        """A ``cmd/<verb>`` message. Always answers on ``cmd/<verb>/result``; never raises."""
        try:
            result = self._command(verb, payload, now_us)
        except CommandError as exc:
            result = {"ok": False, "error": str(exc), "where": exc.where}
        except (RuleViolation, MalformedInput, InputError) as exc:
            result = {"ok": False, "error": str(exc), "where": "payload"}
            if isinstance(exc, RuleViolation):
                result["rule"] = exc.rule
        if verb in self.VERBS or not result.get("ok"):
            self._message(self.topics.cmd_result(verb), result)
        return result

    def _command(self, verb: str, payload: bytes, now_us: int) -> dict[str, Any]:
        if verb not in self.VERBS:
            raise CommandError("verb", f"unknown command {verb!r}; known: {', '.join(self.VERBS)}")
        try:
            body = json.loads(payload.decode("utf-8")) if payload.strip() else {}
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError("payload", f"not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise CommandError("payload", "expected a JSON object")
        if verb == "status":
            return {"ok": True, **self.status()}
        if verb == "roll":
            seat = body.get("seat", "E")
            if seat not in ("E", "S", "W", "N"):
                raise CommandError("seat", f"{seat!r} is not one of E S W N")
            return self._outcome(self.throw_dice(seat, now_us))
        if verb == "observe":
            obs = Observation.from_json(body, "payload")
            return self._outcome(self.observe(obs, now_us, ask=False))
        if verb == "claim":  # a call entered by the referee (a seat's button is broken)
            press = Press(str(body.get("seat")), str(body.get("kind")), now_us, "referee")
            return self._outcome(self.press(press, now_us))
        if verb == "correct" and "at" in body:
            return self._amend(body, now_us)
        pid = body.get("pending")
        if not isinstance(pid, int) or pid not in self.pending:
            known = sorted(self.pending) or "none"
            raise CommandError("pending", f"no held observation {pid!r} (held: {known})")
        held = Observation.from_json(self.pending[pid], "held")
        if verb == "dismiss":
            self._record([], [{"type": SETTLED, "id": pid, "how": "dismissed"}])
            return {"ok": True, "pending": pid, "how": "dismissed"}
        if verb == "correct":
            fields = {k: v for k, v in body.items() if k != "pending"}
            fixed = Observation.from_json({**self.pending[pid], **fields}, "payload")
        else:
            fixed = held
        # A referee's word is certain: it is applied at full confidence.
        sure = Observation(
            fixed.kind, fixed.seat, fixed.tiles, 1.0, fixed.time_us, fixed.zone, fixed.dice,
            "referee", fixed.winning,
        )
        outcome = self.observe(sure, now_us, ask=False)  # still held if this is refused
        if outcome.accepted:
            how = "confirmed" if verb == "confirm" else "corrected"
            settled = {"type": SETTLED, "id": pid, "how": how, "observation": sure.to_json()}
            self._record([], [settled])
        return {**self._outcome(outcome), "pending": pid}

    def _amend(self, body: Mapping[str, Any], now_us: int) -> dict[str, Any]:
        """``{"at": n, "command": {...} | null, "reason": "..."}``: the engine's Correct."""
        if not isinstance(body.get("reason"), str) or not body["reason"].strip():
            raise CommandError("reason", "a correction names its reason")
        raw = body.get("command")
        command = None if raw is None else cm.command_from_json(raw, "command")
        at = body["at"]
        if not isinstance(at, int):
            raise CommandError("at", "the index of the event in this hand's record")
        records = self._apply(cm.Correct(at=at, command=command, reason=body["reason"]), now_us)
        return {"ok": True, "seq": self.seq, "events": [r["type"] for r in records]}

    def _outcome(self, outcome: Outcome) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": outcome.accepted, "seq": self.seq}
        if outcome.records:
            out["events"] = [r["type"] for r in outcome.records]
        if outcome.error:
            out["error"] = outcome.error
        if outcome.rule:
            out["rule"] = outcome.rule
        if outcome.asked is not None:
            out["asked"] = outcome.asked
        return out

    def status(self) -> dict[str, Any]:
        state = self.state
        return {
            "table": self.settings.table_id,
            "ruleset": self.settings.ruleset,
            "seq": self.seq,
            "hand": self.hand_no,
            "phase": None if state is None else state.phase,
            "turn": None if state is None else state.turn.name,
            "pending": sorted(self.pending),
            "refused": self.refused,
            "outbox": self.store.outbox_size(),
        }
