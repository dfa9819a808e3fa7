"""The classical families' part of the table (Code of 1924, Pung-Chow, Classical and the
scoring presets that play as them): :class:`controller.family_part.FamilyPart`.

What is theirs: the dice the table follows throw by throw (Laws 15-16), the call window that a
late claim reopens where the book keeps the discard claimable after the next draw (Law 53), a
camera's reading of a hand that would make a false Mah-jongg held for the table's word (Law
86), the others' hands shown after a Mah-jongg before the hand is scored (Law 82), and each
won hand scored by the engine's scorer on the `mjtable score` document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from controller.amendments import classical_moves
from controller.families.classical_mirror import ClassicalMirror, command_for
from controller.families.classical_mirror import showing_hands as hands_showing
from controller.family_part import Outcome, Refuse, TableHost
from controller.inputs import InputError, Observation, ObservationKind
from controller.mirror import observed_tiles
from controller.referee import Amend, RefereeCommand, Roll
from controller.referee_desk import answer_of, unknown
from controller.scoresheet import Scorer, hand_document, mahjong_declared, net_of
from engine import commands as cm
from engine import events as ev
from engine.errors import MalformedInput, RuleViolation
from engine.family import Classical
from engine.game import HandState
from engine.seats import Seat
from engine.tiles import copies_in_set, parse_tile, tile_name
from engine.wall import breaker

AWAITED = "LosersAwaited"
LOSER_SHOWN = "LoserHandShown"
SCORED = "HandScored"
# What the camera reports by the faces of its tiles: without any, it saw the tiles land but
# could not read them (vision/observe.py), and the table asks for them.
TILES_SHOWN = frozenset({
    ObservationKind.DISCARD, ObservationKind.FLOWER, ObservationKind.EXPOSURE,
    ObservationKind.HAND_SHOWN,
})


class ClassicalPart:
    verbs = ("claim", "confirm", "correct", "dismiss", "observe", "roll", "status")
    first_prevailing: str | None = "E"
    mirror = ClassicalMirror()

    def __init__(self, table: TableHost, family: Classical, scorer: Scorer | None,
                 roll: Callable[[], int]) -> None:
        self.table = table
        self.family = family
        self.scorer = scorer
        self.roll = roll
        self.awaiting: list[str] = []  # after a Mah-jongg, the others whose hands are awaited
        self.losers_shown: dict[str, list[str]] = {}  # and those shown, by seat

    @property
    def state(self) -> HandState:
        state = self.table.state
        assert state is not None
        return state  # type: ignore[no-any-return]

    # -- the log -----------------------------------------------------------------------------

    def reset(self) -> None:
        self.awaiting, self.losers_shown = [], {}

    def fold(self, record: Mapping[str, Any]) -> None:
        kind = record["type"]
        if kind == "HandEnded":
            if not record["east_stays"]:
                self.table.scorekeeper.east_passes()
            if record.get("next_prevailing"):
                self.table.scorekeeper.prevailing = record["next_prevailing"]
        elif kind == AWAITED:
            self.awaiting, self.losers_shown = list(record["seats"]), {}
        elif kind == LOSER_SHOWN:
            self.losers_shown[record["seat"]] = list(record["tiles"])
        elif kind == SCORED:
            self.awaiting, self.losers_shown = [], {}

    def snapshot(self) -> dict[str, Any]:
        return {"awaiting": self.awaiting, "losers_shown": self.losers_shown}

    def load(self, saved: Mapping[str, Any]) -> None:
        self.awaiting = list(saved.get("awaiting", []))
        self.losers_shown = {k: list(v) for k, v in saved.get("losers_shown", {}).items()}

    def window_at_restart(self) -> int | None:
        if self.state.phase not in ("claims", "rob"):
            return None
        return self.state.window_opened_us or 0

    # -- observations ------------------------------------------------------------------------

    def observe(self, obs: Observation, now_us: int, refuse: Refuse) -> Outcome:
        if obs.kind is ObservationKind.HAND_SHOWN and self.state.phase == "ended":
            return self._shown_after_end(obs, refuse)
        finished = self.table.moved_on()
        if obs.kind is ObservationKind.DICE and obs.seat is None:
            # The camera sees dice, not hands: it is the throw of whoever throws next.
            obs = replace(obs, seat=self.next_thrower())
        if obs.kind is not ObservationKind.DICE and (
                obs.confidence < self.table.settings.min_confidence):
            outcome = refuse(obs, self._too_unsure(obs))
        elif obs.kind is ObservationKind.HAND_SHOWN and obs.source == "vision" and (
                false := self._false_reading(obs)) is not None:
            # One misread tile would turn a win into a false Mah-jongg and its penalty
            # (Code 1924, Law 86; each family has its own): only the table's word may.
            outcome = refuse(obs, f"the camera read a hand that is no Mah-jongg: {false[1]}",
                             false[0])
        else:
            outcome = self.table.apply_observed(obs, now_us, refuse)
        outcome.records[:0] = finished
        return outcome

    def _shown_after_end(self, obs: Observation, refuse: Refuse) -> Outcome:
        if obs.seat in self.awaiting and obs.seat not in self.losers_shown:
            return self._loser_shown(obs, refuse)
        # A hand shown already, seen again (the camera lost and found its tiles): the same is
        # nothing new; another is asked. Neither moves the table on.
        before = self._shown_before(obs.seat)
        if before is not None and sorted(obs.tiles) == before:
            return Outcome(True)
        return refuse(obs, f"hand_shown: the hand is over and {obs.seat}'s hand was "
                           f"shown as {' '.join(before or []) or 'nothing'}")

    def _too_unsure(self, obs: Observation) -> str:
        if not obs.tiles and obs.kind in TILES_SHOWN:
            return f"{obs.kind}: the camera saw it but could not read its tiles"
        return f"confidence {obs.confidence:.2f} is below {self.table.settings.min_confidence}"

    def _false_reading(self, obs: Observation) -> tuple[str, str] | None:
        """``(rule, reason)`` if the hand the observation shows, applied now, would be a
        false Mah-jongg (tried on a copy of the mirror; nothing changes)."""
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

    def _shown_before(self, seat: str | None) -> list[str] | None:
        """The tiles (sorted tokens) ``seat`` showed at the end of this hand, if any."""
        if seat in self.losers_shown:
            return sorted(self.losers_shown[seat])
        state = self.state
        if state.winner is not None and state.winner.name == seat:
            declared = mahjong_declared(state)
            if declared is not None:
                return sorted(tile_name(t) for t in declared.concealed)
        return None

    def _loser_shown(self, obs: Observation, refuse: Refuse) -> Outcome:
        """One of the others' hands, exposed after the Mah-jongg (Law 82)."""
        state = self.state
        assert obs.seat is not None
        if obs.confidence < self.table.settings.min_confidence:
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
        records = self.table.record(table_events=[
            {"type": LOSER_SHOWN, "seat": obs.seat, "tiles": [tile_name(t) for t in tiles]}])
        if all(seat in self.losers_shown for seat in self.awaiting):
            records += self.table.moved_on()  # every hand is in: the hand is scored
        return Outcome(True, records)

    # -- the game ----------------------------------------------------------------------------

    def stamped(self, command: cm.Command, now_us: int) -> cm.Command:
        if getattr(command, "time_us", 0) is None:
            # The table's time on every command of play: the log then shows when each call
            # window opened and closed, beside each press's own time (docs/engine-api.md).
            return replace(command, time_us=now_us)  # type: ignore[type-var]
        return command

    def after(self, events: Sequence[ev.Event], now_us: int) -> None:
        window, cues = self.table.window, self.table.cues
        for event in events:
            if isinstance(event, ev.Discarded | ev.KongAdded):
                window.open(now_us)
                cues.window_opened()
            elif isinstance(event, ev.ClaimMade):
                window.reopen(now_us)  # a late claim (Law 53) reopens it
                cues.call_heard(event.seat.name)
            elif isinstance(event, ev.ClaimsClosed):
                window.shut()
                winner = None if event.winner is None else event.winner.name
                cues.window_decided(winner, (c.split(":")[0] for c in event.claims))
                if winner is None:
                    cues.turn(self.state.turn.name)
            elif isinstance(event, ev.Drew):
                if not event.loose:
                    window.shut()
                cues.turn(event.seat.name)
                if self.state.live_left() <= 1:
                    cues.last_tile(event.seat.name)
            elif isinstance(event, ev.WallBroken):
                cues.wall_broken(event.wall_of.name, event.stack)
            elif isinstance(event, ev.HandEnded):
                window.shut()
                cues.hand_over(None if event.winner is None else event.winner.name)

    def end_of_hand(self) -> list[dict[str, Any]] | None:
        """Score the hand now (None), or, after a Mah-jongg where the others settle among
        themselves (Law 82), wait for their hands first."""
        state = self.state
        if (state.result != "mahjong" or state.winner is None
                or not self.table.settings.options.get("losers_settle", True)):
            return None
        # Each of the others in turn to the right (Law 82).
        seats = [seat.name for seat in state.others_in_turn(state.winner)]
        return self.table.record(table_events=[{"type": AWAITED, "seats": seats}])

    def resume_end(self) -> list[dict[str, Any]] | None:
        if not self.awaiting:
            return self.end_of_hand()
        if all(seat in self.losers_shown for seat in self.awaiting):
            return None
        return []  # the others' hands are still awaited (Law 82)

    def settle(self) -> dict[str, Any]:
        state, keeper = self.state, self.table.scorekeeper
        winner = None if state.winner is None else state.winner.name
        players = self.players_before_rotation(state)
        result = self.score(state, self.losers_shown)
        if result is None:
            return keeper.entry(state.result, winner, state.end_rule, players)
        net = net_of(result)
        error = str(result.get("error", "not scored")) if net is None else None
        return keeper.entry(state.result, winner, state.end_rule, players, net,
                            result.get("payments", []), result, error)

    def score(self, state: HandState, shown: Mapping[str, list[str]]) -> dict[str, Any] | None:
        """The scorer's result for a finished hand and the others' hands ``shown`` (Law
        82); None for a hand not won, or a table without a scorer."""
        doc = hand_document(state, self.table.settings.options, shown)
        if doc is None or self.scorer is None:
            return None
        if self.table.settings.scoring:
            doc["ruleset"] = self.table.settings.scoring
        return self.scorer(doc)

    def players_before_rotation(self, state: HandState) -> dict[str, str]:
        # The fold has already rotated the seats if East passed: this hand's names.
        if state.east_stays is False:
            return self.table.scorekeeper.players_before_east_passed()
        return dict(self.table.players)

    def public_extras(self) -> dict[str, Any]:
        if not self.awaiting:
            return {}
        # After a Mah-jongg, the others' hands (Law 82).
        return {"hands_awaited": [s for s in self.awaiting if s not in self.losers_shown],
                "hands_shown": dict(self.losers_shown)}

    # -- the call window ---------------------------------------------------------------------

    def closing(self) -> cm.Command:
        return cm.CloseClaims()

    def closes_before(self, command: cm.Command) -> bool:
        """A draw or a laid set shows the table has moved on: claims made before it are
        adjudicated first (the window closes on the next player's action)."""
        return _closes_window_first(self.state, command)

    def closes_at_pause(self) -> bool:
        """With claims made, the pause ends the window. Without, it ends it only where the
        family does not keep the discard claimable after the next draw (Law 53), or when no
        draw can follow (the last discard of a drawn hand)."""
        state = self.state
        return state.phase == "rob" or (
            state.phase == "claims"
            and (bool(state.claims) or not state.ruleset.claims_after_next_draw
                 or (state.need_draw and state.live_left() <= 0)))

    def stays_open(self) -> None:
        self.table.cues.turn(self.state.turn.name)

    def throw_dice(self, seat: str, now_us: int) -> Outcome:
        """Roll the LED dice (``secrets``) for ``seat`` and apply the throw."""
        dice = (self.roll(), self.roll())
        self.table.last_dice = dice
        obs = Observation(ObservationKind.DICE, seat, dice=dice, source="led-dice")
        return self.table.observe(obs, now_us)

    def next_thrower(self) -> str:
        """Who throws next: East first (Law 15), then the seat East's throw selects (Law 16)."""
        state = self.table.state
        if state is None or not state.throws:
            return "E"
        return breaker(state.throws[0][1]).name

    # -- the referee -------------------------------------------------------------------------

    def table_command(self, command: RefereeCommand, now_us: int) -> dict[str, Any]:
        match command:
            case Roll(seat=seat):
                return answer_of(self.throw_dice(seat, now_us), self.table.seq)
            case Amend() as amend:
                # The engine's Correct of event ``at`` of this hand's standing record.
                raw = amend.command
                replacement = None if raw is None else cm.command_from_json(raw, "command")
                correct = cm.Correct(at=amend.at, command=replacement, reason=amend.reason)
                records = self.table.apply(correct, now_us)
                return {"ok": True, "seq": self.table.seq,
                        "events": [r["type"] for r in records]}
        raise unknown(command)

    def moves(self) -> list[dict[str, Any]]:
        return classical_moves(self.table.state)

    def held(self, pid: int) -> Observation | None:
        return Observation.from_json(self.table.pending[pid], "held")

    def certain(self, obs: Observation) -> Observation:
        # A referee's word is certain: it is applied at full confidence.
        return Observation(obs.kind, obs.seat, obs.tiles, 1.0, obs.time_us, obs.zone, obs.dice,
                           "referee", obs.winning)

    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None:
        """The engine's Correct of the seat's last discard: ``at`` its standing index."""
        state = self.table.state
        standing = [] if state is None else state.standing
        last = next((i for i in range(len(standing) - 1, -1, -1)
                     if isinstance(standing[i], ev.Discarded)
                     and standing[i].seat.name == seat), None)
        if last is None:
            return None
        return {"at": last, "command": {"type": "Discard", "seat": seat, "tile": tile},
                "reason": "referee: the camera misread it"}

    # -- the camera's watcher and the simulated camera ---------------------------------------

    def passing(self) -> set[str]:
        return set()  # no Charleston

    def showing_hands(self) -> dict[str, int]:
        if self.table.state is None:
            return {}
        return hands_showing(self.state, [s for s in self.awaiting
                                          if s not in self.losers_shown])

    def next_in_turn(self, state: HandState, seat: Seat) -> Seat:
        return state.others_in_turn(seat)[0]

    def throws_seen(self, state: HandState) -> int | None:
        return len(state.throws)

    def passes_taken(self) -> int:
        return 0

    def passes_waiting(self) -> int:
        return 0

    def hand_shown_taken(self, seat: str) -> bool:
        """The winner's ends the hand, the others' (Law 82) are recorded."""
        state = self.table.state
        if state is None or state.phase != "ended":
            return False
        return seat in self.losers_shown or (
            state.winner is not None and state.winner.name == seat)

    def won_on_draw_now(self) -> bool:
        return self.table.state is not None and self.table.state.phase == "play"


def _closes_window_first(state: HandState, command: cm.Command) -> bool:
    """Whether the call window must be closed (its claims adjudicated) before ``command``: the
    kong's owner going on (its loose tile) shows nobody robbed it (Law 90); a draw, a laid set,
    a Mah-jongg or a discard shows the table has moved on past the claims made."""
    if state.phase == "rob":
        return True
    moving_on = isinstance(command, cm.Draw | cm.Expose | cm.DeclareMahjong | cm.Discard)
    return moving_on and state.phase == "claims" and bool(state.claims)
