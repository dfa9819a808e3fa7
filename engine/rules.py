"""Rule families as data: what differs between the books is a field here, never an ``if`` on
a family name in the play code.

``get_ruleset(name)`` finds a ruleset by name; an unknown name is a ``ValueError`` listing
the known ones. Every field cites the rule it comes from; ``cite[key]`` holds the citation a
refusal or an adjudication names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from engine.hands import SPECIALS_CODE1924, SPECIALS_PUNGCHOW

ClaimKind = Literal["chow", "pung", "kong", "mahjong"]
CLAIM_KINDS: tuple[ClaimKind, ...] = ("chow", "pung", "kong", "mahjong")
Qualification = Literal["any", "one_double", "cleared"]
Rotation = Literal["east_keeps_on_win_or_draw", "every_hand"]


@dataclass(frozen=True)
class Ruleset:
    """One playable ruleset: a family's book plus the options that distinguish its games."""

    name: str
    family: str
    book: str  # the prefix of every citation, e.g. "Code 1924"
    tiles: int  # 136 or 144 (1924 Laws 3-6)
    stacks_per_wall: int  # Law 10: 18 with flowers, 17 without
    flowers: bool  # bonus tiles grounded and replaced (Laws 22-24)
    dead_wall: int  # tiles never drawn from the live wall (Law 87; Classical 16; Pung-Chow 14)
    loose_draws_enter_dead_wall: bool  # may a replacement come out of the dead wall?
    qualification: Qualification  # Mah-jongg entry requirement (Laws 45-47)
    specials: frozenset[str]  # special hands that complete a hand (engine.hands names)
    mahjong_chow_from_anyone: bool  # Law 35 (chow any player's discard to go out)
    claims_after_next_draw: bool  # Law 53: the preceding discard stays claimable after a draw
    kong_grounded_pung_from_discard: bool  # Law 43 forbids; Pung-Chow Part II allows
    robbing_kong: bool  # Law 90
    prevailing_wind: bool  # Pung-Chow Part I plays without one
    rotation: Rotation  # Laws 94-95; Classical rotates after every hand
    # Claim priority, highest first; kinds in one tuple rank equal (Law 50, 52).
    # Pung-Chow Part II: nine or more different Heads in the original hand wash the tiles.
    washing: bool = False
    # Table sizes the book gives laws for (1924: the Two- and Three-Hand Games).
    player_counts: tuple[int, ...] = (4,)
    # May the other player chow at a table of two? The 1924 Two-Hand Game: "A discard cannot
    # be chowed" (Mah-jongg included); Classical plays two "following the same principles".
    two_hand_chow: bool = False
    # Harr F rule 4 ("A Pung has precedence over a Chow"): a Mah-jongg that takes the discard
    # into a sequence is a chow, ranked below any pung; rules 2, 5 and 6 rank only a pung
    # that completes the hand above a pung for a set. The 1924 Law 50 and Classical (b) rank
    # every Mah-jongg first.
    sequence_mahjong_is_chow: bool = False
    # Harr's Two and Three-Handed Games: the empty sides are dummy walls; the dice count all
    # four sides and "East Wind acts for the dummy, throwing the dice for it". The 1924
    # Three-Hand Game counts "the actual players".
    dummy_walls: bool = False
    # 1924 Two-Hand Game: "alternately East and West ... regardless of which player wins".
    two_hand_east_alternates: bool = True
    priority: tuple[tuple[ClaimKind, ...], ...] = (("mahjong",), ("pung", "kong"), ("chow",))
    cite: Mapping[str, str] = field(default_factory=dict)

    def rule(self, key: str) -> str:
        """The citation for ``key`` (e.g. ``"chow_left"`` -> ``"Code 1924, Law 34"``)."""
        return self.cite.get(key) or f"{self.book}"

    def east_may_stay(self, players: int) -> bool:
        """Can East keep his seat at a table of ``players`` (Law 94; Harr A)?"""
        return self.rotation != "every_hand" and not (players == 2
                                                      and self.two_hand_east_alternates)

    def rank(self, kind: str) -> int:
        """Claim priority rank: 0 is highest."""
        for i, kinds in enumerate(self.priority):
            if kind in kinds:
                return i
        return len(self.priority)

    def __repr__(self) -> str:
        return f"get_ruleset({self.name!r})"


def _cites(book: str, **laws: str) -> Mapping[str, str]:
    return MappingProxyType({k: f"{book}, {v}" for k, v in laws.items()})


