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

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from controller.games import GAME_EVENTS
from controller.inputs import InputError, Observation, ObservationKind, Press
from controller.lights import LightLog
from controller.live_table import (
    HELD,
    SCORED,
    SETTLED,
    LiveTable,
    Outcome,
    TableSettings,
)
from controller.mirror import claim_for, command_for, observed_tiles, showing_hands
from controller.referee import Amend, CommandError, RefereeCommand, Roll
from controller.scoresheet import Scorer, hand_document, mahjong_declared, net_of
from controller.store import EventStore, dumps
from engine import commands as cm
from engine import events as ev
from engine.errors import MalformedInput, RuleViolation
from engine.family import family_for
from engine.game import HandState, rebuild
from engine.rules import get_ruleset
from engine.seats import Seat
from engine.tiles import copies_in_set, parse_tile, tile_name
from engine.wall import breaker

# After a Mah-jongg the others expose their hands and settle among themselves (Law 82): the
# table waits for them (``LosersAwaited``) and records each (``LoserHandShown``) before it
# scores the hand; the next hand's first input scores it with what was shown.
AWAITED = "LosersAwaited"
LOSER_SHOWN = "LoserHandShown"
TABLE_EVENTS = frozenset({HELD, SETTLED, SCORED, AWAITED, LOSER_SHOWN, *GAME_EVENTS})
ENVELOPE = ("seq", "hand", "ts")
# What the camera reports by the faces of its tiles: without any, it saw the tiles land but
# could not read them (vision/observe.py), and the table asks for them.
TILES_SHOWN = frozenset({
    ObservationKind.DISCARD, ObservationKind.FLOWER, ObservationKind.EXPOSURE,
    ObservationKind.HAND_SHOWN,
})

__all__ = [
    "AWAITED", "ENVELOPE", "HELD", "LOSER_SHOWN", "SCORED", "SETTLED", "TABLE_EVENTS",
    "CommandError", "Outcome", "Table", "TableSettings",
]


