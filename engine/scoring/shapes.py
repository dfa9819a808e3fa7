"""Special shapes a score table may accept as a complete hand, beyond those of engine.hands:
the BMJA's Wriggling Snake, Knitting, Triple Knitting and All Pair Honours (as defined in
Kajongg's "Classical Chinese BMJA" ruleset; docs/rules.md)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.hands import special_shapes
from engine.tiles import WINDS, Tile, is_honour, is_terminal


def _counts(tiles: Sequence[Tile]) -> list[int]:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return c


def wriggling_snake(c: Sequence[int]) -> bool:
    """One suit and the Winds: a pair of 1s, one each of 2 to 9, one of each Wind."""
    suits = [s for s in range(3) if any(c[s * 9 : s * 9 + 9])]
    if len(suits) != 1 or any(c[31:34]) or any(c[w] != 1 for w in WINDS):
        return False
    ranks = c[suits[0] * 9 : suits[0] * 9 + 9]
    return ranks[0] == 2 and all(r == 1 for r in ranks[1:])


def knitting(c: Sequence[int]) -> bool:
    """Seven pairs, each one tile of two suits with the same value, in two suits only."""
    if any(c[27:]):
        return False
    suits = [s for s in range(3) if any(c[s * 9 : s * 9 + 9])]
    if len(suits) != 2 or sum(c) != 14:
        return False
    a, b = suits
    return all(c[a * 9 + r] == c[b * 9 + r] for r in range(9))


def triple_knitting(c: Sequence[int]) -> bool:
    """Four triples of one value in all three suits and a pair of one value in two suits."""
    if any(c[27:]) or sum(c) != 14:
        return False
    for r in range(9):
        for x, y in ((0, 1), (0, 2), (1, 2)):
            rest = list(c)
            if rest[x * 9 + r] and rest[y * 9 + r]:
                rest[x * 9 + r] -= 1
                rest[y * 9 + r] -= 1
                if all(rest[r2] == rest[9 + r2] == rest[18 + r2] for r2 in range(9)):
                    return True
    return False


def all_pair_honours(c: Sequence[int]) -> bool:
    """Seven different pairs of Terminals and Honours."""
    return sum(c) == 14 and all(
        n in (0, 2) and (n == 0 or is_terminal(t) or is_honour(t)) for t, n in enumerate(c)
    )


def gates_of_heaven(c: Sequence[int]) -> bool:
    """BMJA: 1-1-1-2-3-4-5-6-7-8-9-9-9 of one suit and one more of 2 to 8, whichever tile came
    last (Kajongg's "Gates of Heaven" looks at the fourteen tiles, not at the last one)."""
    suits = [s for s in range(3) if any(c[s * 9 : s * 9 + 9])]
    if len(suits) != 1 or any(c[27:]) or sum(c) != 14:
        return False
    ranks = list(c[suits[0] * 9 : suits[0] * 9 + 9])
    pair = [r for r in range(1, 8) if ranks[r] == 2]
    if len(pair) != 1:
        return False
    ranks[pair[0]] -= 1
    return ranks == [3, 1, 1, 1, 1, 1, 1, 1, 3]


def shapes_of(concealed: Sequence[Tile], melds: int, win_tile: Tile | None) -> list[str]:
    """Every special shape of a concealed 14-tile hand (none when sets are laid)."""
    if melds or len(concealed) != 14:
        return []
    found = special_shapes(concealed, 0, win_tile)
    c = _counts(concealed)
    for name, test in (
        ("wriggling_snake", wriggling_snake),
        ("knitting", knitting),
        ("triple_knitting", triple_knitting),
        ("all_pair_honours", all_pair_honours),
    ):
        if test(c):
            found.append(name)
    if gates_of_heaven(c):
        found.append("gates_of_heaven")
    return found