_CODE1924_LAWS = dict(
    build="Law 10",
    break_first="Law 15",
    break_second="Law 16",
    deal="Law 17",
    flowers="Law 22",
    flower_short="Law 23",
    first_discard="Law 25",
    turn="Law 26",
    chow_left="Law 34",
    chow_mahjong="Law 35",
    pung="Law 36",
    kong="Law 38",
    kong_after_draw="Law 40",
    concealed_kong="Law 41",
    add_kong="Law 42",
    no_kong_on_grounded="Law 43",
    mahjong="Law 44",
    qualify_one_double="Law 46",
    qualify_cleared="Law 47",
    mahjong_claim="Law 49",
    mahjong_over_set="Law 50",
    mahjong_order="Law 51",
    pung_over_chow="Law 52",
    late_claim="Law 53",
    draw_turn="Law 55",
    set_tiles="Law 58",
    dead_discard="Law 64",
    discard_before_draw="Law 65",
    long_short="Law 71",
    foul="Law 73",
    no_mahjong_short_foul="Law 75",
    no_mahjong_long="Law 76",
    false_mahjong="Law 86",
    dead_wall="Law 87",
    drawn_game="Law 88",
    rob_kong="Law 90",
    east_position="Law 94",
    round="Law 95",
    prevailing="Law 96",
    count="Law 21",
    table_time="Law 52",  # ties among equal claims fall to the earlier call on table time
    two_hand="Two-Hand Game",
    three_hand="Three-Hand Game",
)


def _code1924(name: str, dead_wall: int, qualification: Qualification) -> Ruleset:
    return Ruleset(
        name=name,
        family="code1924",
        book="Code 1924",
        tiles=144,
        stacks_per_wall=18,
        flowers=True,
        dead_wall=dead_wall,
        loose_draws_enter_dead_wall=True,  # Law 87: the loose tiles are part of the dead wall
        qualification=qualification,
        specials=SPECIALS_CODE1924,
        mahjong_chow_from_anyone=True,
        claims_after_next_draw=True,
        kong_grounded_pung_from_discard=False,
        robbing_kong=True,
        prevailing_wind=True,
        rotation="east_keeps_on_win_or_draw",
        player_counts=(2, 3, 4),
        cite=_cites("Code 1924", **_CODE1924_LAWS),
    )


# Harr's book has no law numbers: cite its parts and sections.
_PUNGCHOW = dict(
    build="B",
    break_first="B",
    break_second="B",
    deal="C",
    flowers="Part II, mandarins",
    flower_short="Part II, mandarins",
    first_discard="D",
    turn="D",
    chow_left="E",
    chow_mahjong="E",
    pung="F",
    kong="F, four of a kind",
    kong_after_draw="F, four of a kind",
    concealed_kong="F, four of a kind",
    add_kong="F, four of a kind",
    no_kong_on_grounded="F, four of a kind (not more than one punged tile in a set)",
    mahjong="Mah-Jongg or Mah-Diao",
    mahjong_claim="F, rule 2",
    chow_mahjong_claim="E",
    mahjong_over_set="F, rule 5",
    mahjong_order="F, rule 6",
    pung_over_chow="F, rule 4",
    late_claim="F, rule 1",
    draw_turn="D",
    set_tiles="F",
    dead_discard="F, rule 1",
    discard_before_draw="D",
    long_short="Mah-Jongg or Mah-Diao (dead hand)",
    foul="Mah-Jongg or Mah-Diao (dead hand)",
    no_mahjong_short_foul="Mah-Jongg or Mah-Diao (dead hand)",
    no_mahjong_long="Mah-Jongg or Mah-Diao (dead hand)",
    false_mahjong="Mah-Jongg or Mah-Diao",
    dead_wall="Part II, the last 14 tiles",
    drawn_game="Part II, the last 14 tiles",
    rob_kong="F",
    east_position="A",
    round="Part II, procedure of play",
    prevailing="Part II, procedure of play",
    count="Mah-Jongg or Mah-Diao",
    table_time="F, rule 6",
    washing="Part II, washing the tiles",
    two_hand="Two and Three-Handed Games",
    three_hand="Two and Three-Handed Games",
)