class Table(LiveTable):
    FIRST_PREVAILING = "E"

    awaiting: list[str]  # after a Mah-jongg, the others in turn whose hands are to be shown
    losers_shown: dict[str, list[str]]  # and those shown, by seat

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
        self.family = family_for(settings.ruleset)
        self._setup(settings, store, lights, on_append, wallclock)
        self.scorer = scorer
        self.roll = roll
        self.state: HandState | None = None
        self._reset()
        self.since_snapshot = 0
        self.recover()

    # -- recovery: the state is a fold of the log ------------------------------------------

    def _service_state(self) -> dict[str, Any]:
        return {
            "hand": self.hand_no,
            **self.scorekeeper.snapshot(),
            "pending": {str(k): v for k, v in self.pending.items()},
            "next_pending": self.next_pending,
            "awaiting": self.awaiting,
            "losers_shown": self.losers_shown,
        }

    def _load_service(self, svc: Mapping[str, Any]) -> None:
        self.hand_no = int(svc["hand"])
        self.scorekeeper.load(svc)
        self.pending = {int(k): v for k, v in svc["pending"].items()}
        self.next_pending = int(svc["next_pending"])
        self.awaiting = list(svc.get("awaiting", []))
        self.losers_shown = {k: list(v) for k, v in svc.get("losers_shown", {}).items()}

    def _reset(self) -> None:
        super()._reset()
        self.awaiting = []
        self.losers_shown = {}

    def _fold(self, record: Mapping[str, Any]) -> None:
        """The table-level effect of one logged event (the engine folds its own)."""
        kind = record["type"]
        if kind == "HandEnded":
            if not record["east_stays"]:
                self.scorekeeper.east_passes()
            if record.get("next_prevailing"):
                self.scorekeeper.prevailing = record["next_prevailing"]
        elif kind == AWAITED:
            self.awaiting = list(record["seats"])
            self.losers_shown = {}
        elif kind == LOSER_SHOWN:
            self.losers_shown[record["seat"]] = list(record["tiles"])
        else:
            if kind == SCORED:
                self.awaiting, self.losers_shown = [], {}
            self._fold_table(kind, record)

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
            self.window.open_at_restart(self.state.window_opened_us)

    # -- recording ---------------------------------------------------------------------------

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
                    "opened_us": event.opened_us,  # the window on the table's clock
                    "closed_us": event.closed_us,
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
        self.since_snapshot += len(records)
        snapshot = None
        if self.since_snapshot >= self.settings.snapshot_every or any(
            r["type"] == "HandStarted" for r in records
        ):
            snapshot = (self.seq, self._service_state())
            self.since_snapshot = 0
        return self._store(records, messages, snapshot)

    def _record_table(self, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self._record([], bodies)

    # -- the game --------------------------------------------------------------------------

    def _record_events(self, events: Sequence[ev.Event]) -> list[dict[str, Any]]:
        return self._record(list(events))

    def _apply(self, command: cm.Command, now_us: int) -> list[dict[str, Any]]:
        """Apply one command to the mirror; raises RuleViolation/MalformedInput untouched."""
        assert self.state is not None
        if getattr(command, "time_us", 0) is None:
            # The table's time on every command of play: the log then shows when each call
            # window opened and closed, beside each press's own time (docs/engine-api.md).
            command = replace(command, time_us=now_us)  # type: ignore[type-var]
        self.state, events = self.family.apply(self.state, command)
        records = self._record(list(events))
        self._after(events, now_us)
        if self.state.phase == "ended":
            records += self._end_of_hand()
        return records

    def _end_of_hand(self) -> list[dict[str, Any]]:
        """Score the hand now, or, after a Mah-jongg where the others settle among themselves
        (Law 82), wait for their hands first."""
        state = self.state
        assert state is not None
        if (
            state.result != "mahjong"
            or state.winner is None
            or not self.settings.options.get("losers_settle", True)
        ):
            return self._finish_hand()
        # Each of the others in turn to the right (Law 82).
        seats = [seat.name for seat in state.others_in_turn(state.winner)]
        return self._record_table([{"type": AWAITED, "seats": seats}])

    def _shown_before(self, seat: str | None) -> list[str] | None:
        """The tiles (sorted tokens) ``seat`` showed at the end of this hand, if any."""
        state = self.state
        assert state is not None
        if seat in self.losers_shown:
            return sorted(self.losers_shown[seat])
        if state.winner is not None and state.winner.name == seat:
            declared = mahjong_declared(state)
            if declared is not None:
                return sorted(tile_name(t) for t in declared.concealed)
        return None

    def _moved_on(self) -> list[dict[str, Any]]:
        """An input that is not a hand awaited: a hand still ended (its others' hands
        awaited) is scored first."""
        if self.state is not None and self.state.phase == "ended":
            return self._new_hand() if self._scored_already() else self._finish_hand()
        return []

    def _resume_end(self) -> list[dict[str, Any]]:
        """At a restart: a hand ended but not scored is scored now (or, after a Mah-jongg,
        the others' hands are awaited first, Law 82); one scored gets its next hand."""
        if self.state is None or self.state.phase != "ended":
            return []
        if self._scored_already():
            return self._new_hand()
        if not self.awaiting:
            return self._end_of_hand()
        if all(seat in self.losers_shown for seat in self.awaiting):
            return self._finish_hand()
        return []  # the others' hands are still awaited (Law 82)

    def _loser_shown(
        self, obs: Observation, now_us: int, refuse: Callable[..., Outcome]
    ) -> Outcome:
        """One of the others' hands, exposed after the Mah-jongg (Law 82)."""
        state = self.state
        assert state is not None and obs.seat is not None
        if obs.confidence < self.settings.min_confidence:
            return refuse(obs, self._too_unsure(obs))
        try:
            tiles = observed_tiles(obs)
        except InputError as exc:
            return refuse(obs, str(exc))
        held = state.seats[Seat[obs.seat]].n
        if len(tiles) != held:
            return refuse(obs, f"hand_shown.tiles: {obs.seat} holds {held} tiles, "
                               f"the hand shown has {len(tiles)}")
        seen = list(state.seen)
        for other in self.losers_shown.values():
            for token in other:
                seen[parse_tile(token)] += 1
        for t in tiles:
            seen[t] += 1
            if seen[t] > copies_in_set(t, state.ruleset.tiles):
                return refuse(obs, f"hand_shown.tiles: more {tile_name(t)} on the table than "
                                   "the set holds")
        records = self._record_table(
            [{"type": LOSER_SHOWN, "seat": obs.seat, "tiles": [tile_name(t) for t in tiles]}]
        )
        if all(seat in self.losers_shown for seat in self.awaiting):
            records += self._finish_hand()
        return Outcome(True, records)

    def _after(self, events: Sequence[ev.Event], now_us: int) -> None:
        """The call window and the LEDs follow what just happened."""
        assert self.state is not None
        for event in events:
            if isinstance(event, ev.Discarded | ev.KongAdded):
                self.window.open(now_us)
                self.cues.window_opened()
            elif isinstance(event, ev.ClaimMade):
                self.window.reopen(now_us)  # a late claim (Law 53) reopens it
                self.cues.call_heard(event.seat.name)
            elif isinstance(event, ev.ClaimsClosed):
                self.window.shut()
                winner = None if event.winner is None else event.winner.name
                self.cues.window_decided(winner, (c.split(":")[0] for c in event.claims))
                if winner is None:
                    self.cues.turn(self.state.turn.name)
            elif isinstance(event, ev.Drew):
                if not event.loose:
                    self.window.shut()
                self.cues.turn(event.seat.name)
                if self.state.live_left() <= 1:
                    self.cues.last_tile(event.seat.name)
            elif isinstance(event, ev.WallBroken):
                self.cues.wall_broken(event.wall_of.name, event.stack)
            elif isinstance(event, ev.HandEnded):
                self.window.shut()
                self.cues.hand_over(None if event.winner is None else event.winner.name)

    def _finish_hand(self) -> list[dict[str, Any]]:
        """Score the finished hand onto the sheet, then open the next hand."""
        assert self.state is not None
        state = self.state
        winner = None if state.winner is None else state.winner.name
        players = self.players_before_rotation(state)
        result = self.score(state, self.losers_shown)
        if result is None:
            entry = self.scorekeeper.entry(state.result, winner, state.end_rule, players)
        else:
            net = net_of(result)
            error = str(result.get("error", "not scored")) if net is None else None
            entry = self.scorekeeper.entry(state.result, winner, state.end_rule, players, net,
                                           result.get("payments", []), result, error)
        records = self._record([], [entry])
        return records + self._new_hand()

    def score(
        self, state: HandState, shown: Mapping[str, list[str]]
    ) -> dict[str, Any] | None:
        """The scorer's result for a finished hand and the others' hands ``shown`` (Law
        82); None for a hand not won, or a table without a scorer."""
        doc = hand_document(state, self.settings.options, shown)
        if doc is None or self.scorer is None:
            return None
        if self.settings.scoring:
            doc["ruleset"] = self.settings.scoring
        return self.scorer(doc)

    def players_before_rotation(self, state: HandState) -> dict[str, str]:
        # _fold has already rotated the seats if East passed: undo that for this hand's names.
        if state.east_stays is False:
            return self.scorekeeper.players_before_east_passed()
        return dict(self.players)

    # -- inputs ----------------------------------------------------------------------------

    def press(self, press: Press, now_us: int) -> Outcome:
        """A call button. The claim goes to the engine at once, stamped with its table time;
        a refusal lights the seat's "no" and is published with its rule."""
        if self.state is None:
            self.start()
        finished = self._moved_on() + self._close_for_late_press(press, now_us)
        command = claim_for(press)
        try:
            records = self._apply(command, now_us)
        except RuleViolation as exc:
            refused = self._refuse_press(press, exc.rule, exc.message)
        except MalformedInput as exc:
            refused = self._refuse_press(press, "", str(exc))
        else:
            return Outcome(True, finished + records)
        refused.records[:0] = finished
        return refused

    def observe(self, obs: Observation, now_us: int, ask: bool = True) -> Outcome:
        """Something the table showed. Applied if sure and lawful, otherwise held and asked.

        ``ask=False`` (the referee's own word): a refusal is returned, not held again."""
        if self.state is None:
            self.start()
        refuse = self._ask if ask else self._refuse
        assert self.state is not None
        if obs.kind is ObservationKind.HAND_SHOWN and self.state.phase == "ended":
            if obs.seat in self.awaiting and obs.seat not in self.losers_shown:
                return self._loser_shown(obs, now_us, refuse)
            # A hand shown already, seen again (the camera lost and found its tiles): the
            # same is nothing new; another is asked. Neither moves the table on.
            before = self._shown_before(obs.seat)
            if before is not None and sorted(obs.tiles) == before:
                return Outcome(True)
            return refuse(obs, f"hand_shown: the hand is over and {obs.seat}'s hand was "
                               f"shown as {' '.join(before or []) or 'nothing'}")
        finished = self._moved_on()
        outcome = self._observe(obs, now_us, refuse)
        outcome.records[:0] = finished
        return outcome

    def _observe(
        self, obs: Observation, now_us: int, refuse: Callable[..., Outcome]
    ) -> Outcome:
        if obs.kind is ObservationKind.DICE and obs.seat is None:
            # The camera sees dice, not hands: it is the throw of whoever throws next.
            obs = replace(obs, seat=self.next_thrower())
        if obs.kind is not ObservationKind.DICE and obs.confidence < self.settings.min_confidence:
            return refuse(obs, self._too_unsure(obs))
        if obs.kind is ObservationKind.HAND_SHOWN and obs.source == "vision":
            false = self._false_reading(obs)
            if false is not None:
                # One misread tile would turn a win into a false Mah-jongg and its penalty
                # (Code 1924, Law 86; each family has its own): only the table's word may.
                return refuse(obs, f"the camera read a hand that is no Mah-jongg: {false[1]}",
                              false[0])
        return self._apply_observed(obs, command_for, now_us, refuse)

    def _too_unsure(self, obs: Observation) -> str:
        if not obs.tiles and obs.kind in TILES_SHOWN:
            return f"{obs.kind}: the camera saw it but could not read its tiles"
        return f"confidence {obs.confidence:.2f} is below {self.settings.min_confidence}"

    def _false_reading(self, obs: Observation) -> tuple[str, str] | None:
        """``(rule, reason)`` if the hand the observation shows, applied now, would be a
        false Mah-jongg (tried on a copy of the mirror; nothing changes)."""
        assert self.state is not None
        trial = self.state.copy()
        try:
            command = command_for(obs)
            if _closes_window_first(trial, command):
                trial, _ = self.family.apply(trial, cm.CloseClaims())
            _, events = self.family.apply(trial, command)
        except (InputError, RuleViolation, MalformedInput):
            return None  # refused either way: the ordinary path says why
        false = next((e for e in events if isinstance(e, ev.FalseMahjong)), None)
        return None if false is None else (false.rule, false.reason)

    def public_state(self) -> dict[str, Any]:
        view = super().public_state()
        if self.awaiting:  # after a Mah-jongg, the others' hands (Law 82)
            view["hands_awaited"] = [s for s in self.awaiting if s not in self.losers_shown]
            view["hands_shown"] = dict(self.losers_shown)
        return view

    def showing_hands(self) -> dict[str, int]:
        """The seats that may be laying their hands out now, with how many tiles each hand
        holds (:func:`controller.mirror.showing_hands`). Read by the camera's thread: a stale
        answer costs one frame's context."""
        if self.state is None:
            return {}
        return showing_hands(self.state, [s for s in self.awaiting if s not in self.losers_shown])

    def _closing(self) -> cm.Command:
        return cm.CloseClaims()

    def _closes_before(self, command: cm.Command) -> bool:
        """A draw or a laid set shows the table has moved on: claims made before it are
        adjudicated first (the window closes on the next player's action)."""
        return self.state is not None and _closes_window_first(self.state, command)

    def _closes_at_pause(self) -> bool:
        """With claims made, the pause ends the window. Without, it ends it only where the
        family does not keep the discard claimable after the next draw (Law 53), or when no
        draw can follow (the last discard of a drawn hand)."""
        state = self.state
        assert state is not None
        return state.phase == "rob" or (
            state.phase == "claims"
            and (
                bool(state.claims)
                or not state.ruleset.claims_after_next_draw
                or (state.need_draw and state.live_left() <= 0)
            )
        )

    def _stays_open(self) -> None:
        assert self.state is not None
        self.cues.turn(self.state.turn.name)

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

    # -- what the simulated camera asks of the mirror ----------------------------------------

    def next_in_turn(self, state: HandState, seat: Seat) -> Seat:
        return state.others_in_turn(seat)[0]

    def throws_seen(self, state: HandState) -> int | None:
        return len(state.throws)

    def hand_shown_taken(self, seat: str) -> bool:
        """The winner's ends the hand, the others' (Law 82) are recorded."""
        state = self.state
        if state is None or state.phase != "ended":
            return False
        return seat in self.losers_shown or (
            state.winner is not None and state.winner.name == seat)

    def won_on_draw_now(self) -> bool:
        return self.state is not None and self.state.phase == "play"

    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None:
        """The engine's Correct of the seat's last discard: ``at`` its standing index."""
        standing = [] if self.state is None else self.state.standing
        last = next((i for i in range(len(standing) - 1, -1, -1)
                     if isinstance(standing[i], ev.Discarded)
                     and standing[i].seat.name == seat), None)  # type: ignore[attr-defined]
        if last is None:
            return None
        return {"at": last, "command": {"type": "Discard", "seat": seat, "tile": tile},
                "reason": "referee: the camera misread it"}

    # -- referee commands --------------------------------------------------------------------

    VERBS = ("claim", "confirm", "correct", "dismiss", "observe", "roll", "status")

    def _table_command(self, command: RefereeCommand, now_us: int) -> dict[str, Any]:
        match command:
            case Roll(seat=seat):
                return self._outcome(self.throw_dice(seat, now_us))
            case Amend() as amend:
                return self._amend(amend, now_us)
        return super()._table_command(command, now_us)

    def _held(self, pid: int) -> Observation | None:
        return Observation.from_json(self.pending[pid], "held")

    def _certain(self, obs: Observation) -> Observation:
        # A referee's word is certain: it is applied at full confidence.
        return Observation(
            obs.kind, obs.seat, obs.tiles, 1.0, obs.time_us, obs.zone, obs.dice,
            "referee", obs.winning,
        )

    def _amend(self, amend: Amend, now_us: int) -> dict[str, Any]:
        """``{"at": n, "command": {...} | null, "reason": "..."}``: the engine's Correct of
        event ``at`` of this hand's record."""
        raw = amend.command
        command = None if raw is None else cm.command_from_json(raw, "command")
        correct = cm.Correct(at=amend.at, command=command, reason=amend.reason)
        records = self._apply(correct, now_us)
        return {"ok": True, "seq": self.seq, "events": [r["type"] for r in records]}


def _closes_window_first(state: HandState, command: cm.Command) -> bool:
    """Whether the call window must be closed (its claims adjudicated) before ``command``: the
    kong's owner going on (its loose tile) shows nobody robbed it (Law 90); a draw, a laid set,
    a Mah-jongg or a discard shows the table has moved on past the claims made."""
    if state.phase == "rob":
        return True
    moving_on = isinstance(command, cm.Draw | cm.Expose | cm.DeclareMahjong | cm.Discard)
    return moving_on and state.phase == "claims" and bool(state.claims)
