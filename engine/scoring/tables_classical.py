"""The Chinese Classical score table and its two league presets, as data.

The values are those of the open-source game Kajongg's predefined rule sets (KDE,
``src/predefined.py``): "Classical Chinese standard", "Classical Chinese DMJL" (the Deutsche
Mah Jongg Liga's rules) and "Classical Chinese BMJA" (the British Mah-Jong Association's).
Every row cites the rule by the name the rule set gives it, which is what a player finds in
Kajongg's ruleset editor; ``docs/rules.md`` records each reading and where the presets differ.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from engine.scoring.tables import Entry, Ruleset, both, dbl, lim, pts, win

STANDARD = 'Kajongg "Classical Chinese standard"'
DMJL = 'Kajongg "Classical Chinese DMJL" (Deutsche Mah Jongg Liga)'
BMJA = 'Kajongg "Classical Chinese BMJA" (British Mah-Jong Association)'

# feature key prefix -> (the rule set's name after "Exposed"/"Concealed", points exposed/concealed)
_SETS = {
    "pung_simple": ("Pung", 2, 4),
    "pung_terminal": ("Pung of Terminals", 4, 8),
    "pung_honour": ("Pung of Honors", 4, 8),
    "kong_simple": ("Kong", 8, 16),
    "kong_terminal": ("Kong of Terminals", 16, 32),
    "kong_honour": ("Kong of Honors", 16, 32),
}
_SET_ITEMS = {
    "pung_simple": "Triplet of Simples",
    "pung_terminal": "Triplet of Terminals",
    "pung_honour": "Triplet of Honours",
    "kong_simple": "Four of Simples",
    "kong_terminal": "Four of Terminals",
    "kong_honour": "Four of Honours",
}


def cite(label: str, *names: str) -> str:
    """``Kajongg "Classical Chinese DMJL", rule "No Chow"`` (two names: both rules apply)."""
    quoted = " and ".join(f'"{n}"' for n in names)
    return f"{label}, rule{'s' if len(names) > 1 else ''} {quoted}"


def _hand_rows(label: str) -> dict[str, Entry]:
    """Sets, pairs, flowers and the doubles every hand may have."""

    def c(*names: str) -> str:
        return cite(label, *names)

    t: dict[str, Entry] = {}
    for key, (name, exposed, concealed) in _SETS.items():
        item = _SET_ITEMS[key]
        t[f"{key}_exposed"] = both(f"{item}, exposed", c(f"Exposed {name}"), pts(exposed))
        t[f"{key}_concealed"] = both(f"{item}, concealed", c(f"Concealed {name}"), pts(concealed))
    t |= {
        # the Mah Jongg bonus first, as the rule sets list it
        "mahjong": win("Mah Jongg", c("Standard Mah Jongg"), pts(20)),
        "pair_dragon": both("Pair of Dragons", c("Pair of Dragons"), pts(2)),
        "pair_own_wind": both("Pair of own Wind", c("Pair of Own Wind"), pts(2)),
        "pair_prevailing_wind": both("Pair of round Wind", c("Pair of Round Wind"), pts(2)),
        "pair_own_prevailing": both(
            "Pair of own Wind, also the round Wind",
            c("Pair of Own Wind", "Pair of Round Wind"),
            pts(4),
        ),
        "flower": both("Flower or Season", c("Flower", "Season"), pts(4)),
        "set_dragon": both("Pung/Kong of Dragons", c("Pung/Kong of Dragons"), dbl(1)),
        "set_own_wind": both("Pung/Kong of own Wind", c("Pung/Kong of Own Wind"), dbl(1)),
        "set_prevailing_wind": both(
            "Pung/Kong of round Wind", c("Pung/Kong of Round Wind"), dbl(1)
        ),
        "set_own_prevailing": both(
            "Pung/Kong of own Wind, also the round Wind",
            c("Pung/Kong of Own Wind", "Pung/Kong of Round Wind"),
            dbl(2),
        ),
        "own_flower_and_season": both(
            "Own Flower and own Season", c("Own Flower and Own Season"), dbl(1)
        ),
        "bouquet_flowers": both("All Flowers", c("All Flowers"), dbl(1)),
        "bouquet_seasons": both("All Seasons", c("All Seasons"), dbl(1)),
        "three_concealed_pungs": both("Three concealed Pungs", c("Three Concealed Pongs"), dbl(1)),
    }
    return t


def _winner_rows(label: str) -> dict[str, Entry]:
    """The winner's points and doubles."""

    def c(*names: str) -> str:
        return cite(label, *names)

    pair_last_minor = c("Last Tile Completes Pair of 2..8")
    pair_last_major = c("Last Tile Completes Pair of Terminals or Honors")
    return {
        "final_pair_simple_claimed": win(
            "Last tile completes a pair of 2..8", pair_last_minor, pts(2)
        ),
        "final_pair_simple_drawn": win(
            "Last tile completes a pair of 2..8", pair_last_minor, pts(2)
        ),
        "final_pair_head_claimed": win(
            "Last tile completes a pair of Terminals or Honours", pair_last_major, pts(4)
        ),
        "final_pair_head_drawn": win(
            "Last tile completes a pair of Terminals or Honours", pair_last_major, pts(4)
        ),
        "final_pair_own_round_claimed": win(
            "Last tile completes a pair of Terminals or Honours", pair_last_major, pts(4)
        ),
        "final_pair_own_round_drawn": win(
            "Last tile completes a pair of Terminals or Honours", pair_last_major, pts(4)
        ),
        # 2 points in the current rule sets (older Kajongg releases had 4)
        "only_place": win(
            "Last tile is the only possible tile", c("Last Tile is Only Possible Tile"), pts(2)
        ),
        "self_drawn": win(
            "Won with the last tile taken from the wall",
            c("Won with Last Tile Taken from Wall"),
            pts(2),
        ),
        "zero_points": win("Zero point hand", c("Zero Point Hand"), dbl(1)),
        "no_sequences": win("No Chow", c("No Chow"), dbl(1)),
        "all_concealed": win("Only concealed melds", c("Only Concealed Melds"), dbl(1)),
        "one_suit_honours": win(
            "False colour game (one suit with Honours)", c("False Color Game"), dbl(1)
        ),
        "one_suit_pure": win("True colour game (one suit)", c("True Color Game"), dbl(3)),
        "terminals_honours": win(
            "Only Terminals and Honours", c("Only Terminals and Honors"), dbl(1)
        ),
        "loose_tile": win(
            "Last tile taken from the dead wall", c("Last Tile Taken from Dead Wall"), dbl(1)
        ),
        "last_tile": win(
            "Last tile is the last tile of the wall", c("Last Tile is Last Tile of Wall"), dbl(1)
        ),
        "last_discard": win(
            "Last tile of the wall, discarded",
            c("Last Tile is Last Tile of Wall Discarded"),
            dbl(1),
        ),
        "robbing_kong": win("Robbing the Kong", c("Robbing the Kong"), dbl(1)),
        "original_call": win(
            "Mah Jongg with Original Call", c("Mah Jongg with Original Call"), dbl(1)
        ),
    }


