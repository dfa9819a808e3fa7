"""Adjudication property: an independent referee (``referee.py``, written from the laws and
sharing no code with the engine's precedence or hand divider) decides every call window, and
the engine must decide the same, for every family and every table size it plays.

Two sources of windows: hands dealt to make a window contested (random roles for the other
players: a pung, a kong, a chow, a Mah-jongg by a sequence, a pung or the pair, or nothing),
and whole bot hands, where every window the bots opened is checked and, after each discard,
a random set of further calls is tried on a copy of the hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import commands as cm
from engine import events as ev
from engine.american.game import adjudicate as american_adjudicate
from engine.errors import RuleViolation
from engine.game import apply, commands_of, new_hand
from engine.rules import RULESETS, Ruleset, get_ruleset
from engine.seats import SEATS, Seat
from engine.simulate import default_bots, play_hand
from engine.state import HandState
from engine.tiles import tile_set
from engine.wall import break_point, deal_sizes, draw_order

from . import referee as ref

TABLES = [(name, n) for name in sorted(RULESETS) for n in get_ruleset(name).player_counts]
SEATED = {4: "ESWN", 3: "ESN", 2: "EW"}
FIRST_THROW = {4: (2, 3), 3: (3, 4), 2: (2, 3)}  # East breaks the wall (Law 15)
ROLES = ("none", "pung", "kong", "chow", "mj_sequence", "mj_pung", "mj_pair")
many = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
hands = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- what the referee knows of a window -------------------------------------------------------


def family(rules: Ruleset) -> str:
    return rules.family


def uses(state: HandState, seat: Seat, tile: int) -> frozenset[str]:
    s = state.seats[seat]
    counts = list(s.concealed[:34])
    counts[tile] += 1
    specials = state.ruleset.specials
    return ref.uses_of(counts, len(s.melds), tile, seven_pairs=len(specials) > 1,
                       orphans=bool(specials))


def lawful_chow_claim(state: HandState, seat: Seat, discarder: Seat, tile: int) -> bool:
    players = [p.name for p in state.players]
    if tile >= 27 or not ref.may_chow_for_a_set(family(state.ruleset), seat.name,
                                                 discarder.name, players):
        return False
    h = state.seats[seat].concealed
    r = tile % 9
    return any(lo >= 0 and lo + 2 <= 8 and all(h[tile - r + lo + k] for k in range(3)
                                                if lo + k != r) for lo in (r - 2, r - 1, r))


def judge(state: HandState, calls: Sequence[cm.Claim]) -> tuple[str, str, str | None]:
    assert state.claimable is not None
    tile, discarder = state.claimable
    made = [ref.Call(c.seat.name, c.kind, c.time_us or 0,
                     uses(state, c.seat, tile) if c.kind == "mahjong" else frozenset())
            for c in calls]
    return ref.winner(family(state.ruleset), made, discarder.name,
                      [p.name for p in state.players])


def close_and_compare(state: HandState, calls: Sequence[cm.Claim]) -> ev.ClaimsClosed:
    expected = judge(state, calls)
    _, events = apply(state, cm.CloseClaims())
    closed = events[0]
    assert isinstance(closed, ev.ClaimsClosed)
    got = (closed.winner.name if closed.winner is not None else None, closed.kind)
    assert got == expected[:2], (closed, calls)
    if expected[2] is not None:
        assert closed.rule == expected[2], (closed, calls)
    return closed


def check_the_showing(state: HandState, seat: Seat, tile: int, discarder: Seat) -> None:
    """After a Mah-jongg call is awarded: a tile that fits only in a sequence the seat may not
    chow makes a false Mah-jongg (Two-Hand Game; Harr E); a valid one is a complete hand."""
    how = uses(state, seat, tile)
    players = [p.name for p in state.players]
    _, events = apply(state, cm.DeclareMahjong(seat=seat))
    forbidden = how == {"sequence"} and not ref.may_go_out_by_sequence(
        family(state.ruleset), seat.name, discarder.name, players)
    if forbidden:
        assert isinstance(events[0], ev.FalseMahjong), events[0]
    if isinstance(events[0], ev.MahjongDeclared):
        assert how and not forbidden


def make_calls(state: HandState, calls: Sequence[cm.Claim]) -> list[cm.Claim]:
    """Apply the calls in the order of their board times; the referee says which the laws
    refuse (a chow not from the left, or where there are no chows)."""
    assert state.claimable is not None
    tile, discarder = state.claimable
    heard = []
    for c in sorted(calls, key=lambda c: c.time_us or 0):
        lawful = c.kind != "chow" or lawful_chow_claim(state, c.seat, discarder, tile)
        try:
            apply(state, c)
        except RuleViolation:
            assert not lawful, c
            continue
        assert lawful, c
        heard.append(c)
    return heard


# -- contested windows, dealt ------------------------------------------------------------------


def _take(pool: list[int], tiles: Sequence[int]) -> bool:
    if any(pool.count(t) < list(tiles).count(t) for t in set(tiles)):
        return False
    for t in tiles:
        pool.remove(t)
    return True


def _random_set(pool: list[int], rng: random.Random) -> list[int] | None:
    for _ in range(30):
        t = rng.choice(pool)
        run = rng.random() < 0.5 and t < 27 and t % 9 <= 6
        group = [t, t + 1, t + 2] if run else [t, t, t]
        if _take(pool, group):
            return group
    return None


def _core(role: str, tile: int, pool: list[int], rng: random.Random) -> list[int] | None:
    """The tiles a seat holds for its role (13 with the rest of a complete hand for a
    Mah-jongg role), or ``None`` if the set cannot supply them."""
    r = tile % 9
    neighbours = [[tile - r + lo + k for k in range(3) if lo + k != r]
                  for lo in (r - 2, r - 1, r) if tile < 27 and lo >= 0 and lo + 2 <= 8]
    need: list[int] = {
        "none": [], "pung": [tile, tile], "kong": [tile] * 3, "mj_pung": [tile, tile],
        "mj_pair": [tile], "chow": rng.choice(neighbours) if neighbours else [],
        "mj_sequence": rng.choice(neighbours) if neighbours else [],
    }[role]
    if role in ("chow", "mj_sequence") and not need:
        return None
    if not _take(pool, need):
        return None
    held = list(need)
    if role.startswith("mj"):
        sets = 4 - (0 if role == "mj_pair" else 1)
        for _ in range(sets):
            group = _random_set(pool, rng)
            if group is None:
                return None
            held += group
        if role != "mj_pair":
            pair = next((t for t in rng.sample(pool, len(pool)) if pool.count(t) >= 2), None)
            if pair is None or not _take(pool, [pair, pair]):
                return None
            held += [pair, pair]
    return held


def deal_window(rules: Ruleset, players: int, rng: random.Random) -> tuple[HandState, int,
                                                                            dict[Seat, str]]:
    """A hand dealt so that East's first discard meets the roles drawn for the others."""
    seated = [Seat[s] for s in SEATED[players]]
    pool = [t for t in tile_set(rules.tiles) if t < 34]
    rng.shuffle(pool)
    tile = rng.choice([t for t in range(34) if t < 27 or rng.random() < 0.3])
    pool.remove(tile)
    held: dict[Seat, list[int]] = {Seat.E: [tile]}
    roles: dict[Seat, str] = {}
    for seat in seated[1:]:
        role = rng.choice(ROLES)
        saved = list(pool)
        core = _core(role, tile, pool, rng)
        if core is None:
            pool[:] = saved
            role, core = "none", []
        roles[seat], held[seat] = role, core
    for seat in seated:
        want = 14 if seat == Seat.E else 13
        while len(held[seat]) < want:  # filler other than the contested tile
            t = next(t for t in pool if t != tile)
            pool.remove(t)
            held[seat].append(t)
    queues = {s: list(h) for s, h in held.items()}
    order: list[int] = []
    for seat, n in deal_sizes(tuple(seated)):
        order += queues[seat][:n]
        del queues[seat][:n]
    rest = [t for t in tile_set(rules.tiles) if t >= 34] + pool
    rng.shuffle(rest)
    order += rest
    first, second = FIRST_THROW[players], (rng.randint(1, 6), rng.randint(1, 6))
    # The 1924 small tables count the players; Harr's count the dummy walls too (East
    # throws for a dummy), so East's throw here selects East, or a dummy, at every table.
    counted = tuple(SEATS) if rules.dummy_walls else tuple(seated)
    wall_of, stack = break_point(sum(first), sum(second), rules.stacks_per_wall, counted)
    built = [0] * len(order)
    for i, p in enumerate(draw_order(list(range(len(order))), wall_of, stack,
                                     rules.stacks_per_wall)):
        built[p] = order[i]
    state, _ = new_hand(rules, "full", wall=built, players=tuple(seated))
    apply(state, cm.Throw(seat=Seat.E, dice=first))
    apply(state, cm.Throw(seat=Seat.E, dice=second))
    apply(state, cm.Deal())
    for seat in seated:
        assert sorted(state.concealed_tiles(seat)) == sorted(held[seat])
    apply(state, cm.Discard(seat=Seat.E, tile=tile, time_us=1_000_000))
    return state, tile, roles


