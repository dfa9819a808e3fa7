"""The matcher against an independent brute-force matcher (property test).

The oracle shares only the parser with the engine. It realises each line slot by slot (every
tile of every group, with a flag for "a Joker may sit here"), tries every way to lay the
exposures on groups, and finds the most tiles a hand can keep by a maximum bipartite matching
of single tiles to single slots (Kuhn's algorithm): no per-tile counting, no bit codes.
"""

from __future__ import annotations

import functools
import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.american.card import CompiledCard, compile_card
from engine.american.cln import NUMBER_VARS, SUIT_VARS, WIND_VARS, CardLine, parse_card
from engine.american.match import Hand, HandError, make_hand, matches, tiles_away
from engine.tiles import EW, FLOWER, GD, JOKER, NW, RD, SW, WD, WW, Tile

SMALL_CARD = """card "oracle card" 2026
T-1 X 25 : 22a 2222a 333a 4444b 1a                    "pair and kong of one tile"
T-2 X 25 : 555a 555b 5555c FFFF!                       "fives, natural flowers"
T-3 X 30 : 11a 111a 1111a 1a NNNN                      "four groups of one tile"
T-4 C 40 : FF 2026a 2026b NNNN                         "concealed with a set"
T-5 X 25 : XXX0a XXX0b ZZZZ X0X1a UU                   "like pungs, a run, two winds"
T-6 X 30 : DDDa DDDb DDDD* 11c GG ; a~b                "dragons"
T-7 X 35 : FFFFF 66a 666b 6666c                        "flower quint"
T-8 C 50 : NEWS 13579a DDa FFF                         "concealed, flowers pung"
"""

SUITS = "BCD"
DRAGON = {"B": GD, "C": RD, "D": WD}
WIND = {"N": NW, "E": EW, "W": WW, "S": SW}

Slot = tuple[Tile, bool]  # tile, a Joker may fill it
Structure = list[list[Slot]]  # groups of slots


def _structures(line: CardLine) -> list[Structure]:
    """Every realisation of a line by plain nested loops over all variable values."""
    out: list[Structure] = []
    cons = line.constraints
    for groups in line.patterns:
        letters = sorted({g.suit for g in groups if g.suit in tuple(SUIT_VARS)})
        fixed = {g.suit[1] for g in groups if g.suit and g.suit.startswith("@")}
        nvars = sorted({e.symbol for g in groups for e in g.elements if e.symbol in NUMBER_VARS})
        wvars = sorted({e.symbol for g in groups for e in g.elements if e.symbol in WIND_VARS})
        stars = [i for i, g in enumerate(groups) if g.suit == "*"]
        for suits in itertools.product(SUITS, repeat=len(letters)):
            smap = dict(zip(letters, suits, strict=True))
            if any(s in fixed for s in suits):
                continue
            if any(smap[x] == smap[y] and frozenset((x, y)) not in cons.same_suit_ok
                   for x, y in itertools.combinations(letters, 2)):
                continue
            for nums in itertools.product(range(1, 10), repeat=len(nvars)):
                nmap = dict(zip(nvars, nums, strict=True))
                if any(nmap[v] not in cons.numbers_for(v) for v in nvars):
                    continue
                if any(nmap[x] == nmap[y] and frozenset((x, y)) not in cons.same_number_ok
                       for x, y in itertools.combinations(nvars, 2)):
                    continue
                for winds in itertools.product("NEWS", repeat=len(wvars)):
                    wmap = dict(zip(wvars, winds, strict=True))
                    if any(wmap[v] not in cons.winds_for(v) for v in wvars):
                        continue
                    if any(wmap[x] == wmap[y] and frozenset((x, y)) not in cons.same_wind_ok
                           for x, y in itertools.combinations(wvars, 2)):
                        continue
                    for dragons in itertools.product((RD, GD, WD), repeat=len(stars)):
                        dmap = dict(zip(stars, dragons, strict=True))
                        structure = _realise(groups, smap, nmap, wmap, dmap,
                                             not cons.no_jokers)
                        if structure is not None:
                            out.append(structure)
    return out


def _realise(groups, smap, nmap, wmap, dmap, jokers_ok) -> Structure | None:  # type: ignore[no-untyped-def]
    structure: Structure = []
    for gi, g in enumerate(groups):
        suit = g.suit[1] if g.suit and g.suit.startswith("@") else smap.get(g.suit, "")
        like = len({(e.symbol, e.offset) for e in g.elements}) == 1
        size = sum(e.count for e in g.elements)
        jokerable = like and size >= 3 and jokers_ok and not g.naturals_only
        slots: list[Slot] = []
        for e in g.elements:
            s = e.symbol
            if s in NUMBER_VARS:
                value = nmap[s] + (e.offset or 0)
                if not 1 <= value <= 9:
                    return None
                tile = SUITS.index(suit) * 9 + value - 1
            elif s in "123456789":
                tile = SUITS.index(suit) * 9 + int(s) - 1
            elif s == "0":
                tile = WD
            elif s == "F":
                tile = FLOWER
            elif s == "R":
                tile = RD
            elif s == "G":
                tile = GD
            elif s == "D":
                tile = dmap.get(gi, DRAGON.get(suit, -1))
            elif s in WIND_VARS:
                tile = WIND[wmap[s]]
            else:
                tile = WIND[s]
            slots += [(tile, jokerable)] * e.count
        structure.append(slots)
    # Joker-proof slots beyond the supply (4 naturals, 8 Flowers) cannot be filled.
    proof: dict[Tile, int] = {}
    for slots in structure:
        for tile, jok in slots:
            if not jok:
                proof[tile] = proof.get(tile, 0) + 1
    if any(n > (8 if t == FLOWER else 4) for t, n in proof.items()):
        return None
    return structure


