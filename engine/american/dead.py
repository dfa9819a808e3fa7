"""Dead hands: the engine's private evidence (DH-2 (a)-(n)), challenges and their rulings
(DH-1, DH-3..DH-9), hands declared dead (J-13), thrown in after a false Mah Jongg (M-4), and
the end of a hand when one player is left.

Only the table calls a hand dead (DH-1): evidence is recorded privately and acted on only when
a player challenges; a challenge is upheld at once on visible evidence (DH-3) and otherwise
stands disputed until the tiles are shown (DH-6)."""

from __future__ import annotations

from typing import Any

from engine.american import commands as cm
from engine.american import events as ev
from engine.american.events import AmericanEvent
from engine.american.match import HandError, closest, exposures_fit, make_hand, unwinnable
from engine.american.payments import (
    Settlement,
    false_mahjong_cascade,
    settle_challenge,
)
from engine.american.state import (
    AmericanHand,
    Evidence,
    ensure_playing,
    refuse,
)
from engine.errors import MalformedInput
from engine.payment import Payment
from engine.seats import Seat


def record(state: AmericanHand, seat: Seat, rule: str, detail: str, visible: bool = True) -> None:
    rack = state.rack(seat)
    if not any(e.rule == rule for e in rack.evidence):
        rack.evidence.append(Evidence(rule, detail, visible))


def check_exposed_hands(state: AmericanHand) -> None:
    """Visible dead-hand causes of every exposed hand (DH-2 (c), (d), (e)); private."""
    seen = state.visible_counts()
    for seat, rack in state.racks.items():
        if rack.out or not rack.exposures:
            continue
        for e in rack.exposures:
            if e.erroneous == "DH-2 (c)":
                record(state, seat, "DH-2 (c)", "an exposure that is no set of like tiles")
        good = tuple(e.exposure() for e in rack.exposures
                     if not e.erroneous and e.natural is not None)
        if not good:
            continue
        if not exposures_fit(state.card, good):
            if exposures_fit(state.card, good, concealed_lines=True):
                # Only a concealed line has these sets: a concealed hand was being played and
                # tiles were exposed ("Calling ends a concealed hand").
                record(state, seat, "DH-2 (f)", "exposures on a concealed hand")
            else:
                record(state, seat, "DH-2 (d)", "exposures that match no hand on the card")
        elif unwinnable(state.card, good, seen, state.options.unwinnable == "literal"):
            record(state, seat, "DH-2 (e)", "the tiles the exposed hand still needs are "
                    "gone")


def settle_challenges(state: AmericanHand) -> list[Payment]:
    """DH-6: disputed challenges are settled when the tiles are shown."""
    return [settle_challenge(challenger, target, was_dead, state.options.payments)
            for challenger, target, was_dead in state.challenges]


def declare_dead(state: AmericanHand, seat: Seat, rule: str) -> None:
    rack = state.rack(seat)
    rack.declared_dead = rule
    # J-13: the erroneous exposure goes back to the rack, Jokers and all; correct ones stay.
    keep = []
    for e in rack.exposures:
        if e.erroneous:
            rack.concealed += e.tiles if state.mode == "full" else []
            rack.count += len(e.tiles)
        else:
            keep.append(e)
    rack.exposures = keep


def end_if_one_left(state: AmericanHand, last_out: Seat | None = None) -> list[AmericanEvent]:
    playing = [s for s, r in state.racks.items() if not r.out]
    if len(playing) > 1:
        if state.turn not in playing and state.step in ("draw", "discard"):
            state.turn = state.next_player(state.turn)
            state.step = "draw"
        return []
    # Three hands dead: the last throws in and nobody is paid (M-4) — unless a false Mah
    # Jongg left a single intact hand, which collects (M-4 cascade).
    settlement = Settlement(list(settle_challenges(state)))
    thrown = [s for s, r in state.racks.items() if r.thrown_in]
    if state.false_declarer is not None and thrown and playing:
        # The value of the hand the intact player was attempting: in full mode its nearest
        # line; a mirror cannot see it, nor is there a nearest line to a hand of a wrong
        # count (a short hand, dead by DH-2 but not yet called so): the card's lowest value.
        target = None
        if state.mode == "full":
            try:
                target = closest(state.card, hand_of(state, playing[0]))
            except HandError:
                target = None
        value = state.card.lines[target.line].points if target else state.card.lowest_value
        later = last_out if len(thrown) == 1 and last_out not in thrown else None
        cascade = false_mahjong_cascade(declarer=state.false_declarer, thrown_in=thrown,
                                        intact=[*playing, *([later] if later else [])],
                                        attempted_values={playing[0]: value},
                                        lowest_value=state.card.lowest_value,
                                        later_dead=later)
        settlement.payments += cascade.payments
    state.result = {"result": "dead", "winner": None, "rule": "American M-4",
                    **settlement.as_json(state.players)}
    return [ev.HandEnded(result=state.result)]


def hand_of(state: AmericanHand, seat: Seat) -> Any:
    rack = state.rack(seat)
    exposures = [e.tiles for e in rack.exposures if not e.erroneous]
    return make_hand(rack.concealed, exposures, sizes=(13, 14, 15))


