"""The engine's Mah-jongg check agrees with the scoring package's on every simulated win:
what the engine accepts in play, `mjtable score` scores as a valid Mah-jongg (contracts.md),
for each ruleset and its entry requirement (Laws 45-48)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import events as ev
from engine.commands import CloseClaims, DeclareMahjong, Discard, Draw
from engine.game import apply
from engine.rules import RULESETS, get_ruleset
from engine.scoring.api import score_hand
from engine.seats import SEATS, Seat
from engine.simulate import default_bots, play_hand
from engine.state import HandState
from engine.tiles import parse_tiles, tile_name, tile_names


def score_document(state: HandState) -> dict[str, Any]:
    """The contract's `mjtable score` input for a hand the engine saw won."""
    won = next(e for e in state.standing if isinstance(e, ev.MahjongDeclared))
    hands: dict[str, Any] = {}
    for seat in SEATS:
        s = state.seats[seat]
        melds = [{"tiles": tile_names(m.tiles), "exposed": not m.concealed} for m in s.melds]
        concealed = list(won.concealed) if seat == won.seat else state.concealed_tiles(seat)
        hands[seat.name] = {"melds": melds, "concealed": tile_names(concealed),
                            "flowers": tile_names(s.flowers)}
    doc: dict[str, Any] = {
        "ruleset": state.ruleset.name,
        "hands": hands,
        "winner": won.seat.name,
        "win": {"tile": tile_name(won.win_tile), "by": won.by,
                "from": None if won.discarder is None else won.discarder.name,
                "context": list(won.context)},
    }
    if state.prevailing is not None:
        doc["prevailing_wind"] = state.prevailing.name
    return doc


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_win_the_engine_accepts_scores_as_valid(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    rng = random.Random(77)
    bots = default_bots(rng)
    checked = 0
    for _ in range(40):
        state = play_hand(rules, rng, bots, cross_check=False).state
        if state.result != "mahjong":
            continue
        result = score_hand(score_document(state))
        assert result["mahjong"] == {"valid": True}, (score_document(state), result["mahjong"])
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize(
    ("ruleset", "concealed", "rule"),
    [
        ("code1924/one-double", "2B 3B 4B 5C 6C 7C 3D 4D 5D 8D 8D 8D 9C 9C",
         "Code 1924, Law 46"),
        ("code1924/cleared", "2B 3B 4B 5B 6B 7B 3D 4D 5D 8B 8B 8B RD RD", "Code 1924, Law 47"),
    ],
)
def test_a_complete_hand_that_fails_the_entry_requirement_is_refused_by_both(
    rig: Any, ruleset: str, concealed: str, rule: str
) -> None:
    tiles = concealed.split()
    east = "1C 1C 1C 1D 1D 1D 9D 9D 9D NW NW NW EW WD"  # a hand that throws WD first
    state = rig(ruleset, hands={"E": east, "S": " ".join(tiles[:-1])}, draws=tiles[-1])
    apply(state, Discard(seat=Seat.E, tile=parse_tiles("WD")[0]))
    apply(state, CloseClaims())
    apply(state, Draw(seat=Seat.S))
    _, events = apply(state, DeclareMahjong(seat=Seat.S))
    false = events[0]
    assert isinstance(false, ev.FalseMahjong) and false.rule == rule
    doc = {"ruleset": ruleset, "prevailing_wind": "E", "winner": "S",
           "hands": {"S": {"concealed": tiles}}, "win": {"tile": tiles[-1], "by": "wall"}}
    assert score_hand(doc)["mahjong"]["valid"] is False
