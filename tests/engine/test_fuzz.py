"""Nothing crashes the engine: random commands, well-typed or not, are accepted or refused
with an engine error, and a refused one changes nothing."""

from __future__ import annotations

import contextlib
import os
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import commands as cm
from engine.bots import SeatView
from engine.errors import EngineError
from engine.game import apply, new_hand
from engine.invariants import InvariantBroken, check
from engine.rules import RULESETS
from engine.seats import Seat
from engine.simulate import bot_step, default_bots, fingerprint

tiles = st.integers(min_value=-2, max_value=45)
seats = st.sampled_from(list(Seat)) | st.integers(-1, 6)  # a bad seat, from typed code
kinds = st.sampled_from(["chow", "pung", "kong", "mahjong", "pass", ""])

commands = st.one_of(
    st.builds(cm.Throw, seat=seats, dice=st.tuples(st.integers(0, 7), st.integers(0, 7))),
    st.builds(cm.Deal, counts=st.none() | st.tuples(*[st.integers(-1, 15)] * 4)),
    st.builds(cm.Draw, seat=seats, tile=st.none() | tiles),
    st.builds(cm.GroundFlower, seat=seats, tile=tiles),
    st.builds(cm.Discard, seat=seats, tile=tiles),
    st.builds(cm.Claim, seat=seats, kind=kinds, time_us=st.none() | st.integers(-5, 10**9),
              tiles=st.none() | st.lists(tiles, max_size=4).map(tuple)),
    st.just(cm.CloseClaims()),
    st.builds(cm.Expose, seat=seats, tiles=st.lists(tiles, max_size=5).map(tuple)),
    st.builds(cm.DeclareKong, seat=seats, tile=tiles),
    st.builds(cm.AddKong, seat=seats, tile=tiles),
    st.builds(cm.DeclareMahjong, seat=seats,
              concealed=st.none() | st.lists(tiles, max_size=15).map(tuple),
              tile=st.none() | tiles),
    st.builds(cm.RecordFault, seat=seats, fault=st.sampled_from(["long", "short", "x"])),
    st.builds(cm.Correct, at=st.integers(-1, 40), command=st.none()),
)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(RULESETS)), st.sampled_from(["full", "mirror"]),
       st.integers(0, 10**6), st.lists(commands | st.none(), min_size=1, max_size=80))
def test_random_commands_never_crash_and_refusals_change_nothing(
    name: str, mode: Any, seed: int, script: list[cm.Command | None]
) -> None:
    state, _ = new_hand(name, mode, rng=random.Random(seed))
    # Start most scripts from a dealt hand, where most commands mean something.
    apply(state, cm.Throw(seat=Seat.E, dice=(2, 3)))
    apply(state, cm.Throw(seat=Seat.E, dice=(4, 4)))
    apply(state, cm.Deal())
    bots = default_bots(random.Random(seed))
    views = [SeatView(state, s) for s in Seat]
    for command in script:
        if command is None:  # let the bots play on, so the script reaches every phase
            if mode == "full" and state.phase != "ended":
                # A bot confused by the script's earlier moves is refused cleanly.
                with contextlib.suppress(EngineError, InvariantBroken):
                    bot_step(state, bots, views, lambda c: apply(state, c))
                check(state)
            continue
        before = fingerprint(state)
        try:
            apply(state, command)
        except EngineError:
            assert fingerprint(state) == before
            continue
        check(state)