def _limit_rows(label: str) -> dict[str, Entry]:
    """The limit hands."""

    def c(*names: str) -> str:
        return cite(label, *names)

    return {
        "concealed_true_colour": win(
            "Concealed true colour game", c("Concealed True Color Game"), lim()
        ),
        "all_honours": win("Only Honours", c("Only Honors"), lim()),
        "hidden_treasure": win("Hidden Treasure", c("Hidden Treasure"), lim()),
        "all_terminals": win("Heads and Tails (only 1 and 9)", c("Heads and Tails"), lim()),
        "all_kongs": win("Fourfold Plenty (four Kongs)", c("Fourfold Plenty"), lim()),
        "three_great_scholars": win("Three Great Scholars", c("Three Great Scholars"), lim()),
        "four_large_blessings": win(
            "Four Blessings Hovering over the Door",
            c("Four Blessings Hovering over the Door"),
            lim(),
        ),
        "all_green": win("Imperial Jade (all green)", c("Imperial Jade"), lim()),
        "plum_blossom": win(
            "Gathering the Plum Blossom from the Roof",
            c("Gathering the Plum Blossom from the Roof"),
            lim(),
        ),
        "moon": win(
            "Plucking the Moon from the Bottom of the Sea",
            c("Plucking the Moon from the Bottom of the Sea"),
            lim(),
        ),
        "carrying_pole": win("Scratching a Carrying Pole", c("Scratching a Carrying Pole"), lim()),
        "kong_on_kong": win("Twofold Fortune (Kong on Kong)", c("Twofold Fortune"), lim()),
        "heaven": win("Blessing of Heaven", c("Blessing of Heaven"), lim()),
        "earth": win("Blessing of Earth", c("Blessing of Earth"), lim()),
        "nine_gates": win("Nine Gates", c("Nine Gates"), lim()),
        "thirteen_orphans": win("Thirteen Orphans", c("Thirteen Orphans"), lim()),
    }


def _classical_table(label: str) -> dict[str, Entry]:
    return _hand_rows(label) | _winner_rows(label) | _limit_rows(label)


def _classical(label: str = STANDARD, table: dict[str, Entry] | None = None) -> Ruleset:
    return Ruleset(
        name="classical",
        book="Classical",
        table=MappingProxyType(table if table is not None else _classical_table(label)),
        limit=500,
        has_prevailing_wind=True,
        specials=frozenset({"thirteen_orphans"}),
        losers_settle="score",
        false_mahjong="each",
        false_mahjong_amount=300,
        false_mahjong_rule=cite(
            label,
            "False Naming of Discard, Claimed for Mah Jongg and False Declaration of Mah Jongg",
        ),
        faults={"long": "zero", "dead": "zero", "short": "zero", "foul": "zero"},
        fault_rule=cite(label, "Long Hand"),
        pay_for_all=None,
        settlement_order="turn",
        claimed_pair_exposed=True,
        fraction_is_a_floor=True,
    )


