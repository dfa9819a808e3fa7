"""An independent referee for call windows, written from the rule books alone.

It shares nothing with the engine's adjudication (``engine.claims``) or its hand divider
(``engine.hands``): the precedence, the order of play and the ways a tile can complete a hand
are worked out again here, as a referee reading the laws would, so that the property tests in
``test_referee.py`` compare two readings of the same laws.

Sources: Code of 1924, Laws 34-35, 50-52 and the Two- and Three-Hand Games; Classical claim
priority (a)-(c), "claiming a tile for a chow/chi" and two or three players "following the same
principles"; Harr, Pung-Chow, E (to chow) and F rules 2, 4-6; American C-9.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SEAT_ORDER = "ESWN"  # the order of play (Law 26): to the right, counter-clockwise
HONOURS = range(27, 34)
ORPHANS = (0, 8, 9, 17, 18, 26, *HONOURS)

# The citation each book gives for each kind of decision.
CITES = {
    "code1924": {"mahjong_order": "Code 1924, Law 51", "mahjong_over": "Code 1924, Law 50",
                 "set_over_chow": "Code 1924, Law 52"},
    "classical": {"mahjong_order": "Classical, claim priority (c)",
                  "mahjong_over": "Classical, claim priority (b)",
                  "set_over_chow": "Classical, claim priority (a)"},
    "pungchow": {"mahjong_order": "Pung-Chow, F, rule 6", "mahjong_over": "Pung-Chow, F, rule 5",
                 "set_over_chow": "Pung-Chow, F, rule 4"},
}


@dataclass(frozen=True)
class Call:
    seat: str  # "E" "S" "W" "N"
    kind: str  # chow pung kong mahjong
    time_us: int
    uses: frozenset[str] = frozenset()  # for Mah-jongg: how the tile can complete the hand


def after(discarder: str, players: Sequence[str]) -> list[str]:
    """The other players in the order of play after the discarder."""
    seated = [s for s in SEAT_ORDER if s in players]
    i = seated.index(discarder)
    return seated[i + 1:] + seated[:i]


def next_player(discarder: str, players: Sequence[str]) -> str:
    return after(discarder, players)[0]


def table_has_chows(family: str, players: int) -> bool:
    # 1924 Two-Hand Game: "A discard cannot be chowed." Classical: "the same principles".
    return not (family == "code1924" and players == 2)


def may_chow_for_a_set(family: str, seat: str, discarder: str, players: Sequence[str]) -> bool:
    # Law 34, Harr E, Classical: only the next player in turn.
    return table_has_chows(family, len(players)) and seat == next_player(discarder, players)


def may_go_out_by_sequence(family: str, seat: str, discarder: str,
                           players: Sequence[str]) -> bool:
    if not table_has_chows(family, len(players)):
        return False
    if family == "pungchow":  # E: "a player may Chow only in his regular turn"
        return seat == next_player(discarder, players)
    return True  # Law 35; Classical "no matter which of the other players discards it"


def winner(family: str, calls: Sequence[Call], discarder: str,
           players: Sequence[str]) -> tuple[str, str, str | None]:
    """``(seat, kind, citation)`` of the call that takes the tile; the citation only when
    two or more calls competed."""
    distance = {s: i for i, s in enumerate(after(discarder, players))}

    def level(c: Call) -> int:
        if c.kind == "mahjong":
            if family == "pungchow" and c.uses == frozenset({"sequence"}):
                return 2  # F rule 4: a chow, though it completes the hand
            return 0  # Law 50; Classical (b); F rules 2, 5
        return 1 if c.kind in ("pung", "kong") else 2  # Law 52; Classical (a); F rule 4

    best = min(level(c) for c in calls)
    top = [c for c in calls if level(c) == best]
    if any(c.kind == "mahjong" for c in top):
        # Law 51; Classical (c); F rule 6: the first in turn after the discarder.
        chosen = min(top, key=lambda c: distance[c.seat])
    else:
        chosen = min(top, key=lambda c: c.time_us)  # two true set claims cannot tie
    if len(calls) == 1:
        return chosen.seat, chosen.kind, None
    cites = CITES[family]
    if len(top) > 1:
        return chosen.seat, chosen.kind, cites["mahjong_order"]
    rest = min(level(c) for c in calls if c is not chosen)
    if best == 0 and (rest == 1 or family != "pungchow"):
        return chosen.seat, chosen.kind, cites["mahjong_over"]
    return chosen.seat, chosen.kind, cites["set_over_chow"]


# -- how a tile completes a hand -------------------------------------------------------------


def uses_of(counts: Sequence[int], sets_grounded: int, tile: int,
            seven_pairs: bool, orphans: bool) -> frozenset[str]:
    """The ways ``tile`` sits in a complete arrangement of the concealed ``counts`` (the tile
    included): ``sequence``, ``pung``, ``pair``, ``special``. Empty: not complete."""
    found: set[str] = set()
    c = list(counts)
    sets = 4 - sets_grounded
    if c[tile] >= 2:
        c[tile] -= 2
        if _complete(c, sets, pair=False):
            found.add("pair")
        c[tile] += 2
    if c[tile] >= 3:
        c[tile] -= 3
        if _complete(c, sets - 1, pair=True):
            found.add("pung")
        c[tile] += 3
    if tile < 27:
        r = tile % 9
        for lo in (r - 2, r - 1, r):
            run = [tile - r + lo + k for k in range(3)]
            if lo < 0 or lo + 2 > 8 or any(c[t] < 1 for t in run):
                continue
            for t in run:
                c[t] -= 1
            if _complete(c, sets - 1, pair=True):
                found.add("sequence")
            for t in run:
                c[t] += 1
    if sets_grounded == 0 and sum(counts) == 14:
        if orphans and all(counts[t] >= 1 for t in ORPHANS) and sum(
                counts[t] for t in ORPHANS) == 14:
            found.add("special")
        if seven_pairs and _seven_pairs(counts):
            found.add("special")
    return frozenset(found)


def _complete(c: list[int], sets: int, pair: bool) -> bool:
    """Can ``c`` make exactly ``sets`` sets, and a pair if ``pair``?"""
    if sets < 0:
        return False
    first = next((t for t, n in enumerate(c) if n), None)
    if first is None:
        return sets == 0 and not pair
    ok = False
    if pair and c[first] >= 2:
        c[first] -= 2
        ok = _complete(c, sets, False)
        c[first] += 2
    if not ok and c[first] >= 3:
        c[first] -= 3
        ok = _complete(c, sets - 1, pair)
        c[first] += 3
    if not ok and first < 27 and first % 9 <= 6 and c[first + 1] and c[first + 2]:
        for t in (first, first + 1, first + 2):
            c[t] -= 1
        ok = _complete(c, sets - 1, pair)
        for t in (first, first + 1, first + 2):
            c[t] += 1
    return ok


def _seven_pairs(counts: Sequence[int]) -> bool:
    # Law 100 XVI, XVI (a): seven different pairs, of one suit with or without Honours.
    pairs = [t for t, n in enumerate(counts) if n]
    suits = {t // 9 for t in pairs if t < 27}
    return len(pairs) == 7 and all(counts[t] == 2 for t in pairs) and len(suits) <= 1


# -- American C-9 ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AmericanCall:
    seat: str
    kind: str  # expose mahjong
    time_us: int
    exposed: bool


def american_winner(calls: Sequence[AmericanCall], discarder: str,
                    players: Sequence[str]) -> str:
    """C-9: Mah Jongg beats an exposure; between calls of one kind the player next in turn
    after the discarder; but a slow next-in-turn player loses an exposure call to a caller
    who had already exposed tiles for this call before he called (then, among those, the
    general rule again: next in turn)."""
    distance = {s: i for i, s in enumerate(after(discarder, players))}
    mahjong = [c for c in calls if c.kind == "mahjong"]
    if mahjong:
        return min(mahjong, key=lambda c: distance[c.seat]).seat
    nearest = min(calls, key=lambda c: distance[c.seat])
    if nearest.exposed:
        return nearest.seat
    quicker = [c for c in calls if c.exposed and c.time_us < nearest.time_us]
    return min(quicker, key=lambda c: distance[c.seat]).seat if quicker else nearest.seat
