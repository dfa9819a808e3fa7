"""Each family's score table, as data.

A table maps a *feature* of a hand (``"pung_simple_concealed"``, ``"set_dragon"``,
``"no_sequences"``, ``"thirteen_orphans"`` ...; :mod:`engine.scoring.features` finds them) to an
:class:`Entry`: what it is worth to the winner and to the others, and the rule that grants it.
A feature the table does not list is worth nothing in that family. One machinery
(:mod:`engine.scoring.score`) reads every table; nothing below is code that decides.

Sources are cited per entry; ``docs/rules.md`` gives the reasons for every reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Award:
    """Points to add, doubles to apply, or a limit hand worth ``limit`` times the limit."""

    points: int = 0
    doubles: int = 0
    limit: float = 0.0
    limit_points: float = 0.0  # points worth this fraction of the limit (Pung-Chow II bonus 5)


@dataclass(frozen=True)
class Entry:
    name: str
    rule: str
    winner: Award | None
    others: Award | None = None


def pts(n: int) -> Award:
    return Award(points=n)


def dbl(n: int) -> Award:
    return Award(doubles=n)


def lim(f: float = 1.0) -> Award:
    return Award(limit=f)


def both(name: str, rule: str, award: Award) -> Entry:
    return Entry(name, rule, award, award)


def win(name: str, rule: str, award: Award) -> Entry:
    return Entry(name, rule, award, None)


@dataclass(frozen=True)
class Ruleset:
    """One family's scoring: its table and the numbers around it."""

    name: str
    book: str
    table: Mapping[str, Entry]
    limit: int | None  # default limit (None: no limit)
    has_prevailing_wind: bool
    # Special shapes that complete a hand in this family (names from engine.hands / features).
    specials: frozenset[str]
    # Mah-jongg requirements beyond four sets and a pair.
    min_doubles: int = 0  # doubles needed, flower doubles not counted (1924 Law 46)
    cleared_only: bool = False  # one suit, terminals or honours only (1924 Law 47)
    max_chows: int | None = None  # BMJA: at most one chow
    limit_hands_qualify: frozenset[str] = frozenset()  # limit hands that meet the requirement
    requirement_rule: str = ""
    # Settlement among the losers: "difference" caps the difference (1924 Law 93), "score" caps
    # each hand first, None: no settlement among losers.
    losers_settle: str | None = "difference"
    east_double: bool = True
    # False Mah-jongg: "limit" (1924 Law 86: the limit to East, half to the others; East pays
    # the limit to each) or "each" (a fixed amount to each other player; 0 = half the limit).
    false_mahjong: str = "limit"
    false_mahjong_amount: int = 0
    false_mahjong_rule: str = ""
    penalty_limit: int | None = None  # the limit a penalty is reckoned in when play has none
    faults: Mapping[str, str] = field(default_factory=dict)  # fault -> "zero" | "restricted"
    fault_rule: str = ""
    pay_for_all: str | None = None  # "insurance" (1924 Laws 77-79), "reckless" (Pung-Chow)
    pay_for_all_cancels_losers: bool = True
    settlement_order: str = "turn"  # "turn" (Law 82, to the right) | "score" (Pung-Chow)
    limit_hand_value: int = 500  # what a limit hand is worth when play has no limit
    washing: Mapping[int, int] = field(default_factory=dict)  # heads -> points (Pung-Chow II)
    # "Filling the only place": "wait" = the hand waited for that one tile alone (1924 A6;
    # Kajongg "Last Tile is Only Possible Tile"); "shape" = the tile matched the pair or filled
    # a sequence in the middle or at its only open end (Pung-Chow, bonus 4).
    only_place: str = "wait"
    # Pung-Chow II scores the final pair by how it was completed *instead of* as a pair;
    # Kajongg's classical rules add the bonus to the pair's own points.
    final_pair_replaces: bool = False
    # Kajongg: the set or pair the claimed winning tile completes is exposed, the pair too, so a
    # hand won on a discard is never "Only Concealed Melds" (the books keep a claimed pair hidden).
    claimed_pair_exposed: bool = False
    # BMJA: a non-winner's hand one tile from one of these (feature keys) scores the table's
    # ``calling_<key>`` row ("Calling for ..."); empty elsewhere.
    calling_hands: frozenset[str] = frozenset()
    # Kajongg: a hand worth a fraction of the limit (Knitting, "Calling for ...") takes its
    # ordinary score instead when that is higher; the books' limit hands are worth their value.
    fraction_is_a_floor: bool = False


