"""What the classical and the American live tables share: the service around the mirror.

Both tables keep the same service contract (``controller/table.py`` describes it): a sequence of
logged events, observations held until a referee settles them, refusals published with their
rule, and the referee's ``cmd/<verb>`` messages. The engine-specific parts (which mirror, how a
hand is recorded, rebuilt and scored, when the call window closes) stay in each table.
"""

from __future__ import annotations

import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controller.call_window import CallWindow
from controller.cues import Cues
from controller.games import FOLDED, GAME_EVENTS, GameBook, GameCommandError
from controller.inputs import InputError, Observation, Press
from controller.lights import LightLog
from controller.mqtt import Topics
from controller.referee import (
    Claim,
    CommandError,
    Game,
    Observe,
    RefereeCommand,
    Settle,
    Status,
    parse_command,
)
from controller.scorekeeper import Scorekeeper
from controller.store import EventStore, dumps
from engine.commands import Command
from engine.errors import EngineError, MalformedInput, RuleViolation
from engine.events import Event
from engine.family import RuleFamily
from engine.seats import Seat

# Events of the table itself, beside the engine's.
HELD = "ObservationHeld"  # an observation the table is asked about
SETTLED = "ObservationSettled"  # ... and how it was settled (confirmed, corrected, dismissed)
SCORED = "HandScored"  # the scoresheet entry of a finished hand


@dataclass(frozen=True)
class TableSettings:
    table_id: str
    ruleset: str = "code1924/mixed"
    options: Mapping[str, Any] = field(default_factory=dict)
    courtesy_pause_ms: int = 1500
    press_latency_ms: int = 100
    min_confidence: float = 0.9
    snapshot_every: int = 50
    players: Mapping[str, str] = field(default_factory=dict)
    topic_prefix: str = "mahjong/v1"
    publish: bool = True  # False: no broker configured, so nothing goes to the outbox
    scoring: str = ""  # the ruleset name `mjtable score` gets (a preset), if not the ruleset
    hands_per_game: int | None = None  # where the book defines no game (American)
    card: str = ""  # the American card's path; empty: the bundled card


@dataclass
class Outcome:
    """What became of one input."""

    accepted: bool
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    rule: str = ""
    asked: int | None = None


@dataclass
class BoardEventMark:
    """A board event being applied (:meth:`LiveTable.caused_by`): its key, and whether what it
    caused was stored with it."""

    key: tuple[int, int]
    stored: bool = False


