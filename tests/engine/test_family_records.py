"""Each family says how its events are kept (engine/family.py): the records a log stores give
their published parts again, and bring the hand back. The classical engine folds its events;
the American one applies the commands kept with them again, as the referee amended them."""

from __future__ import annotations

import random
from typing import Any

from config.cards import default_card
from engine.american import commands as am
from engine.family import AMENDED, American, Classical
from engine.rules import get_ruleset
from engine.seats import Seat
from engine.simulate import default_bots, play_hand


def _kept(family: Any, batches: list[tuple[Any, Any]]) -> list[dict[str, Any]]:
    """The records a table stores for each (command, events), with their envelopes; each
    checked to publish again what it published when it was stored."""
    records: list[dict[str, Any]] = []
    for command, events in batches:
        for kept in family.records_of(events, command):
            env = {"seq": len(records) + 1, "hand": 1, "ts": "t"}
            record = {**env, **kept.body}
            again = family.published_of(record)
            assert again is not None and again.public == {**env, **kept.public}
            assert again.decision == kept.decision
            records.append(record)
    return records


def test_a_classical_hand_comes_back_from_its_records() -> None:
    family = Classical("code1924/mixed")
    outcome = play_hand(get_ruleset("code1924/mixed"), random.Random(4),
                        default_bots(random.Random(4)), checks=False, cross_check=False)
    records = _kept(family, [(None, outcome.state.log)])
    assert any(r["type"] == "ClaimsClosed" for r in records)
    assert family.published_of({"seq": 9, "hand": 1, "ts": "t", "type": "HandScored"}) is None
    rebuilt = family.rebuild([*records, {"seq": 999, "hand": 1, "type": "ObservationHeld"}])
    assert rebuilt is not None and family.ended(rebuilt)
    assert family.public_view(rebuilt) == family.public_view(outcome.state)
    assert family.rebuild([]) is None


def test_an_american_hand_comes_back_from_its_commands_as_amended() -> None:
    family = American("american", default_card())
    state, events = family.new_hand("mirror")
    batches: list[tuple[Any, Any]] = [(None, events)]
    for seat in (Seat.E, Seat.S, Seat.W, Seat.N):  # the first Charleston pass (CH-2)
        command = am.CharlestonPass(seat, blind=0, count=3)
        state, events = family.apply(state, command)
        batches.append((command, events))
    records = _kept(family, batches)
    moves = [r for r in records if "command" in r]  # the first record of each command
    assert [(r["seat"], r["command"]["type"]) for r in moves] == [
        (seat, "american/CharlestonPass") for seat in "ESWN"]
    rebuilt = family.rebuild(records)
    assert rebuilt is not None and rebuilt.passes_made == state.passes_made == 1
    assert family.public_view(rebuilt) == family.public_view(state)
    # The referee strikes out North's pass: the hand is rebuilt without it (N still owes it).
    amended = family.rebuild([*records, {"seq": 99, "type": AMENDED, "at": moves[-1]["seq"],
                                         "replacement": None}])
    assert amended is not None and not family.ended(amended)
    assert (amended.passes_made, set(amended.pending)) == (0, {Seat.E, Seat.S, Seat.W})
    assert family.published_of({"seq": 9, "hand": 1, "type": AMENDED, "at": 3}) is None