def _freeze(d: dict[str, Entry]) -> Mapping[str, Entry]:
    return MappingProxyType(dict(d))


# -- shared rows ------------------------------------------------------------------------------


def _set_rows(rule: str, prefix: str = "") -> dict[str, Entry]:
    """Basic counts for pungs and kongs (1924 Law 89; Pung-Chow score card; Kajongg)."""
    values = {
        "pung_simple": (2, 4, "Triplet of Simples"),
        "pung_terminal": (4, 8, "Triplet of Terminals"),
        "pung_honour": (4, 8, "Triplet of Honours"),
        "kong_simple": (8, 16, "Four of Simples"),
        "kong_terminal": (16, 32, "Four of Terminals"),
        "kong_honour": (16, 32, "Four of Honours"),
    }
    rows = {}
    for key, (grounded, concealed, name) in values.items():
        rows[f"{prefix}{key}_exposed"] = both(f"{name}, grounded", rule, pts(grounded))
        rows[f"{prefix}{key}_concealed"] = both(f"{name}, concealed", rule, pts(concealed))
    return rows


_L89 = "Code 1924, Law 89"
_L92 = "Code 1924, Law 92"
_L100 = "Code 1924, Law 100"


def _code1924(game: str) -> Ruleset:
    cleared = game == "cleared"
    mixed = game == "mixed"

    def situational(name: str, rule: str = _L89) -> Entry:
        # 1 double in the Mixed-Hand and One-Double games, 10 points in the Cleared-Hand game.
        return win(name, rule, pts(10) if cleared else dbl(1))

    def suit_double(name: str, n: int) -> Entry:
        # `*`: also allowed to non-winners in the One-Double and Cleared-Hand games (A1).
        return Entry(name, _L89, dbl(n), None if mixed else dbl(n))

    def limit_row(name: str, rule: str) -> Entry:
        # `#`: a non-winner's hand of this kind scores 3 doubles in those two games.
        return Entry(name, rule, lim(), None if mixed else dbl(3))

    t: dict[str, Entry] = _set_rows(_L89)
    t |= {
        "pair_dragon": both("Pair of Dragons", _L89, pts(2)),
        "pair_own_wind": both("Pair of own Wind", _L89, pts(2)),
        "pair_prevailing_wind": both("Pair of the Prevailing Wind", _L89, pts(2)),
        "pair_own_prevailing": both("Pair of own Wind when Prevailing", _L89, pts(4)),
        "flower": both("Flower or Season", _L89, pts(4)),
        "set_dragon": both("Triplet of Dragons", _L89, dbl(1)),
        "set_own_wind": both("Triplet of own Wind", _L89, dbl(1)),
        "set_prevailing_wind": both("Triplet of the Prevailing Wind", _L89, dbl(1)),
        "set_own_prevailing": both("Triplet of own Wind when Prevailing", _L89, dbl(2)),
        "own_flower": both("Own Flower", _L89, dbl(1)),
        "own_season": both("Own Season", _L89, dbl(1)),
        # four doubles in all, the own Flower's one included
        "bouquet_flowers": both("Bouquet of four Flowers", _L89, dbl(3)),
        "bouquet_seasons": both("Bouquet of four Seasons", _L89, dbl(3)),
        "mahjong": win("Mah-jongg", _L89, pts(20)),
        "self_drawn": win("Drawing the winning tile", _L89, pts(2)),
        "only_place": win("Filling the only place", _L89, pts(2)),
        "last_tile": situational("Winning with the last available tile", "Code 1924, Laws 87-89"),
        "last_discard": situational(
            "Winning with a discard after the last available tile", "Code 1924, Laws 88-89"
        ),
        "loose_tile": situational("Winning with the loose tile after a Kong"),
        "robbing_kong": situational("Robbing a Kong", "Code 1924, Laws 89-90"),
        "all_sequences": situational(
            "All Sequences and a non-scoring Pair", "Code 1924, Laws 89, 91"
        ),
        "no_sequences": situational("No Sequences"),
        "one_suit_honours": suit_double("All one suit, with Honours", 1),
        "terminals_honours": suit_double("All Terminals, with Honours", 1),
        "one_suit_pure": suit_double("All one suit, no Honours", 3),
        "all_terminals": limit_row("All Terminals", f"{_L89}; Law 100 III"),
        "all_honours": limit_row("All Honours", f"{_L89}; Law 100 II"),
        "delayed_call": win("Delayed Call", _L92, dbl(1)),
        "three_small_scholars": win("Three Small Scholars", _L92, pts(10) if cleared else dbl(1)),
        "four_small_blessings": win("Four Small Blessings", _L92, pts(10) if cleared else dbl(1)),
        # the sixteen Limit Hands of Law 100, and Seven Twins at half the limit
        "hidden_treasure": win("Hidden Treasure", f"{_L100} I", lim()),
        "all_green": win("All Green", f"{_L100} IV", lim()),
        "three_great_scholars": win("Three Great Scholars", f"{_L100} V", lim()),
        "four_large_blessings": win("Four Large Blessings", f"{_L100} VI", lim()),
        "all_kongs": win("All Kongs", f"{_L100} VII", lim()),
        "nine_gates": win("Nine Gates", f"{_L100} VIII", lim()),
        "thirteen_orphans": win("Thirteen Orphans", f"{_L100} IX", lim()),
        "heaven": win("Hand from Heaven", f"{_L100} X", lim()),
        "earth": win("Hand from Earth", f"{_L100} XI", lim()),
        "moon": win("Moon from the Bottom of the Sea", f"{_L100} XII", lim()),
        "plum_blossom": win("Plum Blossom on the Roof", f"{_L100} XIII", lim()),
        "carrying_pole": win("Scratching a Carrying-Pole", f"{_L100} XIV", lim()),
        "kong_on_kong": win("Kong on Kong", f"{_L100} XV", lim()),
        "heavenly_twins": win("Heavenly Twins", f"{_L100} XVI", lim()),
        "seven_twins": win("Seven Twins", f"{_L100} XVI (a)", lim(0.5)),
    }
    sixteen = frozenset(k for k, e in t.items() if e.winner is not None and e.winner.limit == 1.0)
    return Ruleset(
        name=f"code1924/{game}",
        book="Code 1924",
        table=_freeze(t),
        limit=500,
        has_prevailing_wind=True,
        specials=frozenset({"thirteen_orphans", "heavenly_twins", "seven_twins"}),
        min_doubles=1 if game == "one-double" else 0,
        cleared_only=cleared,
        limit_hands_qualify=sixteen,  # Law 48; Seven Twins is not one of the sixteen (A11)
        requirement_rule={
            "mixed": "Code 1924, Law 45",
            "one-double": "Code 1924, Law 46",
            "cleared": "Code 1924, Law 47",
        }[game],
        losers_settle="difference",
        false_mahjong="limit",
        false_mahjong_rule="Code 1924, Law 86",
        faults={"long": "zero", "short": "restricted", "foul": "restricted", "dead": "zero"},
        fault_rule="Code 1924, Laws 75-76",
        pay_for_all="insurance",
        pay_for_all_cancels_losers=True,  # Law 79
        settlement_order="turn",
        limit_hand_value=500,
    )


