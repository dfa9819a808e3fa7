"""The bots exercise the whole game, so simulations test every path of play: a bot that never
chowed once hid the chow path from every soak (regression)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import events as ev
from engine.bots import GreedyBot, SeatView
from engine.game import apply, rebuild
from engine.rules import get_ruleset
from engine.simulate import default_bots, play_hand


@pytest.mark.parametrize(
    ("ruleset", "late_claims"), [("code1924/mixed", True), ("classical", False)]
)
def test_bots_reach_every_kind_of_play(ruleset: str, late_claims: bool) -> None:
    rules = get_ruleset(ruleset)
    rng = random.Random(21)
    bots = default_bots(rng)
    seen: Counter[str] = Counter()
    for _ in range(80):
        state = play_hand(rules, rng, bots, cross_check=False).state
        for e in state.standing:
            if isinstance(e, ev.MeldExposed):
                seen[f"exposed {e.kind}"] += 1
            elif isinstance(e, ev.MahjongDeclared):
                seen[f"won by {e.by}"] += 1
            elif isinstance(e, ev.ClaimsClosed) and len(e.claims) > 1:
                seen["contested claim"] += 1
            elif isinstance(e, ev.HandEnded):
                seen[f"ended {e.result}"] += 1
            else:
                seen[e.TYPE] += 1
    for needed in ("exposed chow", "exposed pung", "exposed kong", "KongDeclared",
                   "KongAdded", "FlowerGrounded", "won by wall", "won by discard",
                   "won by loose_tile", "contested claim", "ended mahjong", "ended drawn"):
        assert seen[needed], (needed, seen)
    # Law 53: a call after the next player drew sends his tile back; Classical has no such call.
    assert bool(seen["DrawReturned"]) == late_claims


def test_the_next_player_is_asked_for_a_chow_before_drawing() -> None:
    rules = get_ruleset("code1924/mixed")
    rng = random.Random(3)
    state = play_hand(rules, rng, default_bots(rng), cross_check=False).state
    chows = [e for e in state.log if isinstance(e, ev.MeldExposed) and e.kind == "chow"]
    assert chows and all((e.seat - e.discarder) % 4 == 1 for e in chows)


def test_a_bot_only_proposes_legal_commands_on_its_turn() -> None:
    rng = random.Random(8)
    state = play_hand(get_ruleset("pungchow"), rng, default_bots(rng), cross_check=False).state
    # Replaying its record: the seat on turn, asked at each point, proposes a legal command.
    for cut in range(10, len(state.standing), 23):
        partial = rebuild(state.standing[:cut])
        if partial.phase != "play":
            continue
        bot = GreedyBot(random.Random(cut))
        command = bot.act(SeatView(partial, partial.turn))
        assert command is not None
        apply(partial, command)  # raises if illegal
