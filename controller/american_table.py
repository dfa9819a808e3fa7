"""The American table: an American hand mirrored through ``engine.american`` and adjudicated live.

The same service contract as :class:`controller.table.Table` (inputs with the table time, every
accepted event sequenced and stored with its MQTT messages in one transaction, the state a fold
of the log, held observations settled by a referee), over the American engine. Differences:

- the American engine is rebuilt from the commands that were accepted, not from its events, so
  each stored record keeps the command that caused it (never published);
- a record's ``private`` part (tiles face down, the engine's dead-hand evidence) is stored but
  never published: concealed tiles never leave the table (American DH-4, M-1);
- the call window (C-5): a discard opens it; the next player's draw or a Joker exchange closes
  it (the engine does that); with calls made it closes after the courtesy pause and the engine
  adjudicates by C-9.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from controller.amendments import shown_command
from controller.american_mirror import claim_for, command_for
from controller.inputs import InputError, Observation, ObservationKind, Press
from controller.lights import LightLog
from controller.live_table import (
    SCORED,
    LiveTable,
    Outcome,
    TableSettings,
)
from controller.mqtt import Topics
from controller.published import Published, table_event_messages
from controller.referee import Amend, Challenge, CommandError, RefereeCommand
from controller.store import EventStore, dumps
from engine.american import commands as am
from engine.american import events as ev
from engine.american.compiled import CompiledCard
from engine.american.events import AmericanEvent
from engine.american.family import options_for
from engine.american.game import AmericanHand, AmericanOptions, apply, new_hand
from engine.commands import Command
from engine.errors import MalformedInput, RuleViolation
from engine.events import Event
from engine.family import family_for
from engine.messages import COMMANDS
from engine.seats import Seat

PUBLIC_KEYS = ("seq", "hand", "ts", "type", "seat", "public", "time_us")
# A referee's amendment of an accepted command (``cmd/correct`` with ``at``): the record keeps
# both, and the hand is rebuilt with the command replaced or struck out.
AMENDED = "Amended"


class AmericanTable(LiveTable):
    log = logging.getLogger("mjtable.american")
    VERBS = ("challenge", "claim", "confirm", "correct", "dismiss", "observe", "status")

    def __init__(
        self,
        settings: TableSettings,
        store: EventStore,
        lights: LightLog | None = None,
        on_append: Callable[[], None] | None = None,
        card: CompiledCard | None = None,
        wallclock: Callable[[], float] = time.time,
    ) -> None:
        if card is None:
            from config.cards import card_at

            card = card_at(settings.card)
        self.card = card
        self.options = options_for(settings.ruleset, self.card)  # unknown name: ValueError
        self.family = family_for(settings.ruleset, self.card)
        self._setup(settings, store, lights, on_append, wallclock)
        self.state: AmericanHand | None = None
        self.recover()

    # -- recovery: the state is a fold of the log ------------------------------------------

    def _fold(self, record: Mapping[str, Any]) -> None:
        kind = record["type"]
        self._fold_table(kind, record)
        if kind == SCORED and record.get("result") in ("mahjong", "wall"):
            # "After each hand, whether won or a wall game, the East seat and the dice pass
            # to the right" (seed 002, Choosing East); a hand thrown in is dealt again.
            self.scorekeeper.east_passes()

    def recover(self) -> None:
        """Back to exactly the state the log describes: the hand's accepted commands, applied
        again to a fresh mirror."""
        self._reset()
        for record in self.store.events(0):
            self._fold(record)
        self.seq = self.store.last_seq()
        if not self.hand_no:
            return
        self.state = state = rebuild_hand(self.store, self.hand_no, self.card, self.options)
        if state.result is None and state.step == "window":
            self.window.open_at_restart(state.live.opened_us if state.live else None)

    # -- recording ---------------------------------------------------------------------------

    def _envelope(self) -> dict[str, Any]:
        self.seq += 1
        return {"seq": self.seq, "hand": self.hand_no, "ts": self._ts()}

    def _record(
        self,
        events: Sequence[AmericanEvent],
        command: Command | None = None,
        table_events: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        messages: list[tuple[str, bytes, int | None]] = []
        for i, event in enumerate(events):
            if isinstance(event, ev.HandStarted):
                self.hand_no += 1
            env = self._envelope()
            record: dict[str, Any] = {
                **env, "type": event.kind,
                "seat": None if event.seat is None else event.seat.name,
                "public": event.public, "private": event.private,
            }
            if i == 0 and command is not None:
                record["command"] = command.to_json()
                if isinstance(command, am.Call) and command.time_us is not None:
                    record["time_us"] = command.time_us  # the board's time of the press (C-9)
            records.append(record)
            public = {k: record[k] for k in PUBLIC_KEYS if k in record}
            messages.append((self.topics.events, dumps(public).encode(), env["seq"]))
            if isinstance(event, ev.WindowClosed):  # the C-9 decision, with its rule
                decision = {"seq": env["seq"], "hand": self.hand_no, "type": "decision",
                            **(event.public or {})}
                messages.append((self.topics.adjudications, dumps(decision).encode(), None))
        for body in table_events or []:
            env = self._envelope()
            record = {**env, **body}
            records.append(record)
            messages.append((self.topics.events, dumps(record).encode(), env["seq"]))
        for record in records:
            self._fold(record)
        snapshot = (self.seq, {"hand": self.hand_no}) if any(
            r["type"] == "HandStarted" for r in records) else None
        return self._store(records, messages, snapshot)

    def _record_table(self, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self._record([], table_events=bodies)

    # -- the game --------------------------------------------------------------------------

    def _record_events(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        return self._record(_american(events))

    def _apply(self, command: Command, now_us: int) -> list[dict[str, Any]]:
        assert self.state is not None
        if isinstance(command, am.Discard | am.CloseWindow) and command.time_us is None:
            command = replace(command, time_us=now_us)  # the window's opening and closing
        self.state, caused = self.family.apply(self.state, command)
        events = _american(caused)
        records = self._record(events, command)
        self._after(events, now_us)
        if self.state.result is not None:
            records += self._finish_hand()
        return records

    def _after(self, events: Sequence[AmericanEvent], now_us: int) -> None:
        """The call window and the LEDs follow what just happened."""
        for event in events:
            if isinstance(event, ev.Discarded):
                self.window.open(now_us)
                self.cues.window_opened()
            elif isinstance(event, ev.CallMade):
                self.cues.call_heard(event.seat.name)
            elif isinstance(event, ev.WindowClosed):
                self.window.shut()
                winner = None if event.winner is None else event.winner.name
                self.cues.window_decided(winner, (c.split(":")[0] for c in event.claims))
            elif isinstance(event, ev.Drew):
                self.window.shut()
                self.cues.turn(event.seat.name)
            elif isinstance(event, ev.HandEnded):
                self.window.shut()
                self.cues.hand_over(None)

    def _resume_end(self) -> list[dict[str, Any]]:
        """At a restart: a hand settled but not on the scoresheet is booked now; one booked
        gets its next hand."""
        if self.state is None or self.state.result is None:
            return []
        return self._new_hand() if self._scored_already() else self._finish_hand()

    def _finish_hand(self) -> list[dict[str, Any]]:
        """The scoresheet entry (the League's payments, settled by the engine), then the next
        hand."""
        assert self.state is not None and self.state.result is not None
        result = self.state.result
        net = {str(k): int(v) for k, v in (result.get("net") or {}).items()}
        entry = self.scorekeeper.entry(result["result"], result.get("winner"),
                                       result.get("rule"), self.players, net,
                                       result.get("payments", []), result)
        return self._book_scored(entry) + self._new_hand()

    # -- inputs ----------------------------------------------------------------------------

    def press(self, press: Press, now_us: int) -> Outcome:
        if self.state is None:
            self.start()
        closed = self._close_for_late_press(press, now_us)
        try:
            records = self._apply(claim_for(press), now_us)
        except (RuleViolation, MalformedInput, InputError) as exc:
            refused = self._refuse_press(press, getattr(exc, "rule", ""), str(exc))
            refused.records[:0] = closed
            return refused
        return Outcome(True, closed + records)

    def observe(self, obs: Observation, now_us: int, ask: bool = True) -> Outcome:
        if self.state is None:
            self.start()
        if obs.kind is ObservationKind.DICE:
            self.last_dice = obs.dice  # the deal is counted, not followed stack by stack
            return Outcome(True)
        if obs.kind is ObservationKind.DEAL:
            return Outcome(True)
        state = self.state
        if obs.kind is ObservationKind.JOKER_EXCHANGE and obs.seat is None and state is not None:
            # The camera sees the natural go in for the Joker, not whose hand put it there:
            # it is the player whose turn it is (exchanges are made on one's own turn, J-5).
            obs = replace(obs, seat=state.turn.name)
        refuse = self._ask if ask else self._refuse
        if obs.confidence < self.settings.min_confidence:
            return refuse(obs, f"confidence {obs.confidence:.2f} is below "
                          f"{self.settings.min_confidence}")
        return self._apply_observed(obs, command_for, now_us, refuse)

    def passing(self) -> set[str]:
        """The seats that have not yet passed on this pass of the Charleston (CH-2): the
        camera counts the backs each lays before it (vision/observe.py)."""
        state = self.state
        if state is None or state.phase != "charleston" or state.result is not None:
            return set()
        return {seat.name for seat in state.players if seat not in state.pending}

    def showing_hands(self) -> dict[str, int]:
        """The seats that may be laying their hands out for Mah Jongg (M-1), each with the
        tiles it lays: one that alone called the discard for Mah Jongg or was awarded it, its
        concealed tiles and the discard; the turn's seat once it has drawn, its concealed
        tiles. Read by the camera's thread: a stale answer costs one frame's context."""
        state = self.state
        if state is None or state.phase != "play" or state.result is not None:
            return {}
        count = {seat.name: rack.count for seat, rack in state.racks.items() if not rack.out}
        if state.step == "window":
            callers = {c.seat.name for c in state.calls if c.kind == "mahjong"}
            return {s: count[s] + 1 for s in callers if s in count} if len(callers) == 1 else {}
        if state.step == "awarded" and state.awarded is not None:
            seat, kind = state.awarded
            return {seat.name: count[seat.name] + 1} if kind == "mahjong" else {}
        if state.step == "discard" and state.turn.name in count:
            return {state.turn.name: count[state.turn.name]}
        return {}

    def _closing(self) -> Command:
        return am.CloseWindow()

    def _closes_before(self, command: Command) -> bool:
        """An exposure, a Mah Jongg shown or a discard shows the table moved on: the calls made
        are adjudicated first (C-5, C-9)."""
        state = self.state
        moving_on = isinstance(command, am.Expose | am.DeclareMahJongg | am.Discard | am.Draw)
        return moving_on and state is not None and state.step == "window" and bool(state.calls)

    def _closes_at_pause(self) -> bool:
        """The courtesy pause is over: with calls made, the window closes and C-9 decides; the
        last discard of the wall closes it too (W-1). Otherwise the next player's draw does."""
        state = self.state
        assert state is not None
        return state.step == "window" and bool(state.calls or state.wall_left <= 0)

    def _stays_open(self) -> None:
        """Until the next player's draw closes it (C-5): the players see nothing new."""

    def throw_dice(self, seat: str, now_us: int) -> Outcome:
        self.last_dice = (secrets.randbelow(6) + 1, secrets.randbelow(6) + 1)
        return Outcome(True)

    def next_thrower(self) -> str:
        return "E"  # East throws to break the wall ("Breaking the wall")

    # -- what the simulated camera asks of the mirror ----------------------------------------

    def next_in_turn(self, state: AmericanHand, seat: Seat) -> Seat:
        return state.next_player(seat)

    def passes_taken(self) -> int:
        state = self.state
        if state is None:
            return 0
        return state.passes_made * len(state.players) + len(state.pending)

    def passes_waiting(self) -> int:
        return 0 if self.state is None else len(self.state.pending)

    def hand_shown_taken(self, seat: str) -> bool:
        """The Mah Jongg shown ends the hand (M-1)."""
        result = None if self.state is None else self.state.result
        return result is not None and result.get("winner") == seat

    def won_on_draw_now(self) -> bool:
        return self.state is not None and self.state.step == "discard"

    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None:
        """The amendment of the seat's last discard: ``at`` its event's seq."""
        discards = [r for r in self.store.events_of_hand(self.hand_no)
                    if r["type"] == "Discarded" and r["seat"] == seat and r.get("command")]
        if not discards:
            return None
        return {"at": discards[-1]["seq"], "command": {**discards[-1]["command"], "tile": tile},
                "reason": "referee: the camera misread it"}

    # -- referee commands --------------------------------------------------------------------

    def _table_command(self, command: RefereeCommand, now_us: int) -> dict[str, Any]:
        match command:
            case Challenge(seat=seat, target=target):
                # A seat calls another's hand dead (DH-1); the engine upholds it on visible
                # evidence (DH-3) or records it disputed until the tiles are shown (DH-6).
                records = self._apply(am.Challenge(Seat[seat], Seat[target]), now_us)
                return self._outcome(Outcome(True, records))
            case Amend() as amend:
                return self._amend(amend)
        return super()._table_command(command, now_us)

    def _amend(self, amend: Amend) -> dict[str, Any]:
        """``{"at": seq, "command": {...} | null, "reason": "..."}``: the command accepted with
        event ``seq`` of the hand in play (a discard the camera misread, say) is replaced by
        ``command`` (or struck out). The hand is rebuilt from its commands with the change;
        if a later one becomes illegal, the correction is refused and nothing changes."""
        at, raw = amend.at, amend.command
        if raw is not None:
            _decode(raw, "command")
        state = self.state
        if state is None or state.result is not None:
            raise CommandError("at", "no hand is in play")
        if not any(r["seq"] == at and r.get("command") is not None
                   for r in self.store.events_of_hand(self.hand_no)):
            raise CommandError("at", f"event {at} is not a move of hand {self.hand_no}'s")
        try:
            rebuilt = rebuild_hand(self.store, self.hand_no, self.card, self.options,
                                   {at: raw})
        except RuleViolation as exc:
            return {"ok": False, "error": f"with the correction, a move is refused: {exc}",
                    "rule": exc.rule, "where": "command"}
        except MalformedInput as exc:  # a command of another family's engine
            raise CommandError("command", str(exc)) from None
        if rebuilt.result is not None:
            return {"ok": False, "error": "with the correction the hand would be over: settle "
                    "it at the table", "where": "command"}
        self.state = rebuilt
        # Not "command": a record's command is a move the rebuild applies in its place.
        records = self._record_table([{"type": AMENDED, "at": at, "replacement": raw,
                                       "reason": amend.reason}])
        return {"ok": True, "seq": self.seq, "events": [r["type"] for r in records]}

    def published(self, record: Mapping[str, Any]) -> list[tuple[str, bytes]]:
        return american_messages(record, self.topics)

    def moves(self) -> list[dict[str, Any]]:
        return american_moves(self.store.events_of_hand(self.hand_no)) if self.hand_no else []

    def _certain(self, obs: Observation) -> Observation:
        return replace(obs, confidence=1.0, source="referee")  # the referee's word is certain


def rebuild_hand(store: EventStore, hand: int, card: CompiledCard,
                 options: AmericanOptions,
                 amend: Mapping[int, Mapping[str, Any] | None] | None = None) -> AmericanHand:
    """A hand of the log rebuilt: a fresh mirror given every command the table accepted, as
    the referee amended them (``Amended`` records, then ``amend``: seq to the command that
    replaces its own, None to strike it out)."""
    records = store.events_of_hand(hand)
    replaced: dict[int, Mapping[str, Any] | None] = {
        int(r["at"]): r.get("replacement") for r in records if r["type"] == AMENDED
    }
    replaced.update(amend or {})
    state, _ = new_hand(card, options, "mirror")
    for record in records:
        raw = replaced.get(record["seq"], record.get("command"))
        if raw is not None and record.get("command") is not None:
            state, _ = apply(state, _decode(raw, f"seq {record['seq']}: command"))
    return state


def _american(events: Sequence[Event]) -> list[AmericanEvent]:
    out = [e for e in events if isinstance(e, AmericanEvent)]
    assert len(out) == len(events), "the American family's events are American"
    return out


def _decode(raw: Any, where: str) -> Command:
    command = COMMANDS.decode(raw, where)
    if not isinstance(command, Command):
        raise MalformedInput(where, "not a command")
    return command


def american_messages(record: Mapping[str, Any], topics: Topics) -> Published:
    """An American record (controller/american_table.py): its public keys, and a closed call
    window's C-9 decision on ``adjudications``."""
    if "public" not in record:  # the table's own events carry no public/private parts
        return table_event_messages(record, topics)
    out = [(topics.events,
            dumps({k: record[k] for k in PUBLIC_KEYS if k in record}).encode())]
    if record["type"] == "WindowClosed":
        out.append((topics.adjudications, dumps({
            "seq": record["seq"], "hand": record["hand"], "type": "decision",
            **(record.get("public") or {})}).encode()))
    return out


def american_moves(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The moves the table accepted this hand, each as the referee amended it last (a move
    struck out is gone)."""
    records = list(records)
    replaced: dict[int, Any] = {int(r["at"]): r.get("replacement")
                                for r in records if r.get("type") == "Amended"}
    moves = []
    for record in records:
        command = record.get("command")
        if command is None:
            continue
        seq = int(record["seq"])
        command = replaced.get(seq, command)
        if command is None:
            continue
        moves.append({"at": seq, "seat": record.get("seat"), "type": command.get("type"),
                      "command": shown_command(command, bool(record.get("private")))})
    return moves