# -- Pung-Chow ----------------------------------------------------------------------------------

_PC = "Pung-Chow Part I, Score Card"
_PC_SETS = f"{_PC}: Combination Scores"
_PC_BONUS = f"{_PC}: Winning Hand Bonus Scores"
_PC_DOUBLING = f"{_PC}: Doubling Honors"
_PC2 = "Pung-Chow Part II, Scoring Values"
_PC2B = "Pung-Chow Part II, Bonus Scores"
_PC2L = "Pung-Chow Part II, Limit Hands"
_PC2D = "Pung-Chow Part II, Doubling Honor Scores"


def _pungchow_set_rows() -> dict[str, Entry]:
    """Harr's Score Card: "On table (exposed)", "In hand (concealed)"."""
    values = {
        "pung_simple": (2, 4, "3 of a kind of twos to eights"),
        "pung_terminal": (4, 8, "3 of a kind of ones, nines, winds or dragons"),
        "pung_honour": (4, 8, "3 of a kind of ones, nines, winds or dragons"),
        "kong_simple": (8, 16, "4 of a kind of twos to eights"),
        "kong_terminal": (16, 32, "4 of a kind of ones, nines, winds or dragons"),
        "kong_honour": (16, 32, "4 of a kind of ones, nines, winds or dragons"),
    }
    rows = {}
    for key, (exposed, concealed, name) in values.items():
        rows[f"{key}_exposed"] = both(f"{name}, exposed", _PC_SETS, pts(exposed))
        rows[f"{key}_concealed"] = both(f"{name}, concealed", _PC_SETS, pts(concealed))
    return rows


