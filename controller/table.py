"""The table: a real game mirrored through the engine and adjudicated live, whichever rule
family it plays.

Inputs (observations and button presses, with the table time) become engine commands; the
engine accepts them, producing events, or refuses them, citing the rule. Every accepted event
gets the table's next sequence number and is written, with the MQTT messages it causes and the
retained topics it changes, in one store transaction; then the LEDs show it. Nothing here
waits on the network: publishing is the MQTT link's business, from the outbox.

The call window: a discard named by the table opens it. Claims (buttons) are recorded at once
with their board time; after the courtesy pause the claims made are closed and the engine
adjudicates by its priority rules (Code 1924, Laws 50-52; American C-9). The next player's
draw also closes it.

Low-confidence or contradictory observations are never guessed at: the observation is held,
the table is asked (an LED prompt on the seat, a message on ``prompts``), and a referee
``cmd/confirm``, ``cmd/correct`` or ``cmd/dismiss`` settles it. Holding and settling are
events in the log too.

The table is assembled from parts with one job each: the recorder (controller/recorder.py)
numbers and stores, the call window's clock (call_window.py), the cues on the LEDs (cues.py),
the scorekeeper (scorekeeper.py), the referee's desk (referee_desk.py). What differs between
rule families is injected: the engine's :class:`~engine.family.RuleFamily` (how a command
moves a hand, how its events are kept and a hand rebuilt) and the family's part of the table
(:class:`~controller.family_part.FamilyPart`: what an observation means, when the window
closes, how a hand is settled). The table never asks which family it plays.

Single-threaded: call it from one loop. Time is handed in (microseconds of the table clock).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from controller import penalties
from controller.call_window import CallWindow
from controller.cues import Cues
from controller.family_part import FamilyPart, Outcome, Refuse, refusal_of
from controller.games import FOLDED, GAME_EVENTS, GameBook
from controller.inputs import InputError, Observation, Press
from controller.lights import LightLog
from controller.mqtt import Topics
from controller.published import Published, messages_of
from controller.recorder import BoardEventMark, Message, Recorder
from controller.referee import CommandError
from controller.referee_desk import RefereeDesk
from controller.scorekeeper import Scorekeeper
from controller.scoresheet import Scorer
from controller.settings import TableSettings
from controller.store import EventStore, dumps
from engine.commands import Command
from engine.errors import EngineError, MalformedInput, RuleViolation
from engine.events import Event
from engine.seats import Seat

# Events of the table itself, beside the engine's.
HELD = "ObservationHeld"  # an observation the table is asked about
SETTLED = "ObservationSettled"  # ... and how it was settled (confirmed, corrected, dismissed)
SCORED = "HandScored"  # the scoresheet entry of a finished hand
# A false Mah-jongg's penalty asked of the referee, and the answer (controller/penalties.py)
PENALTY_EVENTS = frozenset({penalties.PENALTY_HELD, penalties.PENALTY_SETTLED})
# After a Mah-jongg the others expose their hands and settle among themselves (Code 1924,
# Law 82): the table waits for them and records each before it scores the hand.
AWAITED = "LosersAwaited"
LOSER_SHOWN = "LoserHandShown"
TABLE_EVENTS = frozenset({HELD, SETTLED, SCORED, AWAITED, LOSER_SHOWN, *GAME_EVENTS,
                          *PENALTY_EVENTS})
ENVELOPE = ("seq", "hand", "ts")
# Records of a hand's deal: a hand with nothing else has not moved yet.
DEAL_RECORDS = frozenset({"HandStarted", "DiceThrown", "WallBroken", "Dealt", HELD, SETTLED,
                          *PENALTY_EVENTS})

__all__ = [
    "AWAITED", "ENVELOPE", "HELD", "LOSER_SHOWN", "SCORED", "SETTLED", "TABLE_EVENTS",
    "CommandError", "Outcome", "Table", "TableSettings",
]


def _roll() -> int:
    return secrets.randbelow(6) + 1


class Table:
    log = logging.getLogger("mjtable.table")

    def __init__(
        self,
        settings: TableSettings,
        store: EventStore,
        lights: LightLog | None = None,
        on_append: Callable[[], None] | None = None,
        scorer: Scorer | None = None,
        wallclock: Callable[[], float] = time.time,
        roll: Callable[[], int] = _roll,
        card: Any = None,
        parts_status: Callable[[], dict[str, Any]] = dict,
    ) -> None:
        """``scorer`` scores a won hand where the family's engine does not settle it (the
        classical families), ``roll`` throws the LED dice, ``card`` is a compiled American
        card (None: ``settings.card``); ``parts_status``: the parts around the table (the
        board) for ``cmd/status``."""
        from controller.families.parts import part_for  # the one place that knows families

        self.settings = settings
        self.store = store
        self.topics = Topics(settings.table_id, settings.topic_prefix)
        self.lights = lights or LightLog()
        self.cues = Cues(self.lights, settings.courtesy_pause_ms)  # what the LEDs show
        # Not in the log: the call window's clock and counters.
        self.window = CallWindow(settings.courtesy_pause_ms, settings.press_latency_ms)
        self.recorder = Recorder(store, self.topics, lambda: self.settings.publish, wallclock,
                                 on_append or (lambda: None))
        self.parts_status = parts_status
        self.refused = 0
        self.presses_refused = 0  # of those, call buttons
        self.last_dice: tuple[int, ...] = ()
        self.since_snapshot = 0
        self.state: Any = None
        self.part: FamilyPart = part_for(self, scorer=scorer, roll=roll, card=card)
        self.family = self.part.family  # the engine's one interface to the rules played
        self.desk = RefereeDesk(self)
        self.recover()

    @property
    def seq(self) -> int:
        return self.recorder.seq

    def caused_by(self, key: tuple[int, int]) -> AbstractContextManager[BoardEventMark]:
        """Apply a board event: whatever it causes is stored with its ``key`` in the same
        transaction (:meth:`Recorder.caused_by`)."""
        return self.recorder.caused_by(key)

    # -- the fold of the log ---------------------------------------------------------------

    def _reset(self) -> None:
        """The fold of an empty log."""
        self.hand_no = 0
        self.state = None
        self.scorekeeper = Scorekeeper(self.settings.players, self.settings.ruleset,
                                       self.settings.hands_per_game, self.part.first_prevailing,
                                       self.store.events_of_types(FOLDED))
        self.pending: dict[int, dict[str, Any]] = {}
        self.next_pending = 1
        self.part.reset()

    def _fold(self, record: Mapping[str, Any]) -> None:
        """What one logged record changes at the table (the engine folds its own)."""
        kind = record["type"]
        self.scorekeeper.fold(kind, record)
        if kind == "HandStarted":
            self.hand_no = int(record["hand"])
        elif kind in (HELD, penalties.PENALTY_HELD):
            held = record["observation"] if kind == HELD else penalties.question_fields(record)
            self.pending[int(record["id"])] = dict(held)
            self.next_pending = max(self.next_pending, int(record["id"]) + 1)
        elif kind in (SETTLED, penalties.PENALTY_SETTLED):
            self.pending.pop(int(record["id"]), None)
        self.part.fold(record)

    def _service_state(self) -> dict[str, Any]:
        return {
            "hand": self.hand_no, **self.scorekeeper.snapshot(),
            "pending": {str(k): v for k, v in self.pending.items()},
            "next_pending": self.next_pending, **self.part.snapshot(),
        }

    def _load_service(self, svc: Mapping[str, Any]) -> None:
        self.hand_no = int(svc["hand"])
        self.scorekeeper.load(svc)
        self.pending = {int(k): v for k, v in svc["pending"].items()}
        self.next_pending = int(svc["next_pending"])
        self.part.load(svc)

    def recover(self) -> None:
        """Come back to exactly the state the log describes (after a restart or a crash): the
        table's part from its latest snapshot and the records after it, the hand in play
        rebuilt by its family from the hand's records. A snapshot without the table's state
        (an American log's, before one table served every family) is passed over."""
        self._reset()
        snapshot = self.store.latest_snapshot()
        after = 0
        if snapshot is not None and "pending" in snapshot[1]:
            after = snapshot[0]
            self._load_service(snapshot[1])
        for record in self.store.events(after):
            self._fold(record)
        self.recorder.recovered()
        self.state = None
        if self.hand_no:
            self.state = self.family.rebuild(self.store.events_of_hand(self.hand_no))
        if self.state is not None:
            opened = self.part.window_at_restart()
            if opened is not None:
                self.window.open_at_restart(opened or None)

    # -- recording ---------------------------------------------------------------------------

    def record(self, events: Sequence[Event] = (), command: Command | None = None,
               table_events: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
        """Number, fold and store the engine's ``events`` (caused by ``command``) and the
        table's own, each with the messages it publishes, in one transaction."""
        records, messages = self.recorder.entries(
            self.family.records_of(events, command), table_events, lambda: self.hand_no,
            self._fold)
        self.since_snapshot += len(records)
        snapshot = None
        if self.since_snapshot >= self.settings.snapshot_every or any(
                r["type"] == "HandStarted" for r in records):
            snapshot = (self.seq, self._service_state())
            self.since_snapshot = 0
        return self._store(records, messages, snapshot)

    def _store(self, records: list[dict[str, Any]], messages: list[Message],
               snapshot: tuple[int, dict[str, Any]] | None) -> list[dict[str, Any]]:
        """Store folded ``records`` with the retained ``state`` (and ``scores`` when a hand
        starts or is scored); a store that refuses (disk full?) leaves the log the truth."""
        retained = {self.topics.state: dumps(self.public_state()).encode()}
        if any(r["type"] in (SCORED, "HandStarted", *GAME_EVENTS, *PENALTY_EVENTS)
               for r in records):
            retained[self.topics.scores] = dumps(self.scores()).encode()
        try:
            self.recorder.write(records, messages, retained, snapshot)
        except BaseException:
            # No press waits on the board here: the window closes on time.
            self.recover()
            self.window.release()
            raise
        return records

    def message(self, topic: str, body: Mapping[str, Any]) -> None:
        """A message that is not an event (a prompt, a command result): outbox only."""
        self.recorder.message(topic, body)

    def published(self, record: Mapping[str, Any]) -> Published:
        """The messages a logged record published (controller/published.py)."""
        return messages_of(record, self.topics, self.family)

    # -- the scoresheet's, read by the service, the simulation and the console ---------------

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

    # -- views -------------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        view = self.family.public_view(self.state) if self.state is not None else {}
        view.update({
            "seq": self.seq, "table": self.settings.table_id, "hand": self.hand_no,
            "players": self.players,
            "pending": [{"id": k, **v} for k, v in sorted(self.pending.items())],
        })
        view.update(self.part.public_extras())
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

    # -- the hand ----------------------------------------------------------------------------

    def start(self) -> None:
        """Begin the first hand if the log has none; finish at once a hand whose end a crash
        cut (its score, or the next hand, not yet logged), not at the next input."""
        if self.state is None:
            self._new_hand()
        else:
            self._resume_end()

    def _new_hand(self) -> list[dict[str, Any]]:
        """Begin the next hand; its records."""
        prevailing = Seat[self.prevailing] if self.prevailing else None
        state, events = self.family.new_hand("mirror", hand=self.hand_no + 1,
                                             prevailing=prevailing)
        self.state = state
        self.window.shut()
        return self.record(events)

    def apply(self, command: Command, now_us: int) -> list[dict[str, Any]]:
        """One command to the mirror, stamped with the table's time where the family logs it;
        raises the engine's refusal untouched. A hand it ends is settled."""
        assert self.state is not None
        command = self.part.stamped(command, now_us)
        self.state, events = self.family.apply(self.state, command)
        records = self.record(events, command)
        self.part.after(events, now_us)
        if self.family.ended(self.state):
            waiting = self.part.end_of_hand()
            records += self._finish_hand() if waiting is None else waiting
        return records

    def _scored_already(self) -> bool:
        """Whether the hand in play is on the scoresheet (a crash came between its score and
        the next hand: it must not be scored twice)."""
        return bool(self.hand_no and self.sheet and self.sheet[-1].get("hand") == self.hand_no)

    def _resume_end(self) -> list[dict[str, Any]]:
        """At a restart: a hand ended but not settled is settled now (or waits for what the
        family still needs); one settled gets its next hand."""
        if self.state is None or not self.family.ended(self.state):
            return []
        if self._scored_already():
            return self._new_hand()
        waiting = self.part.resume_end()
        return self._finish_hand() if waiting is None else waiting

    def moved_on(self) -> list[dict[str, Any]]:
        """An input while the hand in play is over: it is settled first (what it still
        awaited is not coming), or, settled, the next hand begins."""
        if self.state is not None and self.family.ended(self.state):
            return self._new_hand() if self._scored_already() else self._finish_hand()
        return []

    def _finish_hand(self) -> list[dict[str, Any]]:
        """The finished hand's scoresheet entry (the family settles it), then the next
        hand."""
        return self._book_scored(self.part.settle()) + self._new_hand()

    def _book_scored(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """A finished hand's ``HandScored``, a false Mah-jongg's penalty asked of the referee
        before it is booked (controller/penalties.py)."""
        records = self.record(table_events=penalties.hold(entry, self.next_pending))
        for record in records[1:]:  # the question
            self.cues.ask(record["seat"] or None)
            self.message(self.topics.prompts, record)
        return records

    def hand_moved(self) -> bool:
        """Whether the hand in play has moves beyond its deal (then it belongs to the game
        going on, and players are seated between hands)."""
        return bool(self.hand_no and any(
            r["type"] not in DEAL_RECORDS for r in self.store.events_of_hand(self.hand_no)))

    # -- the call window ---------------------------------------------------------------------

    def tick(self, now_us: int) -> list[dict[str, Any]]:
        """Close a call window that is over (:class:`~controller.call_window.CallWindow`): its
        courtesy pause, and the press latency after it."""
        if self.state is None:
            return []
        deadline = self.window.over(now_us)
        if deadline is None:
            return []
        if not self.part.closes_at_pause():
            self.part.stays_open()
            return []
        try:
            records = self.apply(self.part.closing(), now_us)
        except EngineError as exc:  # the engine's view wins; show it, lose nothing
            self.log.warning("closing the call window: %s", exc)
            self.cues.error()
            return []
        won = self.cues.last_won()  # timed from the window's end to the winner's LED
        self.window.decided(deadline, None if won is None else won.at_ns // 1000)
        return records

    def _close_before(self, command: Command, now_us: int) -> list[dict[str, Any]]:
        """Adjudicate the calls made before ``command`` shows the table moved on."""
        if self.state is not None and self.part.closes_before(command):
            return self.apply(self.part.closing(), now_us)
        return []

    def _close_for_late_press(self, press: Press, now_us: int) -> list[dict[str, Any]]:
        """A press made after the courtesy pause, arriving before the tick closed the window:
        the window closes first, as it would have at the tick, and the press is judged after."""
        at = self.window.closes_before(press.time_us, now_us)
        return [] if at is None else self.tick(at)

    # -- inputs ------------------------------------------------------------------------------

    def press(self, press: Press, now_us: int) -> Outcome:
        """A call button. The claim goes to the engine at once, stamped with its table time;
        a refusal lights the seat's "no" and is published with its rule."""
        if self.state is None:
            self.start()
        finished = self.moved_on() + self._close_for_late_press(press, now_us)
        try:
            records = self.apply(self.part.mirror.claim_for(press), now_us)
        except (RuleViolation, MalformedInput, InputError) as exc:
            refused = self.desk.refuse_press(press, *refusal_of(exc))
            refused.records[:0] = finished
            return refused
        return Outcome(True, finished + records)

    def observe(self, obs: Observation, now_us: int, ask: bool = True) -> Outcome:
        """Something the table showed. Applied if sure and lawful, otherwise held and asked.

        ``ask=False`` (the referee's own word): a refusal is returned, not held again."""
        if self.state is None:
            self.start()
        return self.part.observe(obs, now_us, self.desk.ask if ask else self.desk.refuse)

    def apply_observed(self, obs: Observation, now_us: int, refuse: Refuse) -> Outcome:
        """An observation made a command and applied, calls made before it adjudicated first;
        what the mirror cannot read or refuses goes to ``refuse`` (held and asked, or not)."""
        try:
            command = self.part.mirror.command_for(obs)
            records = self._close_before(command, now_us)
            records += self.apply(command, now_us)
        except (RuleViolation, MalformedInput, InputError) as exc:
            rule, reason = refusal_of(exc)
            return refuse(obs, reason, rule)
        return Outcome(True, records)

    def throw_dice(self, seat: str, now_us: int) -> Outcome:
        """Roll the LED dice for ``seat``; the throw is applied where the family follows it."""
        return self.part.throw_dice(seat, now_us)

    def next_thrower(self) -> str:
        """The seat whose dice throw the table expects next (the board's dice are his)."""
        return self.part.next_thrower()

    # -- the referee -------------------------------------------------------------------------

    def command(self, verb: str, payload: bytes, now_us: int) -> dict[str, Any]:
        """A ``cmd/<verb>`` message. Always answers on ``cmd/<verb>/result``; never raises."""
        return self.desk.command(verb, payload, now_us)

    def moves(self) -> list[dict[str, Any]]:
        """The hand's moves as ``cmd/moves`` lists them (controller/amendments.py)."""
        return self.part.moves()

    # -- what the camera's watcher and the simulated camera ask of the mirror ---------------

    def passing(self) -> set[str]:
        """The seats that owe a Charleston pass now (empty: none, or no Charleston)."""
        return self.part.passing()

    def showing_hands(self) -> dict[str, int]:
        """The seats that may be laying their hands out now, with how many tiles each lays
        (vision/observe.py). Read by the camera's thread: a stale answer costs one frame."""
        return self.part.showing_hands()

    def view_of(self, state: Any) -> dict[str, Any]:
        """The public view of a hand of this table's family: its mirror's, or a world's."""
        return self.family.public_view(state)

    def next_in_turn(self, state: Any, seat: Seat) -> Seat:
        return self.part.next_in_turn(state, seat)

    def throws_seen(self, state: Any) -> int | None:
        return self.part.throws_seen(state)

    def passes_taken(self) -> int:
        return self.part.passes_taken()

    def passes_waiting(self) -> int:
        return self.part.passes_waiting()

    def hand_shown_taken(self, seat: str) -> bool:
        return self.part.hand_shown_taken(seat)

    def won_on_draw_now(self) -> bool:
        return self.part.won_on_draw_now()

    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None:
        """The referee's ``cmd/correct`` body putting ``tile`` for ``seat``'s last discard of
        the hand in play (None: it has none)."""
        return self.part.amendment(seat, tile)