def challenge(state: AmericanHand, c: cm.Challenge) -> list[AmericanEvent]:
    if c.seat == c.target:
        raise refuse("DH-1", "a player may not declare their own hand dead")
    if c.target not in state.racks:
        raise refuse("DH-5", f"seat {c.target.name} is empty")
    ensure_playing(state, c.seat, "challenge")
    if state.phase != "play":
        raise refuse("CH-8", "a hand cannot go dead during the Charleston")
    target = state.rack(c.target)
    if target.declared_dead is not None:
        raise refuse("DH-7", f"{c.target.name}'s hand is already declared dead")
    visible = [e for e in target.evidence if e.visible]
    if visible:
        rule = f"American {visible[0].rule}"
        declare_dead(state, c.target, rule)
        events: list[AmericanEvent] = [
            ev.ChallengeRuled(seat=c.seat, target=c.target, ruling="upheld", rule=rule),
            ev.DeclaredDead(seat=c.target, rule=rule)]
        if state.turn == c.target and state.step in ("draw", "discard"):
            state.turn = state.next_player(c.target)
            state.step = "draw"
        return events + end_if_one_left(state, c.target)
    # DH-3: nothing visible shows it; the challenged may deny without revealing anything.
    state.challenges.append((c.seat, c.target, bool(target.evidence)))
    return [ev.ChallengeRuled(seat=c.seat, target=c.target, ruling="disputed",
                              rule="American DH-5, DH-6")]


def concede(state: AmericanHand, c: cm.ConcedeDead) -> list[AmericanEvent]:
    pending = [x for x in state.challenges if x[1] == c.seat]
    if not pending:
        raise refuse("DH-1", "a player may not declare their own hand dead; only a challenge "
                     "may be accepted")
    state.challenges.remove(pending[-1])
    declare_dead(state, c.seat, "American DH-5")
    events: list[AmericanEvent] = [ev.DeclaredDead(seat=c.seat, rule="American DH-5",
                                                    conceded=True)]
    if state.turn == c.seat and state.step in ("draw", "discard"):
        state.turn = state.next_player(c.seat)
        state.step = "draw"
    return events + end_if_one_left(state, c.seat)


def throw_in(state: AmericanHand, c: cm.ThrowIn) -> list[AmericanEvent]:
    if state.false_declarer is None:
        raise refuse("M-2", "nobody throws in or exposes a hand until a Mah Jongg is verified")
    rack = state.rack(c.seat)
    if rack.out:
        raise refuse("M-4", f"{c.seat.name}'s hand is already out")
    rack.thrown_in = True
    events: list[AmericanEvent] = [ev.ThrewIn(seat=c.seat, rule="American M-4")]
    if state.turn == c.seat and state.step in ("draw", "discard"):
        # An open window on this player's discard stays open for the others' calls (C-5).
        state.turn = state.next_player(c.seat)
        state.step = "draw"
    return events + end_if_one_left(state, c.seat)


_CAUSES = {"h": "DH-2 (h)", "i": "DH-2 (i)", "j": "DH-2 (j)", "n": "DH-2 (n)", "k": "DH-2 (k)"}


def observed(state: AmericanHand, c: cm.Observed) -> list[AmericanEvent]:
    if c.cause.startswith("count:"):
        try:
            count = int(c.cause.split(":", 1)[1])
        except ValueError:
            raise MalformedInput("cause", f"count:<number>, not {c.cause!r}") from None
        rack = state.rack(c.seat)
        expected = (13, 14) if state.phase == "play" else (rack.count,)
        if count in expected:
            return []
        if not state.first_discard:
            left_of_east = Seat.N if Seat.N in state.racks else state.players[-1]
            if c.seat == left_of_east and count == 12 and state.phase == "play":
                # CH-7's one exception: the player to East's left, one short, alone may take
                # the next wall tile before East's first discard.
                state.short_left = c.seat
                return [ev.ShortHandMayDraw(seat=c.seat, rule="American CH-7")]
            # DH-9 / CH-7: before East's first discard a wrong count means a redeal.
            state.result = {"result": "redeal", "rule": "American CH-7, DH-9",
                            "why": f"{c.seat.name} holds {count} tiles"}
            return [ev.HandEnded(result=state.result)]
        record(state, c.seat, "DH-2 (a)", f"{count} tiles after East's first discard")
        wrong = [s for s, r in state.racks.items() if any(e.rule == "DH-2 (a)" for e in r.evidence)]
        if len(wrong) >= 3:
            # DH-9: three wrong counts after East's first discard: the hand is replayed.
            state.result = {"result": "redeal", "rule": "American DH-9",
                            "why": "three hands with wrong counts"}
            return [ev.HandEnded(result=state.result)]
        return []
    rule = _CAUSES.get(c.cause)
    if rule is None:
        raise MalformedInput("cause", f"one of h i j n k or count:<n>, not {c.cause!r}")
    if state.phase != "play":
        raise refuse("CH-8", "a hand cannot go dead during the Charleston")
    record(state, c.seat, rule, "seen by the table")
    return []