def _pungchow() -> Ruleset:
    t: dict[str, Entry] = _pungchow_set_rows()
    t |= {
        # "Dragons and own wind are only pairs that score" (Part I, Example 12)
        "mahjong": win("Mah-Jong", _PC_BONUS, pts(20)),
        "pair_dragon": both("Pair of any dragon", _PC_SETS, pts(2)),
        "pair_own_wind": both("Pair of the player's own wind", _PC_SETS, pts(2)),
        "pair_own_prevailing": both("Pair of the player's own wind", _PC_SETS, pts(2)),
        "set_dragon": both("Three (or four) dragons", _PC_DOUBLING, dbl(1)),
        "set_own_wind": both("Three (or four) of own wind", _PC_DOUBLING, dbl(1)),
        "set_own_prevailing": both("Three (or four) of own wind", _PC_DOUBLING, dbl(1)),
        "own_flower": both("Own Flower (mandarin)", "Pung-Chow, Use of the Mandarins", dbl(1)),
        "own_season": both("Own Season (mandarin)", "Pung-Chow, Use of the Mandarins", dbl(1)),
        # Part I: non-winners use every doubling honour (rule-decisions Pung-Chow 11)
        "one_suit_honours": both("All one suit except honor pieces", _PC_DOUBLING, dbl(1)),
        "one_suit_pure": both("All one suit", _PC_DOUBLING, dbl(3)),
        "all_honours": both("All honor pieces", _PC_DOUBLING, dbl(3)),
        "no_sequences": win("No sequences in hand or on table", _PC_BONUS, pts(10)),
        "self_drawn": win("Drawing the winning piece", _PC_BONUS, pts(2)),
        "only_place": win("Filling in the only place to win", _PC_BONUS, pts(2)),
        "loose_tile": win("Winning on a draw from the loose tiles", _PC_BONUS, pts(10)),
        "no_other_score": win("No other score than Mah-Jong", _PC_BONUS, pts(10)),
        "original_hand": win(
            "Winning on original hand as drawn from the wall", _PC_DOUBLING, dbl(3)
        ),
    }
    return Ruleset(
        name="pungchow",
        book="Pung-Chow",
        table=_freeze(t),
        limit=None,
        has_prevailing_wind=False,
        specials=frozenset(),
        losers_settle="difference",
        false_mahjong="limit",
        false_mahjong_rule="Pung-Chow Part II, Penalties 1",
        penalty_limit=400,  # Part II: the limit of a game with a 20-point Mah-Jongg
        faults={"dead": "zero", "long": "zero", "short": "zero", "foul": "zero"},
        fault_rule="Pung-Chow Part I, Mah-Jongg or Mah-Diao (a dead hand's score does not count)",
        pay_for_all=None,
        pay_for_all_cancels_losers=False,
        settlement_order="score",
        only_place="shape",
    )