KIND = {"pung": "pung", "kong": "kong", "chow": "chow", "mj_sequence": "mahjong",
        "mj_pung": "mahjong", "mj_pair": "mahjong"}


@many
@given(st.sampled_from(TABLES), st.integers(0, 2**32 - 1))
def test_contested_windows_are_decided_as_the_laws_say(table: tuple[str, int],
                                                        seed: int) -> None:
    name, players = table
    rng = random.Random(seed)
    state, tile, roles = deal_window(get_ruleset(name), players, rng)
    calls = []
    times = rng.sample(range(1_100_000, 2_900_000), len(roles))
    for (seat, role), t in zip(roles.items(), times, strict=True):
        if role == "none":
            continue
        kind = KIND[role]
        if kind == "mahjong":
            how = uses(state, seat, tile)
            if not how:
                continue  # the filler spoiled the hand: no call
            if (how == {"sequence"} and name.startswith("pungchow") and not
                    ref.may_go_out_by_sequence("pungchow", seat.name, "E",
                                               [p.name for p in state.players])):
                continue  # a call Harr does not allow at all (E): tested in test_claims
        calls.append(cm.Claim(seat=seat, kind=kind, time_us=t))  # type: ignore[arg-type]
    heard = make_calls(state, calls)
    if not heard:
        return
    closed = close_and_compare(state, heard)
    if closed.kind == "mahjong" and closed.winner is not None:
        check_the_showing(state, closed.winner, tile, Seat.E)


