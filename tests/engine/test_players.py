"""Each family's bots play a whole hand through ``engine.family.players_for`` alone: the same
code deals, seats the bots and plays any family's hand to its end, every command accepted,
and the same seed plays the same hand."""

from __future__ import annotations

import random
from typing import Any

import pytest

from config.cards import default_card
from engine.commands import Command
from engine.errors import RuleViolation
from engine.family import RuleFamily, family_for, players_for
from engine.seats import Seat


class _Hand:
    """A hand in play that keeps every command the bots sent and refuses nothing quietly."""

    def __init__(self, family: RuleFamily[Any], state: Any) -> None:
        self.family, self.state = family, state
        self.sent: list[Command] = []
        self.pauses = 0

    def send(self, command: Command, trial: bool = False) -> bool:
        try:
            self.state, _ = self.family.apply(self.state, command)
        except RuleViolation:
            if trial:
                return False
            raise
        self.sent.append(command)
        return True


def _played(name: str, seed: int) -> _Hand:
    family = family_for(name, default_card())
    players = players_for(family, random.Random(seed), hand=1, prevailing=Seat.E)
    hand = _Hand(family, players.dealt)
    for _ in players.play(hand):
        hand.pauses += 1
    return hand


@pytest.mark.parametrize("name", ["code1924/mixed", "pungchow", "classical", "american",
                                  "american/3"])
def test_the_bots_play_any_family_to_the_end(name: str) -> None:
    hand = _played(name, 4)
    assert hand.state.result  # a Mah-jongg or a drawn hand, as each family records its end
    assert hand.pauses > 10 and len(hand.sent) >= hand.pauses
    again = _played(name, 4)
    assert [c.to_json() for c in again.sent] == [c.to_json() for c in hand.sent]
    assert [c.to_json() for c in _played(name, 5).sent] != [c.to_json() for c in hand.sent]


def test_a_family_without_bots_is_refused() -> None:
    with pytest.raises(TypeError, match="no bots"):
        players_for(object(), random.Random(1))  # type: ignore[arg-type]