def _pungchow_limit() -> Ruleset:
    winner_sets = {
        "pung_simple": (2, 6, "Three of a kind of 2 to 8"),
        "pung_terminal": (4, 10, "Three of a kind of heads"),
        "pung_honour": (4, 10, "Three of a kind of heads"),
        "kong_simple": (8, 16, "Four of a kind 2 to 8"),
        "kong_terminal": (16, 32, "Four of a kind of heads"),
        "kong_honour": (16, 32, "Four of a kind of heads"),
    }
    other_sets = {
        "pung_simple": (2, 4),
        "pung_terminal": (4, 8),
        "pung_honour": (4, 8),
        "kong_simple": (8, 16),
        "kong_terminal": (16, 32),
        "kong_honour": (16, 32),
    }
    t: dict[str, Entry] = {}
    for key, (ge, gc, name) in winner_sets.items():
        oe, oc = other_sets[key]
        t[f"{key}_exposed"] = Entry(f"{name}, on table", _PC2, pts(ge), pts(oe))
        t[f"{key}_concealed"] = Entry(f"{name}, in hand", _PC2, pts(gc), pts(oc))
    t |= {
        "mahjong": win("Mah-Jongg", f"{_PC2B} 1", pts(10)),
        "no_other_score": win("No other score than Mah-Jongg", f"{_PC2B} 2", pts(10)),
        "pair_dragon": both("Pair of Dragons", _PC2, pts(2)),
        "pair_own_wind": both("Pair of own Wind", _PC2, pts(2)),
        "pair_prevailing_wind": both("Pair of the wind of the round", _PC2, pts(2)),
        "pair_own_prevailing": both("Pair of own Wind in own Wind round", _PC2, pts(4)),
        # the final pair of the winning hand (rule-decisions Pung-Chow 1: the table's 2 is kept)
        "final_pair_simple_claimed": win("Pair of 2 to 8 punged to complete hand", _PC2, pts(2)),
        "final_pair_simple_drawn": win("Pair of 2 to 8 drawn to complete hand", _PC2, pts(4)),
        "final_pair_head_claimed": win("Pair of heads punged to complete hand", _PC2, pts(4)),
        "final_pair_head_drawn": win("Pair of heads drawn to complete hand", _PC2, pts(6)),
        "final_pair_own_round_claimed": win(
            "Pair of own wind in own wind round punged to complete hand", _PC2, pts(6)
        ),
        "final_pair_own_round_drawn": win(
            "Pair of own wind in own wind round drawn to complete hand", _PC2, pts(8)
        ),
        # rule-decisions Pung-Chow 2: Examples 8 and 10 score 4 for any sequence filled by draw
        "sequence_filled_claimed_closed": win(
            "Filling a sequence in the middle or on the only open end, by chow", _PC2, pts(2)
        ),
        "sequence_filled_drawn": win("Filling a sequence by draw to complete hand", _PC2, pts(4)),
        "set_own_wind": both("Set of own wind", f"{_PC2D} 1", dbl(1)),
        "set_own_prevailing": both("Set of own wind in own wind round", f"{_PC2D} 2", dbl(2)),
        # rule-decisions Pung-Chow 3: a set of the round wind alone doubles nothing
        "set_dragon": both("Set of dragons", f"{_PC2D} 3-5", dbl(1)),
        "one_suit_honours": win("All one suit except winds or dragons", f"{_PC2D} 6", dbl(1)),
        "no_sequences": win("No sequences (Tei Tei Woo)", f"{_PC2D} 7", dbl(1)),
        "one_suit_pure": win("Entirely one suit", f"{_PC2D} 8", dbl(3)),
        "own_flower": both("Own Flower (mandarin)", "Pung-Chow, Use of the Mandarins", dbl(1)),
        "own_season": both("Own Season (mandarin)", "Pung-Chow, Use of the Mandarins", dbl(1)),
        "last_tile": win("Winning tile drawn from the last tile of the wall", f"{_PC2B} 3", dbl(1)),
        "loose_tile": win("Winning on a draw from a loose tile", f"{_PC2B} 4", dbl(1)),
        "kong_completion": win(
            "Completing the hand with the fourth tile of an exposed set", f"{_PC2B} 6", dbl(1)
        ),
        "first_discard": win(
            "Winning on the first discard (half the limit)", f"{_PC2B} 5", Award(limit_points=0.5)
        ),
        "thirteen_orphans": win("Single heads and a pair of heads", f"{_PC2L} 1", lim()),
        "all_heads": win("Sets of heads only and a pair of heads", f"{_PC2L} 2", lim()),
        "four_large_blessings": win("Four happinesses (four wind sets)", f"{_PC2L} 3", lim()),
        "four_small_blessings": win(
            "Three wind sets and a pair of the fourth wind", f"{_PC2L} 4", lim()
        ),
        "all_kongs": win("Sets of four of a kind only", f"{_PC2L} 5", lim()),
        "heaven": win("East wins on his original draw", f"{_PC2L} 6", lim()),
        "three_great_scholars": win("Three sets of dragons", f"{_PC2L} 7", lim()),
    }
    return Ruleset(
        name="pungchow/limit",
        book="Pung-Chow Part II",
        table=_freeze(t),
        limit=300,
        has_prevailing_wind=True,
        specials=frozenset({"thirteen_orphans"}),
        losers_settle="difference",
        false_mahjong="limit",
        false_mahjong_rule="Pung-Chow Part II, Penalties 1",
        faults={"dead": "zero", "long": "zero", "short": "zero", "foul": "zero"},
        fault_rule="Pung-Chow Part I, Mah-Jongg or Mah-Diao (a dead hand's score does not count)",
        pay_for_all="reckless",
        pay_for_all_cancels_losers=True,  # Penalties, note (b)
        settlement_order="score",
        washing=MappingProxyType({9: 50, 10: 70, 11: 100, 12: 150, 13: 200}),
        final_pair_replaces=True,
    )


# The Chinese Classical family and its league presets live in engine.scoring.tables_classical.
from engine.scoring.tables_classical import classical_rulesets  # noqa: E402  (needs the above)

RULESETS: Mapping[str, Ruleset] = MappingProxyType(
    {
        r.name: r
        for r in (
            _code1924("mixed"),
            _code1924("one-double"),
            _code1924("cleared"),
            _pungchow(),
            _pungchow_limit(),
            *classical_rulesets(),
        )
    }
)