class LiveTable(ABC):
    """The shared part of a live table. Each family's table provides the abstract methods:
    its mirror (``state``), how its events become records, its view, inputs and window."""

    VERBS: tuple[str, ...] = ()
    FIRST_PREVAILING: str | None = None  # the prevailing wind of the first hand, if any

    log = logging.getLogger("mjtable.table")

    state: Any
    seq: int
    hand_no: int
    family: RuleFamily[Any]  # the engine's one interface to the rules played (engine/family.py)

    def _setup(
        self,
        settings: TableSettings,
        store: EventStore,
        lights: LightLog | None,
        on_append: Callable[[], None] | None,
        wallclock: Callable[[], float],
    ) -> None:
        self.settings = settings
        self.store = store
        self.topics = Topics(settings.table_id, settings.topic_prefix)
        self.lights = lights or LightLog()
        self.cues = Cues(self.lights, settings.courtesy_pause_ms)  # what the LEDs show
        self.on_append = on_append or (lambda: None)
        self.wallclock = wallclock
        # Not in the log: the call window's clock and counters.
        self.window = CallWindow(settings.courtesy_pause_ms, settings.press_latency_ms)
        self.refused = 0
        self.presses_refused = 0  # of those, call buttons
        self.last_dice: tuple[int, ...] = ()
        # The board event being applied, (boot_id, seq): stored with what it causes, in the
        # same transaction, so a restart knows it was applied (controller/store.py).
        self.source_key: tuple[int, int] | None = None
        self.source_key_stored = False
        # The parts around the table (the board) for ``cmd/status``: the service sets it.
        self.parts_status: Callable[[], dict[str, Any]] = dict

    @contextlib.contextmanager
    def caused_by(self, key: tuple[int, int]) -> Iterator[BoardEventMark]:
        """Apply a board event: whatever it causes is stored with its ``key`` in the same
        transaction; the mark says whether anything was (if not, the caller stores the key
        alone, so a restart knows the event was applied)."""
        mark = BoardEventMark(key)
        self.source_key, self.source_key_stored = key, False
        try:
            yield mark
        finally:
            mark.stored = self.source_key_stored
            self.source_key, self.source_key_stored = None, False

    # -- what each family's table provides ----------------------------------------------------

    @abstractmethod
    def recover(self) -> None:
        """Come back to exactly the state the log describes (after a restart or a crash)."""

    @abstractmethod
    def _record_table(self, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Record the table's own events (held, settled, scored ...)."""

    @abstractmethod
    def _record_events(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        """Record the engine's events (a new hand's)."""

    def _view(self) -> dict[str, Any]:
        """The public view of the hand in play."""
        return self.family.public_view(self.state)

    def _new_hand(self) -> list[dict[str, Any]]:
        """Begin the next hand; its records."""
        prevailing = Seat[self.prevailing] if self.prevailing else None
        state, events = self.family.new_hand("mirror", hand=self.hand_no + 1,
                                             prevailing=prevailing)
        self.state = state
        self.window.shut()
        return self._record_events(events)

    @abstractmethod
    def observe(self, obs: Observation, now_us: int, ask: bool = True) -> Outcome:
        """Something the table showed; ``ask=False``: the referee's word, not held again."""

    @abstractmethod
    def press(self, press: Press, now_us: int) -> Outcome:
        """A call button, judged on its table time."""

    @abstractmethod
    def _apply(self, command: Command, now_us: int) -> list[dict[str, Any]]:
        """One command to the mirror; raises the engine's refusal untouched."""

    @abstractmethod
    def _closing(self) -> Command:
        """The engine's command that closes the call window, its calls adjudicated."""

    @abstractmethod
    def _closes_before(self, command: Command) -> bool:
        """Whether ``command`` shows the table moved on past the calls made on the discard
        (they are adjudicated first)."""

    @abstractmethod
    def _closes_at_pause(self) -> bool:
        """Whether the call window closes now that its courtesy pause is over."""

    @abstractmethod
    def _stays_open(self) -> None:
        """The pause is over and the window stays open (the discard is still claimable)."""

    def _close_before(self, command: Command, now_us: int) -> list[dict[str, Any]]:
        """Adjudicate the calls made before ``command`` shows the table moved on."""
        if self.state is not None and self._closes_before(command):
            return self._apply(self._closing(), now_us)
        return []

    def tick(self, now_us: int) -> list[dict[str, Any]]:
        """Close a call window that is over (:class:`~controller.call_window.CallWindow`): its
        courtesy pause, and the press latency after it."""
        if self.state is None:
            return []
        deadline = self.window.over(now_us)
        if deadline is None:
            return []
        if not self._closes_at_pause():
            self._stays_open()
            return []
        return self._close_window(lambda: self._apply(self._closing(), now_us), deadline)

    @abstractmethod
    def _certain(self, obs: Observation) -> Observation:
        """The observation as the referee's word: applied at full confidence."""

    @abstractmethod
    def next_thrower(self) -> str:
        """The seat whose dice throw the table expects next (the board's dice are his)."""

    @abstractmethod
    def throw_dice(self, seat: str, now_us: int) -> Outcome:
        """Roll the LED dice for ``seat`` and apply the throw."""

    def _held(self, pid: int) -> Observation | None:
        """The held observation, read before it is settled (None: read only when applied)."""
        return None

    def passing(self) -> set[str]:
        """The seats that owe a Charleston pass now (the American game), for the camera's
        watcher; empty: none, or the family has no Charleston."""
        return set()

    def showing_hands(self) -> dict[str, int]:
        """The seats that may be laying their hands out now, with how many tiles each hand
        holds, for the camera's watcher (vision/observe.py); empty: none, or the family does
        not say."""
        return {}

    # -- what the simulated camera asks of the mirror (controller/sim_camera.py) ---------

    def view_of(self, state: Any) -> dict[str, Any]:
        """The public view of a hand of this table's family: its mirror's, or a simulated
        world's."""
        return self.family.public_view(state)

    @abstractmethod
    def next_in_turn(self, state: Any, seat: Seat) -> Seat:
        """The seat that plays after ``seat`` in a hand of this table's family."""

    def throws_seen(self, state: Any) -> int | None:
        """The dice throws a hand of this family has followed (None: the family counts the
        deal and does not follow the throws)."""
        return None

    def passes_taken(self) -> int:
        """Charleston passes the mirror has taken this hand, seat by seat (0: none, or the
        family has no Charleston)."""
        return 0

    def passes_waiting(self) -> int:
        """Of those, the ones waiting for the rest of their pass to be laid."""
        return 0

    @abstractmethod
    def hand_shown_taken(self, seat: str) -> bool:
        """Whether the mirror has taken the hand ``seat`` showed as the hand ended."""

    @abstractmethod
    def won_on_draw_now(self) -> bool:
        """Whether a hand shown now is won on a draw: the table is in its turn's play."""

    @abstractmethod
    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None:
        """The referee's ``cmd/correct`` body putting ``tile`` for ``seat``'s last discard
        of the hand in play (None: it has none)."""

    def _table_command(self, command: RefereeCommand, now_us: int) -> dict[str, Any]:
        """A command only this table knows (its VERBS admit it)."""
        raise CommandError("verb", f"{type(command).__name__.lower()} is not for this table")

    # -- the fold of the log: the table's own events -------------------------------------------

    def _reset(self) -> None:
        """The fold of an empty log."""
        self.seq = 0
        self.hand_no = 0
        self.state = None
        self.scorekeeper = Scorekeeper(self.settings.players, self.settings.ruleset,
                                       self.settings.hands_per_game, self.FIRST_PREVAILING,
                                       self.store.events_of_types(FOLDED))
        self.pending: dict[int, dict[str, Any]] = {}
        self.next_pending = 1

    # The scoresheet's, read by the service, the simulation and the console.
    @property
    def players(self) -> dict[str, str]:
        return self.scorekeeper.players

    @property
    def prevailing(self) -> str | None:
        return self.scorekeeper.prevailing

    @property
    def totals(self) -> dict[str, int]:
        return self.scorekeeper.totals

    @property
    def sheet(self) -> list[dict[str, Any]]:
        return self.scorekeeper.sheet

    @property
    def games(self) -> GameBook:
        return self.scorekeeper.games

    def _fold_table(self, kind: str, record: Mapping[str, Any]) -> None:
        self.scorekeeper.fold(kind, record)
        if kind == "HandStarted":
            self.hand_no = int(record["hand"])
        elif kind == HELD:
            self.pending[int(record["id"])] = dict(record["observation"])
            self.next_pending = max(self.next_pending, int(record["id"]) + 1)
        elif kind == SETTLED:
            self.pending.pop(int(record["id"]), None)

    # -- recording ---------------------------------------------------------------------------

    def _ts(self) -> str:
        return datetime.fromtimestamp(self.wallclock(), UTC).isoformat(timespec="milliseconds")

    def _store(
        self,
        records: list[dict[str, Any]],
        messages: list[tuple[str, bytes, int | None]],
        snapshot: tuple[int, dict[str, Any]] | None,
    ) -> list[dict[str, Any]]:
        """Store folded ``records`` with their outbox ``messages``, the retained ``state`` (and
        ``scores`` when a hand starts or is scored) and a ``snapshot``, in one transaction,
        keyed by the board event being applied; then wake the publisher."""
        retained = {self.topics.state: dumps(self.public_state()).encode()}
        if any(r["type"] in (SCORED, "HandStarted", *GAME_EVENTS) for r in records):
            retained[self.topics.scores] = dumps(self.scores()).encode()
        if not self.settings.publish:
            messages, retained = [], {}
        try:
            self.store.append(records, messages, retained, snapshot, self.source_key)
            self.source_key_stored = self.source_key is not None
        except BaseException:
            # The store refused (disk full?): the log is the truth, so fall back to it. No
            # press waits on the board here: the window closes on time.
            self.recover()
            self.window.release()
            raise
        self.on_append()
        return records

    def _message(self, topic: str, body: Mapping[str, Any]) -> None:
        """A message that is not an event (a prompt, a command result): outbox only."""
        if not self.settings.publish:
            return
        self.store.append([], [(topic, dumps(dict(body)).encode(), None)],
                          board_key=self.source_key)
        self.source_key_stored = self.source_key is not None
        self.on_append()

    # -- views -------------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        view = self._view() if self.state is not None else {}
        view.update({
            "seq": self.seq, "table": self.settings.table_id, "hand": self.hand_no,
            "players": self.players,
            "pending": [{"id": k, **v} for k, v in sorted(self.pending.items())],
        })
        return view

    def scores(self) -> dict[str, Any]:
        return {"seq": self.seq, "table": self.settings.table_id, **self.scorekeeper.scores()}

    def status(self) -> dict[str, Any]:
        state = self.state
        return {
            "table": self.settings.table_id, "ruleset": self.settings.ruleset, "seq": self.seq,
            "hand": self.hand_no, "phase": None if state is None else state.phase,
            "turn": None if state is None else state.turn.name, "pending": sorted(self.pending),
            "refused": self.refused, "outbox": self.store.outbox_size(),
        }

    # -- the game ----------------------------------------------------------------------------

    def start(self) -> None:
        """Begin the first hand if the log has none; finish at once a hand whose end a crash
        cut (its score, or the next hand, not yet logged), not at the next input."""
        if self.state is None:
            self._new_hand()
        else:
            self._resume_end()

    def _resume_end(self) -> list[dict[str, Any]]:
        """Finish the hand in play if it ended and a crash cut what follows its end; the
        records (none if the hand goes on)."""
        return []

    def _scored_already(self) -> bool:
        """Whether the hand in play is on the scoresheet (a crash came between its score and
        the next hand: it must not be scored twice)."""
        return bool(self.hand_no and self.sheet and self.sheet[-1].get("hand") == self.hand_no)

    def _close_for_late_press(self, press: Press, now_us: int) -> list[dict[str, Any]]:
        """A press made after the courtesy pause, arriving before the tick closed the window:
        the window closes first, as it would have at the tick, and the press is judged after."""
        at = self.window.closes_before(press.time_us, now_us)
        return [] if at is None else self.tick(at)

    def _close_window(self, close: Callable[[], list[dict[str, Any]]],
                      deadline: int) -> list[dict[str, Any]]:
        """Close the call window (``close`` applies the engine's command) and time the decision
        from the window's end (its courtesy pause and the press latency) to the winner's LED."""
        try:
            records = close()
        except EngineError as exc:  # the engine's view wins; show it, lose nothing
            self.log.warning("closing the call window: %s", exc)
            self.cues.error()
            return []
        won = self.cues.last_won()
        self.window.decided(deadline, None if won is None else won.at_ns // 1000)
        return records

    def _apply_observed(
        self,
        obs: Observation,
        command_for: Callable[[Observation], Command],
        now_us: int,
        refuse: Callable[..., Outcome],
    ) -> Outcome:
        """An observation made a command and applied, calls made before it adjudicated first;
        what the mirror cannot read or refuses goes to ``refuse`` (held and asked, or not)."""
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

    # -- refusals and held observations ------------------------------------------------------

    def _refuse_press(self, press: Press, rule: str, message: str) -> Outcome:
        self.refused += 1
        self.presses_refused += 1
        self.cues.refused(press.seat)
        self._message(self.topics.adjudications, {
            "seq": self.seq, "hand": self.hand_no, "type": "refused", "seat": press.seat,
            "kind": press.button, "time_us": press.time_us, "rule": rule, "reason": message})
        return Outcome(False, error=message, rule=rule)

    def _refuse(self, obs: Observation, reason: str, rule: str = "") -> Outcome:
        self.refused += 1
        return Outcome(False, error=reason, rule=rule)

    def _ask(self, obs: Observation, reason: str, rule: str = "") -> Outcome:
        self.refused += 1
        pid = self.next_pending
        body: dict[str, Any] = {"type": HELD, "id": pid, "observation": obs.to_json(),
                                "reason": reason}
        if rule:
            body["rule"] = rule
        records = self._record_table([body])
        self.cues.ask(obs.seat)
        self._message(self.topics.prompts, {"seat": obs.seat, **body})
        return Outcome(False, records, error=reason, rule=rule, asked=pid)

    # -- referee commands --------------------------------------------------------------------

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
        self._message(self.topics.cmd_result(verb), result)
        return result

    def _command(self, verb: str, payload: bytes, now_us: int) -> dict[str, Any]:
        match parse_command(verb, payload, (*self.VERBS, "game")):
            case Status():
                return {"ok": True, **self.status(), **self.parts_status()}
            case Observe(observation=obs):
                return self._outcome(self.observe(obs, now_us, ask=False))
            case Claim(seat=seat, kind=kind):  # a call entered by the referee
                return self._outcome(self.press(Press(seat, kind, now_us, "referee"), now_us))
            case Game(body=body):  # games started, players seated, ended (docs/mqtt.md)
                return self._game(body)
            case Settle() as settle:
                return self._settle(settle, now_us)
            case command:
                return self._table_command(command, now_us)

    def _game(self, body: Mapping[str, Any]) -> dict[str, Any]:
        try:
            event = self.games.command(body, len(self.players), self.hand_moved())
        except GameCommandError as exc:
            raise CommandError(exc.where, str(exc)) from None
        self._record_table([event])
        return {"ok": True, "seq": self.seq, "game": event["game"], "events": [event["type"]]}

    def hand_moved(self) -> bool:
        """Whether the hand in play has moves beyond its deal (then it belongs to the game
        going on, and players are seated between hands)."""
        return bool(self.hand_no and any(
            r["type"] not in ("HandStarted", "DiceThrown", "WallBroken", "Dealt", HELD, SETTLED)
            for r in self.store.events_of_hand(self.hand_no)))

    def _settle(self, settle: Settle, now_us: int) -> dict[str, Any]:
        """``cmd/confirm``, ``cmd/correct`` or ``cmd/dismiss`` of a held observation."""
        pid = settle.pending
        if pid not in self.pending:
            known = sorted(self.pending) or "none"
            raise CommandError("pending", f"no held observation {pid!r} (held: {known})")
        held = self._held(pid)
        if settle.how == "dismiss":
            self._record_table([{"type": SETTLED, "id": pid, "how": "dismissed"}])
            return {"ok": True, "pending": pid, "how": "dismissed"}
        if settle.how == "correct" or held is None:
            held = Observation.from_json({**self.pending[pid], **settle.fields}, "payload")
        sure = self._certain(held)
        outcome = self.observe(sure, now_us, ask=False)  # still held if this is refused
        if outcome.accepted:
            how = "confirmed" if settle.how == "confirm" else "corrected"
            self._record_table([{"type": SETTLED, "id": pid, "how": how,
                                 "observation": sure.to_json()}])
        return {**self._outcome(outcome), "pending": pid}

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


def _bounded(error: str, limit: int = 300) -> str:
    """An error names the field and what was wrong, never the whole payload back: an echoed
    256 kB value would be an answer the broker refuses (docs/security.md)."""
    return error if len(error) <= limit else f"{error[:limit]}... ({len(error)} characters)"
