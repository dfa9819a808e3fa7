"""engine.hands: arrangements, special hands and waits, checked against the books' examples and
against a brute-force oracle that works on tile lists instead of counts."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import MalformedInput
from engine.hands import (
    SPECIALS_NONE,
    SPECIALS_PUNGCHOW,
    Group,
    arrangements,
    fills_only_place,
    is_complete,
    is_waiting,
    special_hands,
    special_shapes,
    waits,
)
from engine.tiles import NUM_KINDS, parse_tile, parse_tiles, tile_names


def T(text: str) -> list[int]:
    return parse_tiles(text)


# -- brute-force oracle -----------------------------------------------------------------------


def _is_set(a: int, b: int, c: int) -> str | None:
    x, y, z = sorted((a, b, c))
    if x == y == z:
        return "pung"
    if z < 27 and x // 9 == z // 9 and y == x + 1 and z == x + 2:
        return "chow"
    return None


def _oracle_sets(tiles: list[int]) -> set[tuple[tuple[str, int], ...]]:
    """All ways to cut a tile list into sets, by choosing partners for its first tile."""
    if not tiles:
        return {()}
    first, rest = tiles[0], tiles[1:]
    found: set[tuple[tuple[str, int], ...]] = set()
    for i in range(len(rest)):
        for j in range(i + 1, len(rest)):
            kind = _is_set(first, rest[i], rest[j])
            if kind:
                left = [t for k, t in enumerate(rest) if k not in (i, j)]
                low = min(first, rest[i], rest[j])
                for more in _oracle_sets(left):
                    found.add(tuple(sorted(((kind, low), *more))))
    return found


def oracle_arrangements(tiles: list[int]) -> set[tuple[tuple[str, int], ...]]:
    found: set[tuple[tuple[str, int], ...]] = set()
    for kind in set(tiles):
        if tiles.count(kind) >= 2:
            rest = list(tiles)
            rest.remove(kind)
            rest.remove(kind)
            for sets in _oracle_sets(sorted(rest)):
                found.add(tuple(sorted((("pair", kind), *sets))))
    return found


def as_oracle(arrs: list[tuple[Group, ...]]) -> set[tuple[tuple[str, int], ...]]:
    return {tuple(sorted((g.kind, g.tile) for g in arr)) for arr in arrs}


def _legal(tiles: list[int]) -> bool:
    return max(Counter(tiles).values(), default=0) <= 4


# Hands built from sets are usually complete; hands of random tiles usually are not.
_suited_set = st.one_of(
    st.integers(0, 26).map(lambda t: [t, t, t]),
    st.tuples(st.integers(0, 2), st.integers(0, 6)).map(
        lambda s: [s[0] * 9 + s[1], s[0] * 9 + s[1] + 1, s[0] * 9 + s[1] + 2]
    ),
    st.integers(27, 33).map(lambda t: [t, t, t]),
)


@st.composite
def built_hands(draw: st.DrawFn) -> tuple[list[int], int]:
    melds = draw(st.integers(0, 4))
    sets = draw(st.lists(_suited_set, min_size=4 - melds, max_size=4 - melds))
    pair = draw(st.integers(0, NUM_KINDS - 1))
    tiles = [t for s in sets for t in s] + [pair, pair]
    if draw(st.booleans()):  # spoil it sometimes
        tiles[draw(st.integers(0, len(tiles) - 1))] = draw(st.integers(0, NUM_KINDS - 1))
    return sorted(tiles), melds


@st.composite
def random_hands(draw: st.DrawFn) -> tuple[list[int], int]:
    melds = draw(st.integers(0, 4))
    # A narrow band of kinds makes complete hands likely enough to matter.
    lo = draw(st.integers(0, NUM_KINDS - 9))
    tiles = draw(
        st.lists(st.integers(lo, lo + 8), min_size=14 - 3 * melds, max_size=14 - 3 * melds)
    )
    return sorted(tiles), melds


# -- worked examples ----------------------------------------------------------------------------


def test_two_readings_of_the_terraced_hand() -> None:
    # 111 222 333 can be three pungs or three chows of 1-2-3: the scorer must see both
    # (Code 1924, ambiguity A13: score the arrangement that scores highest).
    arrs = arrangements(T("1C 1C 1C 2C 2C 2C 3C 3C 3C 8C 8C 8C 9C 9C"))
    assert {tuple(g.kind for g in a) for a in arrs} == {
        ("pung", "pung", "pung", "pung", "pair"),
        ("chow", "chow", "chow", "pung", "pair"),
    }


def test_melds_already_laid_reduce_the_sets_needed() -> None:
    assert is_complete(T("2B 3B 4B 5D 5D"), melds=3)
    assert not is_complete(T("2B 3B 4B 5D 5D"), melds=2)  # wrong count for two laid sets
    assert arrangements(T("EW EW"), melds=4) == [(Group("pair", parse_tile("EW")),)]


def test_honours_make_no_chows() -> None:
    assert not is_complete(T("EW SW WW RD RD RD GD GD GD WD WD WD NW NW"))


def test_sequences_do_not_wrap_or_cross_suits() -> None:
    assert not is_complete(T("8B 9B 1C 5D 5D 5D 6D 6D 6D 7D 7D 7D 2C 2C"))
    assert not is_complete(T("8B 9B 1B 5D 5D 5D 6D 6D 6D 7D 7D 7D 2C 2C"))


def test_thirteen_orphans_code_1924_law_100_ix() -> None:
    hand = T("1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD 9D")
    assert special_shapes(hand) == ["thirteen_orphans"]
    assert is_complete(hand)
    assert is_complete(hand, specials=SPECIALS_PUNGCHOW)  # Pung-Chow limit hand 1
    assert not is_complete(hand, specials=SPECIALS_NONE)
    # thirteen-way wait: any orphan completes it
    assert tile_names(waits(hand[:-1])) == tile_names(sorted(set(hand)))


def test_heavenly_twins_and_seven_twins_code_1924_law_100_xvi() -> None:
    honours = T("EW EW SW SW WW WW NW NW RD RD GD GD WD WD")
    one_suit = T("1D 1D 2D 2D 4D 4D 5D 5D 7D 7D 8D 8D 9D 9D")
    mixed = T("1D 1D 2D 2D 4D 4D 5D 5D 7D 7D RD RD WD WD")
    two_suits = T("1D 1D 2D 2D 4D 4D 5D 5D 7D 7D 1B 1B WD WD")
    assert "heavenly_twins" in special_shapes(honours)
    assert "heavenly_twins" in special_shapes(one_suit)
    assert "seven_twins" in special_shapes(mixed)  # Law 100 XVI (a): half the limit
    assert special_shapes(two_suits) == ["seven_pairs"]
    assert not is_complete(two_suits)  # the Code knows no plain seven pairs
    # "seven different pairs": a pair twice over is not seven twins
    assert special_shapes(T("1D 1D 1D 1D 4D 4D 5D 5D 7D 7D RD RD WD WD")) == []


def test_nine_gates_code_1924_law_100_viii() -> None:
    gates = T("1B 1B 1B 2B 3B 4B 5B 6B 7B 8B 9B 9B 9B")
    assert tile_names(waits(gates)) == [f"{r}B" for r in range(1, 10)]
    for r in range(1, 10):
        tile = parse_tile(f"{r}B")
        assert "nine_gates" in special_shapes([*gates, tile], win_tile=tile)
    # the same fourteen tiles completed by a tile that breaks the gates are not Nine Gates
    complete = [*gates, parse_tile("5B")]
    assert "nine_gates" not in special_shapes(complete, win_tile=parse_tile("1B"))
    assert special_hands(complete) == ["nine_gates"]


def test_waits_and_the_only_place() -> None:
    # 2B 3B waits on both ends; 1B 3B fills only the middle (Code 1924, Law 89, Filling Only
    # Place; Pung-Chow: "drawing the middle tile of a sequence").
    assert tile_names(waits(T("2B 3B 5D 5D 5D EW EW"), 2)) == ["1B", "4B"]
    assert tile_names(waits(T("1B 3B 5D 5D 5D EW EW"), 2)) == ["2B"]
    assert fills_only_place(T("1B 2B 3B 5D 5D 5D EW EW"), 2, parse_tile("2B"))
    assert not fills_only_place(T("2B 3B 4B 5D 5D 5D EW EW"), 2, parse_tile("4B"))
    assert is_waiting(T("1B 3B 5D 5D 5D EW EW"), 2)


def test_a_wait_with_all_four_copies_visible_is_no_wait() -> None:
    visible = [0] * NUM_KINDS
    visible[parse_tile("1B")] = 4
    assert tile_names(waits(T("2B 3B 5D 5D 5D EW EW"), 2, visible)) == ["4B"]
    # ... and then 4B fills the only place left
    assert fills_only_place(T("2B 3B 4B 5D 5D 5D EW EW"), 2, parse_tile("4B"), visible)
    # a tile the hand itself holds four of is not waited for
    assert waits(T("1B 1B 1B 1B 2B 2B 2B 5D 5D 5D EW EW EW"), 0) == [parse_tile("3B")]


def test_bad_input_names_the_place() -> None:
    with pytest.raises(MalformedInput, match=r"concealed\[1\]"):
        is_complete([0, 34])
    with pytest.raises(MalformedInput, match="5 copies"):
        is_complete([0] * 5 + [1] * 9)
    with pytest.raises(MalformedInput, match=r"win\.tile"):
        fills_only_place(T("1B 2B 3B 5D 5D 5D EW EW"), 2, parse_tile("9C"))


# -- against the oracle --------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.one_of(built_hands(), random_hands()))
def test_arrangements_match_brute_force(hand: tuple[list[int], int]) -> None:
    tiles, melds = hand
    if not _legal(tiles):
        return
    expected = oracle_arrangements(tiles)
    assert as_oracle(arrangements(tiles, melds)) == expected
    assert is_complete(tiles, melds, specials=SPECIALS_NONE) == bool(expected)


@settings(max_examples=150, deadline=None)
@given(st.one_of(built_hands(), random_hands()), st.data())
def test_waits_match_brute_force(hand: tuple[list[int], int], data: st.DataObject) -> None:
    tiles, melds = hand
    if not _legal(tiles):
        return
    tiles = tiles[:-1]
    visible = data.draw(st.lists(st.integers(0, 2), min_size=NUM_KINDS, max_size=NUM_KINDS))
    expected = [
        t
        for t in range(NUM_KINDS)
        if tiles.count(t) + visible[t] < 4 and oracle_arrangements(sorted([*tiles, t]))
    ]
    assert waits(tiles, melds, visible, specials=SPECIALS_NONE) == expected


# -- special hands against their definitions ------------------------------------------------------


def oracle_special_1924(tiles: list[int]) -> bool:
    """Law 100 IX, XVI, XVI (a) read straight from the text."""
    if len(tiles) != 14:
        return False
    kinds = set(tiles)
    if kinds == set(range(27, 34)) | {0, 8, 9, 17, 18, 26}:
        return True  # one of each orphan and a fourteenth pairing one
    if len(kinds) != 7 or any(tiles.count(k) != 2 for k in kinds):
        return False
    suits = {k // 9 for k in kinds if k < 27}
    honours = any(k >= 27 for k in kinds)
    return len(suits) <= 1 and (bool(suits) or honours)


_orphans = [0, 8, 9, 17, 18, 26, *range(27, 34)]


@st.composite
def special_like(draw: st.DrawFn) -> list[int]:
    if draw(st.booleans()):
        extra = draw(st.sampled_from(_orphans + [4, 13]))
        return sorted([*_orphans, extra])
    suit = draw(st.integers(0, 2))
    pool = [suit * 9 + r for r in range(9)] + list(range(27, 34)) + [((suit + 1) % 3) * 9]
    kinds = draw(st.lists(st.sampled_from(pool), min_size=7, max_size=7))
    return sorted(k for k in kinds for _ in range(2))


@settings(max_examples=300, deadline=None)
@given(special_like())
def test_special_hands_match_their_definitions(tiles: list[int]) -> None:
    if not _legal(tiles):
        return
    expected = bool(oracle_arrangements(tiles)) or oracle_special_1924(tiles)
    assert is_complete(tiles) == expected
    waiting = tiles[1:]
    assert waits(waiting) == [
        t
        for t in range(NUM_KINDS)
        if waiting.count(t) < 4
        and (oracle_arrangements(sorted([*waiting, t])) or oracle_special_1924([*waiting, t]))
    ]