def _max_matching(tiles: list[Tile], slots: list[Slot]) -> int:
    owner: list[int] = [-1] * len(slots)

    def fits(tile: Tile, slot: Slot) -> bool:
        return slot[0] == tile or (tile == JOKER and slot[1])

    def augment(i: int, seen: set[int]) -> bool:
        for j, slot in enumerate(slots):
            if j not in seen and fits(tiles[i], slot):
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(1 for i in range(len(tiles)) if augment(i, set()))


@functools.lru_cache(maxsize=8)
def _card_structures(card_text: str) -> tuple[tuple[CardLine, list[Structure]], ...]:
    card, _ = parse_card(card_text)
    return tuple((line, _structures(line)) for line in card.lines)


def _oracle(card_text: str, hand: Hand) -> tuple[dict[str, bool], dict[str, int]]:
    concealed = [t for t, n in hand.concealed for _ in range(n)] + [JOKER] * hand.jokers
    complete: dict[str, bool] = {}
    best: dict[str, int] = {}
    for line, structures in _card_structures(card_text):
        if line.concealed and hand.exposures:
            continue
        for structure in structures:
            jokerable = any(jok for group in structure for _, jok in group)
            for order in itertools.permutations(range(len(structure)), len(hand.exposures)):
                ok = True
                for e, gi in zip(hand.exposures, order, strict=True):
                    group = structure[gi]
                    same = len(group) == e.size and all(t == e.tile for t, _ in group)
                    if not same or (e.jokers and not group[0][1]):
                        ok = False
                if not ok:
                    continue
                rest = [s for gi, g in enumerate(structure) if gi not in order for s in g]
                kept = sum(e.size for e in hand.exposures) + _max_matching(concealed, rest)
                best[line.id] = max(best.get(line.id, 0), kept)
                if kept == 14 and hand.size == 14:
                    complete[line.id] = complete.get(line.id, False) or (
                        jokerable and hand.total_jokers == 0)
    return complete, {k: 14 - v for k, v in best.items()}


def _random_hand(rng: random.Random, card_text: str) -> Hand | None:
    line, structures = rng.choice(_card_structures(card_text))
    if not structures:
        return None
    structure = rng.choice(structures)
    exposures: list[list[Tile]] = []
    concealed: list[Tile] = []
    for group in structure:
        tiles = [JOKER if jok and rng.random() < 0.3 else t for t, jok in group]
        is_set = len(group) >= 3 and len({t for t, _ in group}) == 1
        if (is_set and not line.concealed and rng.random() < 0.35
                and any(t != JOKER for t in tiles)):
            exposures.append(tiles)
        else:
            concealed += tiles
    # Disturb: swap some concealed tiles for random ones, maybe drop one for 13 tiles.
    pool = list(range(34)) + [FLOWER, JOKER]
    for _ in range(rng.choice((0, 0, 1, 2, 4))):
        if concealed:
            concealed[rng.randrange(len(concealed))] = rng.choice(pool)
    if concealed and rng.random() < 0.4:
        concealed.pop(rng.randrange(len(concealed)))
    try:
        return make_hand(concealed, exposures)
    except HandError:
        return None


@functools.lru_cache(maxsize=8)
def _compiled(card_text: str) -> CompiledCard:
    compiled, problems = compile_card(card_text)
    assert compiled is not None, problems
    return compiled


def _check_against_oracle(card_text: str, seed: int) -> None:
    compiled = _compiled(card_text)
    rng = random.Random(seed)
    hand = _random_hand(rng, card_text)
    if hand is None:
        return
    complete, away = _oracle(card_text, hand)
    got_matches = {compiled.lines[m.line].id: m.jokerless for m in matches(compiled, hand)}
    got_away = {compiled.lines[line].id: n for line, n in tiles_away(compiled, hand)}
    assert got_matches == complete, (hand, got_matches, complete)
    assert got_away == away, (hand, got_away, away)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_matcher_agrees_with_brute_force_on_small_card(seed: int) -> None:
    _check_against_oracle(SMALL_CARD, seed)


SAMPLE_SUBSET = """card "sample subset" 2026
YR-1 X 30 : 2026a NNN DDDb DDDc S
EV-1 X 25 : 88a 666a 44b 222b 0000 ; a~b
LK-1 X 30 : FFF! XXX0a XXX0b XXX0c NE ; X odd
QN-1 X 40 : XXXXX0a DDa XXXX1b DDb F
RN-1 X 25 : FF 345a 345b 3333c 55c | FF 567a 567b 5555c 77c
SP-1 C 50 : FF 13579a 13579b DDc
MT-1 X 30 : 1111@C + 5555@B = 66@D 000 F
"""


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_matcher_agrees_with_brute_force_on_sample_lines(seed: int) -> None:
    _check_against_oracle(SAMPLE_SUBSET, seed)
