"""Nothing crashes the engine: random commands at random moments are either accepted (and the
tiles stay exactly the 152-tile set) or refused, with nothing changed, by an error that names
its rule or field."""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from config.cards import SAMPLE_CARD, load_card
from engine.american import commands as cm
from engine.american.bots import GreedyBot, PlayStats, advance
from engine.american.game import (
    AmericanHand,
    AmericanOptions,
    apply,
    check_invariants,
    new_hand,
)
from engine.commands import Command
from engine.errors import EngineError, RuleViolation
from engine.seats import SEATS
from engine.tiles import FLOWER, JOKER


def random_command(rng: random.Random, tiles: list[int]) -> Command:
    seat = rng.choice(SEATS)
    other = rng.choice(SEATS)
    tile = rng.choice(tiles)
    some = tuple(rng.sample(tiles, rng.randint(0, 4)))
    return rng.choice([
        cm.CharlestonPass(seat, some[:3], blind=rng.randint(0, 3)),
        cm.CharlestonVote(seat, rng.random() < 0.5),
        cm.CourtesyOffer(seat, rng.randint(-1, 4)),
        cm.CourtesyPass(seat, some[:2]),
        cm.Draw(seat),
        cm.Discard(seat, tile, named=rng.choice([None, tile, rng.choice(tiles)])),
        cm.CorrectName(seat),
        cm.TakeBack(seat),
        cm.Call(seat, rng.choice(["expose", "mahjong", "chow"]), rng.randint(0, 10)),
        cm.CloseWindow(),
        cm.WithdrawCall(seat),
        cm.Expose(seat, some),
        cm.AdjustExposure(seat, some),
        cm.JokerExchange(seat, other, tile, rng.choice([None, 0, 1])),
        cm.CorrectExchange(seat, other, tile),
        cm.DeclareMahJongg(seat, rng.choice([None, some])),
        cm.RetractMahJongg(seat, rng.random() < 0.5),
        cm.PlaceBet(rng.choice(["E", "wall", "Q"])),
        cm.Challenge(seat, other),
        cm.ConcedeDead(seat),
        cm.ThrowIn(seat),
        cm.Observed(seat, rng.choice(["h", "i", "k", "count:12", "count:x", "zz"])),
    ])


class Fuzzed:
    """The hand the bots and the random commands play against (the bots' HandInPlay)."""

    def __init__(self, state: AmericanHand) -> None:
        self.state = state

    def send(self, command: Command, trial: bool = False) -> bool:
        before = snapshot(self.state)
        try:
            after, _ = apply(self.state, command)
        except RuleViolation as exc:
            assert exc.rule.startswith(("American ", "Two")), exc.rule
            assert snapshot(self.state) == before, f"{command} half-applied before its refusal"
            return False
        except EngineError:
            assert snapshot(self.state) == before, f"{command} half-applied before its refusal"
            return False
        # apply is pure: the hand it was given is as it was, accepted or not.
        assert snapshot(self.state) == before, f"{command} changed the hand it was given"
        self.state = after
        problems = [p for p in check_invariants(after) if "152-tile set" in p or "wall" in p]
        assert problems == [], (command, problems)
        return True


def snapshot(state: AmericanHand) -> dict[str, object]:
    return copy.deepcopy({k: v for k, v in vars(state).items() if k not in ("card", "log")})


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31), st.sampled_from(["full", "mirror"]), st.sampled_from([4, 3]))
# A false Mah Jongg cascade (M-4) whose one intact hand was 12 tiles: valuing it raised after
# the throw-in had already moved the turn.
@example(405, "full", 3)
def test_random_commands_never_crash(seed: int, mode: str, players: int) -> None:
    """Bots move the hand along (full mode); random commands are thrown in between."""
    card = load_card(SAMPLE_CARD)
    rng = random.Random(seed)
    state, _ = new_hand(card, AmericanOptions(players=players, bettor=True), mode, rng)
    hand = Fuzzed(state)
    bots = {s: GreedyBot(random.Random(seed + int(s))) for s in SEATS}
    stats = PlayStats()
    tiles = [*range(34), FLOWER, JOKER]
    for _ in range(300):
        if hand.state.result is not None:
            break
        if mode == "full" and rng.random() < 0.8:
            advance(hand, bots, stats)
        else:
            hand.send(random_command(rng, tiles))