# -- whole bot hands -----------------------------------------------------------------------------


def _extra_calls(state: HandState, rng: random.Random) -> list[cm.Claim]:
    """Random calls the seats could make on the live discard (some chows unlawful)."""
    assert state.claimable is not None
    tile, discarder = state.claimable
    calls = []
    for seat in state.others_in_turn(discarder):
        h = state.seats[seat].concealed
        options = []
        if h[tile] >= 2:
            options.append("pung")
        if h[tile] >= 3 and not any(m.kind == "pung" and m.tiles[0] == tile
                                    for m in state.seats[seat].melds):
            options.append("kong")
        if tile < 27:
            options.append("chow")  # refused unless from the left and held
        how = uses(state, seat, tile)
        if how and (how != {"sequence"} or not state.ruleset.sequence_mahjong_is_chow
                    or ref.may_go_out_by_sequence("pungchow", seat.name, discarder.name,
                                                  [p.name for p in state.players])):
            options.append("mahjong")
        if options and rng.random() < 0.6:
            kind = rng.choice(options)
            calls.append(cm.Claim(seat=seat, kind=kind,  # type: ignore[arg-type]
                                  time_us=rng.randint(1, 10**9)))
    return calls


@hands
@given(st.sampled_from(TABLES), st.integers(0, 2**32 - 1))
def test_every_window_of_bot_hands_is_decided_as_the_laws_say(table: tuple[str, int],
                                                              seed: int) -> None:
    name, players = table
    rules = get_ruleset(name)
    rng = random.Random(seed)
    seated = tuple(Seat[s] for s in SEATED[players])
    played = play_hand(rules, rng, default_bots(rng), players=seated, checks=False,
                       cross_check=False).state
    again, _ = new_hand(rules, "full", wall=played.built, players=seated)
    trials = random.Random(seed ^ 0x5EED)
    for _, command in commands_of(played.standing):
        if isinstance(command, cm.CloseClaims) and again.phase == "claims" and again.claims:
            calls = [cm.Claim(seat=c.seat, kind=c.kind, time_us=c.time_us)
                     for c in again.claims]
            expected = judge(again, calls)
            _, events = apply(again, command)
            closed = events[0]
            assert isinstance(closed, ev.ClaimsClosed)
            assert (closed.winner.name if closed.winner is not None else None, closed.kind) == \
                expected[:2], closed
            continue
        apply(again, command)
        if isinstance(command, cm.Discard) and again.phase == "claims":
            trial = again.copy()
            # No call on one's own discard (Law 26's order of play; Classical; Harr F).
            with pytest.raises(RuleViolation):
                apply(trial, cm.Claim(seat=command.seat, kind="pung"))
            heard = make_calls(trial, _extra_calls(trial, trials))
            if heard:
                closed = close_and_compare(trial, heard)
                assert closed.winner is not None
                # Nor after the window closed: the tile is awarded (Laws 50-52, 64).
                late = next((s for s in trial.players if s not in (closed.winner, command.seat)),
                            closed.winner)  # at two, the winner calls again
                with pytest.raises(RuleViolation):
                    apply(trial, cm.Claim(seat=late, kind="mahjong"))
    assert again.phase == "ended"