def _dmjl() -> Ruleset:
    t = _classical_table(DMJL)
    t |= {
        "squirming_snake": win("Squirming Snake", cite(DMJL, "Squirming Snake"), lim()),
        "three_small_scholars": both(
            "Little Three Dragons", cite(DMJL, "Little Three Dragons"), dbl(1)
        ),
        "big_three_dragons": both("Big Three Dragons", cite(DMJL, "Big Three Dragons"), dbl(2)),
        "four_small_blessings": both("Little Four Joys", cite(DMJL, "Little Four Joys"), dbl(1)),
        "big_four_winds": both("Big Four Joys", cite(DMJL, "Big Four Joys"), dbl(2)),
    }
    return replace(
        _classical(DMJL, t),
        name="classical/dmjl",
        book="Classical DMJL",
        false_mahjong_rule=cite(DMJL, "False Declaration of Mah Jongg by One Player"),
    )


_BMJA_REMOVED = (
    "zero_points",
    "three_concealed_pungs",
    "own_flower_and_season",
    "loose_tile",
    "hidden_treasure",
    "one_suit_honours",
    "concealed_true_colour",
    "final_pair_simple_claimed",
    "final_pair_simple_drawn",
    "final_pair_head_claimed",
    "final_pair_head_drawn",
    "final_pair_own_round_claimed",
    "final_pair_own_round_drawn",
    "only_place",
    "one_suit_pure",
    "nine_gates",
    "three_great_scholars",
)

# "Calling for ...": a non-winner one tile from one of these hands (fraction of the limit, or
# doubles for Purity). Feature key -> (the hand's name in the rule set, award).
_BMJA_CALLING = {
    "all_honours": ("Only Honors", lim(0.4)),
    "wriggling_snake": ("Wriggling Snake", lim(0.4)),
    "triple_knitting": ("Triple Knitting", lim(0.2)),
    "gates_of_heaven": ("Gates of Heaven", lim(0.4)),
    "knitting": ("Knitting", lim(0.2)),
    "all_green": ("Imperial Jade", lim(0.4)),
    "thirteen_orphans": ("The 13 Unique Wonders", lim(0.4)),
    "three_great_scholars_no_chow": ("Three Great Scholars", lim(0.4)),
    "all_pair_honours": ("All pair honors", lim(0.2)),
    "all_terminals": ("Heads and Tails", lim(0.4)),
    "four_large_blessings": ("Four Blessings Hovering over the Door", lim(0.4)),
    "buried_treasure": ("Buried Treasure", lim(0.4)),
    "all_kongs": ("Fourfold Plenty", lim(0.4)),
    "purity": ("Purity", dbl(3)),
}


def _bmja() -> Ruleset:
    t = _classical_table(BMJA)
    for gone in _BMJA_REMOVED:
        del t[gone]

    def c(*names: str) -> str:
        return cite(BMJA, *names)

    t |= {
        # renamed from the standard's "Mah Jongg with Original Call"; still the winner's
        "original_call": win("Original Call", c("Original Call"), dbl(1)),
        "own_flower": both("Own Flower", c("Own Flower"), dbl(1)),
        "own_season": both("Own Season", c("Own Season"), dbl(1)),
        "bouquet_flowers": both("All Flowers", c("All Flowers"), dbl(2)),
        "bouquet_seasons": both("All Seasons", c("All Seasons"), dbl(2)),
        "gates_of_heaven": win("Gates of Heaven", c("Gates of Heaven"), lim()),
        "wriggling_snake": win("Wriggling Snake", c("Wriggling Snake"), lim()),
        "triple_knitting": win("Triple Knitting", c("Triple Knitting"), lim(0.5)),
        "knitting": win("Knitting", c("Knitting"), lim(0.5)),
        "all_pair_honours": win("All Pair Honours", c("All pair honors"), lim(0.5)),
        "buried_treasure": win("Buried Treasure", c("Buried Treasure"), lim()),
        "purity": win("Purity", c("Purity"), dbl(3)),
        "thirteen_orphans": win("The 13 Unique Wonders", c("The 13 Unique Wonders"), lim()),
        "three_great_scholars_no_chow": win(
            "Three Great Scholars", c("Three Great Scholars"), lim()
        ),
    }
    for key, (hand, award) in _BMJA_CALLING.items():
        t[f"calling_{key}"] = Entry(f"Calling for {hand}", c(f"Calling for {hand}"), None, award)
    return replace(
        _classical(BMJA, t),
        name="classical/bmja",
        book="Classical BMJA",
        limit=1000,
        specials=frozenset(
            {
                "thirteen_orphans",
                "wriggling_snake",
                "knitting",
                "triple_knitting",
                "all_pair_honours",
            }
        ),
        max_chows=1,
        requirement_rule=c("Standard Mah Jongg") + ' with "number of allowed chows" 1',
        false_mahjong_amount=0,  # half the limit
        false_mahjong_rule=c("False Declaration of Mah Jongg by One Player"),
        calling_hands=frozenset(_BMJA_CALLING),
    )


def classical_rulesets() -> tuple[Ruleset, ...]:
    return (_classical(), _dmjl(), _bmja())
