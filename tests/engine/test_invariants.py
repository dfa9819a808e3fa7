"""The invariant checks of `mjtable play` are real: corrupt a state and they say so."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.game import rebuild
from engine.invariants import InvariantBroken, check
from engine.rules import get_ruleset
from engine.simulate import default_bots, play_hand
from engine.state import HandState
from engine.tiles import parse_tile


def midgame(ruleset: str = "code1924/mixed", seed: int = 4) -> HandState:
    rng = random.Random(seed)
    outcome = play_hand(get_ruleset(ruleset), rng, default_bots(rng), cross_check=False)
    assert not outcome.violations
    state = rebuild(outcome.state.standing[: len(outcome.state.standing) // 2])
    check(state)  # sound before we break it
    return state


def _duplicate_a_tile(s: HandState) -> None:
    t = next(t for t in range(34) if s.seats[1].concealed[t])
    s.seats[2].concealed[t] += 1  # a tile of South's now also in West's hand
    s.seats[2].n += 1


def _lose_a_tile(s: HandState) -> None:
    t = next(t for t in range(34) if s.seats[0].concealed[t])
    s.seats[0].concealed[t] -= 1
    s.seats[0].concealed[(t + 1) % 34] += 1  # same count, wrong tile: one in two places


def _wrong_count(s: HandState) -> None:
    s.seats[3].n += 1


def _hidden_discard(s: HandState) -> None:
    seat = next(x for x in s.seats if x.discards)
    seat.discards.pop()  # a face-up tile vanished (and the seen counts disagree)


def _wall_overrun(s: HandState) -> None:
    s.front = s.back + 1


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (_duplicate_a_tile, "holds|conservation|tiles in hand"),
        (_lose_a_tile, "conservation"),
        (_wrong_count, "holds|tiles in hand"),
        (_hidden_discard, "face-up counts|conservation"),
        (_wall_overrun, "wall bounds"),
    ],
)
def test_a_corrupted_state_is_caught(corrupt: Callable[[HandState], None], message: str) -> None:
    state = midgame()
    corrupt(state)
    with pytest.raises(InvariantBroken, match=message):
        check(state)


def test_a_fifth_copy_face_up_is_caught_in_mirror_mode_too() -> None:
    state = midgame("pungchow")
    state.mode = "mirror"
    t = parse_tile("5D")
    state.seen[t] = 5
    state.seats[0].discards.extend([t] * (5 - sum(
        x.discards.count(t) + sum(m.tiles.count(t) for m in x.melds) for x in state.seats)))
    with pytest.raises(InvariantBroken):
        check(state)