# -- American C-9 ----------------------------------------------------------------------------


@many
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32 - 1))
def test_american_calls_are_decided_as_c9_says(players: int, seed: int) -> None:
    from engine.american.commands import Call

    rng = random.Random(seed)
    seated = SEATED[players]
    discarder = rng.choice(seated)
    callers = [s for s in seated if s != discarder and rng.random() < 0.8] or \
        [next(s for s in seated if s != discarder)]
    times = rng.sample(range(1, 10**6), len(callers))
    calls = [ref.AmericanCall(s, rng.choice(("expose", "mahjong")), t, rng.random() < 0.3)
             for s, t in zip(callers, times, strict=True)]
    made = [Call(Seat[c.seat], c.kind, time_us=c.time_us, exposed=c.exposed) for c in calls]
    won, _rule = american_adjudicate(Seat[discarder], made, [Seat[s] for s in seated])
    assert won.seat.name == ref.american_winner(calls, discarder, seated)


def test_the_referee_reads_the_reproducers_as_the_book_does() -> None:
    # Hand 24 of pungchow seed 1: North's Mah-jongg takes 6C only into 4-5-6 of Characters.
    north = [0] * 34
    for t in (9, 9, 9, 13, 13, 19, 20, 21, 21, 22):  # 2B 2B 2B 5B 5B 2C 3C 4C 4C 5C
        north[t] += 1
    north[23] += 1  # the 6C
    assert ref.uses_of(north, 1, 23, seven_pairs=False, orphans=True) == {"sequence"}
    calls = [ref.Call("N", "mahjong", 1, frozenset({"sequence"})), ref.Call("S", "pung", 2)]
    assert ref.winner("pungchow", calls, "W", "ESWN") == ("S", "pung", "Pung-Chow, F, rule 4")
    assert ref.winner("code1924", calls, "W", "ESWN") == ("N", "mahjong", "Code 1924, Law 50")
