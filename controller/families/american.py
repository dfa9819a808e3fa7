"""The American game's part of the table: :class:`controller.family_part.FamilyPart`.

What is its own: the camera counts what goes face down (Charleston and courtesy passes, CH-2)
and the deal is counted, not followed throw by throw; the call window (C-5) closes at the next
player's draw or a Joker exchange (the engine does that) and, with calls made, after the
courtesy pause, adjudicated by C-9; a seat may call another's hand dead (``cmd/challenge``,
DH-1); a hand ends settled by the engine from the card (the League's payments), and East passes
after a hand won or walled (seed 002, Choosing East). The engine is rebuilt from the commands
the table accepted, so the referee's amendment of a move is the hand rebuilt with it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from controller.amendments import shown_command
from controller.families.american_mirror import AmericanMirror
from controller.family_part import Outcome, Refuse, TableHost
from controller.inputs import Observation, ObservationKind
from controller.referee import Amend, Challenge, CommandError, RefereeCommand
from controller.referee_desk import answer_of, unknown
from engine.american import commands as am
from engine.american import events as ev
from engine.american.compiled import CompiledCard
from engine.american.game import AmericanHand
from engine.commands import Command
from engine.errors import MalformedInput, RuleViolation
from engine.events import Event
from engine.family import AMENDED, American, decode_command
from engine.seats import Seat

SCORED = "HandScored"


class AmericanPart:
    verbs = ("challenge", "claim", "confirm", "correct", "dismiss", "observe", "status")
    first_prevailing: str | None = None  # prevailing winds have no place in the game
    mirror = AmericanMirror()

    def __init__(self, table: TableHost, family: American) -> None:
        self.table = table
        self.family = family

    @property
    def card(self) -> CompiledCard:
        return self.family.card

    @property
    def state(self) -> AmericanHand:
        state = self.table.state
        assert state is not None
        return state  # type: ignore[no-any-return]

    # -- the log -----------------------------------------------------------------------------

    def reset(self) -> None:
        pass

    def fold(self, record: Mapping[str, Any]) -> None:
        if record["type"] == SCORED and record.get("result") in ("mahjong", "wall"):
            # "After each hand, whether won or a wall game, the East seat and the dice pass
            # to the right" (seed 002, Choosing East); a hand thrown in is dealt again.
            self.table.scorekeeper.east_passes()

    def snapshot(self) -> dict[str, Any]:
        return {}

    def load(self, saved: Mapping[str, Any]) -> None:
        pass

    def window_at_restart(self) -> int | None:
        state = self.state
        if state.result is not None or state.step != "window":
            return None
        return (state.live.opened_us if state.live else None) or 0

    # -- observations ------------------------------------------------------------------------

    def observe(self, obs: Observation, now_us: int, refuse: Refuse) -> Outcome:
        if obs.kind is ObservationKind.DICE:
            self.table.last_dice = obs.dice  # the deal is counted, not followed stack by stack
            return Outcome(True)
        if obs.kind is ObservationKind.DEAL:
            return Outcome(True)
        if obs.kind is ObservationKind.JOKER_EXCHANGE and obs.seat is None:
            # The camera sees the natural go in for the Joker, not whose hand put it there:
            # it is the player whose turn it is (exchanges are made on one's own turn, J-5).
            obs = replace(obs, seat=self.state.turn.name)
        minimum = self.table.settings.min_confidence
        if obs.confidence < minimum:
            return refuse(obs, f"confidence {obs.confidence:.2f} is below {minimum}")
        return self.table.apply_observed(obs, now_us, refuse)

    # -- the game ----------------------------------------------------------------------------

    def stamped(self, command: Command, now_us: int) -> Command:
        if isinstance(command, am.Discard | am.CloseWindow) and command.time_us is None:
            return replace(command, time_us=now_us)  # the window's opening and closing
        return command

    def after(self, events: Sequence[Event], now_us: int) -> None:
        window, cues = self.table.window, self.table.cues
        for event in events:
            if isinstance(event, ev.Discarded):
                window.open(now_us)
                cues.window_opened()
            elif isinstance(event, ev.CallMade):
                cues.call_heard(event.seat.name)
            elif isinstance(event, ev.WindowClosed):
                window.shut()
                winner = None if event.winner is None else event.winner.name
                cues.window_decided(winner, (c.split(":")[0] for c in event.claims))
            elif isinstance(event, ev.Drew):
                window.shut()
                cues.turn(event.seat.name)
            elif isinstance(event, ev.HandEnded):
                window.shut()
                cues.hand_over(None)

    def end_of_hand(self) -> list[dict[str, Any]] | None:
        return None  # the engine settled it: booked at once

    def resume_end(self) -> list[dict[str, Any]] | None:
        return None

    def settle(self) -> dict[str, Any]:
        """The scoresheet entry: the League's payments, settled by the engine."""
        result = self.state.result
        assert result is not None
        net = {str(k): int(v) for k, v in (result.get("net") or {}).items()}
        return self.table.scorekeeper.entry(result["result"], result.get("winner"),
                                            result.get("rule"), self.table.players, net,
                                            result.get("payments", []), result)

    def public_extras(self) -> dict[str, Any]:
        return {}

    # -- the call window ---------------------------------------------------------------------

    def closing(self) -> Command:
        return am.CloseWindow()

    def closes_before(self, command: Command) -> bool:
        """An exposure, a Mah Jongg shown or a discard shows the table moved on: the calls made
        are adjudicated first (C-5, C-9)."""
        state = self.state
        moving_on = isinstance(command, am.Expose | am.DeclareMahJongg | am.Discard | am.Draw)
        return moving_on and state.step == "window" and bool(state.calls)

    def closes_at_pause(self) -> bool:
        """The courtesy pause is over: with calls made, the window closes and C-9 decides; the
        last discard of the wall closes it too (W-1). Otherwise the next player's draw does."""
        state = self.state
        return state.step == "window" and bool(state.calls or state.wall_left <= 0)

    def stays_open(self) -> None:
        """Until the next player's draw closes it (C-5): the players see nothing new."""

    def throw_dice(self, seat: str, now_us: int) -> Outcome:
        self.table.last_dice = (secrets.randbelow(6) + 1, secrets.randbelow(6) + 1)
        return Outcome(True)

    def next_thrower(self) -> str:
        return "E"  # East throws to break the wall ("Breaking the wall")

    # -- the referee -------------------------------------------------------------------------

    def table_command(self, command: RefereeCommand, now_us: int) -> dict[str, Any]:
        match command:
            case Challenge(seat=seat, target=target):
                # A seat calls another's hand dead (DH-1); the engine upholds it on visible
                # evidence (DH-3) or records it disputed until the tiles are shown (DH-6).
                records = self.table.apply(am.Challenge(Seat[seat], Seat[target]), now_us)
                return answer_of(Outcome(True, records), self.table.seq)
            case Amend() as amend:
                return self._amend(amend)
        raise unknown(command)

    def _amend(self, amend: Amend) -> dict[str, Any]:
        """``{"at": seq, "command": {...} | null, "reason": "..."}``: the command accepted with
        event ``seq`` of the hand in play (a discard the camera misread, say) is replaced by
        ``command`` (or struck out). The hand is rebuilt from its commands with the change;
        if a later one becomes illegal, the correction is refused and nothing changes."""
        table = self.table
        at, raw = amend.at, amend.command
        if raw is not None:
            decode_command(raw, "command")
        if table.state is None or self.state.result is not None:
            raise CommandError("at", "no hand is in play")
        records = table.store.events_of_hand(table.hand_no)
        if not any(r["seq"] == at and r.get("command") is not None for r in records):
            raise CommandError("at", f"event {at} is not a move of hand {table.hand_no}'s")
        try:
            rebuilt = self.family.rebuild(
                [*records, {"seq": table.seq + 1, "type": AMENDED, "at": at,
                            "replacement": raw}])
        except RuleViolation as exc:
            return {"ok": False, "error": f"with the correction, a move is refused: {exc}",
                    "rule": exc.rule, "where": "command"}
        except MalformedInput as exc:  # a command of another family's engine
            raise CommandError("command", str(exc)) from None
        assert rebuilt is not None
        if rebuilt.result is not None:
            return {"ok": False, "error": "with the correction the hand would be over: settle "
                    "it at the table", "where": "command"}
        table.state = rebuilt
        # Not "command": a record's command is a move the rebuild applies in its place.
        done = table.record(table_events=[{"type": AMENDED, "at": at, "replacement": raw,
                                           "reason": amend.reason}])
        return {"ok": True, "seq": table.seq, "events": [r["type"] for r in done]}

    def moves(self) -> list[dict[str, Any]]:
        hand = self.table.hand_no
        return american_moves(self.table.store.events_of_hand(hand)) if hand else []

    def held(self, pid: int) -> Observation | None:
        return None  # read when it is applied

    def certain(self, obs: Observation) -> Observation:
        return replace(obs, confidence=1.0, source="referee")  # the referee's word is certain

    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None:
        """The amendment of the seat's last discard: ``at`` its event's seq."""
        discards = [r for r in self.table.store.events_of_hand(self.table.hand_no)
                    if r["type"] == "Discarded" and r["seat"] == seat and r.get("command")]
        if not discards:
            return None
        return {"at": discards[-1]["seq"], "command": {**discards[-1]["command"], "tile": tile},
                "reason": "referee: the camera misread it"}

    # -- the camera's watcher and the simulated camera ---------------------------------------

    def passing(self) -> set[str]:
        """The seats that have not yet passed on this pass of the Charleston (CH-2): the
        camera counts the backs each lays before it (vision/observe.py)."""
        state = self.table.state
        if state is None or state.phase != "charleston" or state.result is not None:
            return set()
        return {seat.name for seat in state.players if seat not in state.pending}

    def showing_hands(self) -> dict[str, int]:
        """The seats that may be laying their hands out for Mah Jongg (M-1), each with the
        tiles it lays: one that alone called the discard for Mah Jongg or was awarded it, its
        concealed tiles and the discard; the turn's seat once it has drawn, its concealed
        tiles."""
        state = self.table.state
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

    def next_in_turn(self, state: AmericanHand, seat: Seat) -> Seat:
        return state.next_player(seat)

    def throws_seen(self, state: AmericanHand) -> int | None:
        return None  # the deal is counted, not followed throw by throw

    def passes_taken(self) -> int:
        state = self.table.state
        if state is None:
            return 0
        return int(state.passes_made * len(state.players) + len(state.pending))

    def passes_waiting(self) -> int:
        return 0 if self.table.state is None else len(self.table.state.pending)

    def hand_shown_taken(self, seat: str) -> bool:
        """The Mah Jongg shown ends the hand (M-1)."""
        result = None if self.table.state is None else self.table.state.result
        return result is not None and result.get("winner") == seat

    def won_on_draw_now(self) -> bool:
        return self.table.state is not None and self.table.state.step == "discard"


def american_moves(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The moves the table accepted this hand, each as the referee amended it last (a move
    struck out is gone)."""
    records = list(records)
    replaced: dict[int, Any] = {int(r["at"]): r.get("replacement")
                                for r in records if r.get("type") == AMENDED}
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