def _pungchow(name: str, limit: bool) -> Ruleset:
    return Ruleset(
        name=name,
        family="pungchow",
        book="Pung-Chow",
        # Part I plays 136 tiles in walls of 17 (B); Part II's limit game adds the mandarins
        # (decision: flowers used, 18 stacks; docs/engine.md).
        tiles=144 if limit else 136,
        stacks_per_wall=18 if limit else 17,
        flowers=limit,
        dead_wall=14,  # "even a loose tile cannot be drawn if there are only 14 tiles left"
        loose_draws_enter_dead_wall=False,
        qualification="any",
        specials=SPECIALS_PUNGCHOW,
        mahjong_chow_from_anyone=False,  # E: "a player may Chow only in his regular turn"
        claims_after_next_draw=True,  # F rule 1: dead only when the next player discards
        kong_grounded_pung_from_discard=limit,  # rule-decisions Pung-Chow 7
        robbing_kong=False,  # the book has no robbing of a kong
        prevailing_wind=limit,  # Part I has no prevailing wind; Part II's wind box does
        rotation="east_keeps_on_win_or_draw",  # A
        washing=limit,
        sequence_mahjong_is_chow=True,  # F rule 4; docs/rules.md "Pung-Chow: precedence"
        # "Three or even two may play ... in exactly the same way that it is played by four"
        player_counts=(2, 3, 4),
        two_hand_chow=True,
        dummy_walls=True,
        two_hand_east_alternates=False,
        cite=_cites("Pung-Chow", **_PUNGCHOW),
    )


_CLASSICAL = dict(
    build="arranging the wall",
    break_first="arranging the wall",
    break_second="arranging the wall",
    deal="arranging the wall",
    flowers="replacing the bonus tiles",
    flower_short="replacing the bonus tiles",
    first_discard="turn order",
    turn="turn order",
    chow_left="claiming a tile for a chow",
    chow_mahjong="claiming a tile for a chow",
    pung="claiming a tile for a pong",
    kong="claiming a tile for a kong",
    kong_after_draw="drawing the fourth identical tile",
    concealed_kong="drawing the fourth identical tile",
    add_kong="drawing the fourth identical tile when you have an exposed pong",
    no_kong_on_grounded="drawing the fourth identical tile when you have an exposed pong",
    mahjong="the object of the game",
    mahjong_claim="claiming a tile for the pair",
    mahjong_over_set="claim priority (b)",
    mahjong_order="claim priority (c)",
    pung_over_chow="claim priority (a)",
    late_claim="further notes on claiming tiles",
    draw_turn="turn order",
    set_tiles="claiming a tile for a pong",
    dead_discard="claiming a tile for a pong (a dead discard)",
    discard_before_draw="turn order",
    long_short="the object of the game",
    foul="the object of the game",
    no_mahjong_short_foul="the object of the game",
    no_mahjong_long="the object of the game",
    false_mahjong="declaring mahjong",
    dead_wall="washout",
    drawn_game="washout",
    rob_kong="drawing the fourth identical tile when you have an exposed pong",
    east_position="when the scoring is done",
    round="when the scoring is done",
    prevailing="when the scoring is done",
    count="the object of the game",
    table_time="claim priority",
    two_hand="the object of the game (two or three players)",
    three_hand="the object of the game (two or three players)",
)

CLASSICAL = Ruleset(
    name="classical",
    family="classical",
    book="Classical",
    tiles=144,
    stacks_per_wall=18,
    flowers=True,
    dead_wall=16,  # washout "when the Dead Wall contains only 16 remaining tiles"
    loose_draws_enter_dead_wall=True,  # replacements come "from the back end of the Wall"
    qualification="any",
    specials=SPECIALS_PUNGCHOW,  # decision: Thirteen Orphans only; docs/engine.md
    mahjong_chow_from_anyone=True,
    claims_after_next_draw=False,  # forfeited "before the next player in turn draws"
    kong_grounded_pung_from_discard=False,
    robbing_kong=True,  # decision: the classical scoring lineage (Law 89) scores it
    prevailing_wind=True,
    rotation="every_hand",
    player_counts=(2, 3, 4),
    two_hand_chow=True,  # "following the same principles": the next player chows
    cite=_cites("Classical", **_CLASSICAL),
)

RULESETS: Mapping[str, Ruleset] = MappingProxyType(
    {
        r.name: r
        for r in (
            _code1924("code1924/mixed", 14, "any"),
            _code1924("code1924/one-double", 0, "one_double"),
            _code1924("code1924/cleared", 0, "cleared"),
            _pungchow("pungchow", limit=False),
            _pungchow("pungchow/limit", limit=True),
            CLASSICAL,
        )
    }
)


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called ``name``; ``ValueError`` naming the known ones otherwise."""
    try:
        return RULESETS[name.strip().lower()]
    except (KeyError, AttributeError):
        known = ", ".join(RULESETS)
        raise ValueError(f"unknown ruleset {name!r} (known: {known})") from None
