"""One machinery for every family: price a hand's features with its family's table, try every
reading of the hand, keep the one that scores highest (1924 ambiguity A13), and explain every
point and double with the rule that grants it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.hands import SPECIAL_SHAPES, arrangements, fills_only_place, waits
from engine.scoring.explain import explain_incomplete
from engine.scoring.features import (
    GREEN,
    Feature,
    Part,
    Reading,
    Situation,
    arrangement_features,
    composition_features,
    fills_by_shape,
    flower_features,
    part_features,
    winner_features,
)
from engine.scoring.model import FinishedHand, SeatHand, Win
from engine.scoring.shapes import shapes_of
from engine.scoring.tables import Award, Ruleset
from engine.seats import Seat
from engine.tiles import DRAGONS, NUM_KINDS, WINDS, is_honour, is_terminal, tile_name

FLOWER_DOUBLES = frozenset(
    {"own_flower", "own_season", "own_flower_and_season", "bouquet_flowers", "bouquet_seasons"}
)
# A Short or Foul hand keeps only the doubles of Flowers and doubling Sets (1924 Law 75).
RESTRICTED_DOUBLES = FLOWER_DOUBLES | {
    "set_dragon",
    "set_own_wind",
    "set_prevailing_wind",
    "set_own_prevailing",
}
COMPOSITION = frozenset(
    {"one_suit_honours", "one_suit_pure", "terminals_honours", "all_terminals", "all_honours"}
)
_PART_KEYS_PREFIX = ("pung_", "kong_", "pair_")
# Hands that are a Mah Jongg of their own (Kajongg "mjRules"), not four sets and a pair
OWN_MAHJONG_HANDS = frozenset({"nine_gates", "gates_of_heaven", "squirming_snake"})


@dataclass
class Item:
    item: str
    rule: str
    key: str
    points: int = 0
    doubles: int = 0
    limit: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"item": self.item}
        if self.limit:
            out["limit"] = self.limit
        elif self.doubles:
            out["doubles"] = self.doubles
        else:
            out["points"] = self.points
        out["rule"] = self.rule
        return out


@dataclass
class HandScore:
    points: int = 0
    doubles: int = 0
    score: int = 0
    value: int = 0
    limit_hand: str | None = None
    capped: bool = False
    arrangement: list[list[str]] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    valid: bool = True
    reason: str = ""
    rule: str = ""
    flower_doubles: int = 0
    shape: str | None = None
    explanation: dict[str, Any] = field(default_factory=dict)  # why no Mah-jongg

    def to_json(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "doubles": self.doubles,
            "score": self.score,
            "value": self.value,
            "limit_hand": self.limit_hand,
            "capped": self.capped,
            "arrangement": self.arrangement,
            "items": [i.to_json() for i in self.items],
            "doubling": self.doubling_chain(),
        }

    def doubling_chain(self) -> list[int]:
        """The points, then each doubling in turn, as the books write it out (Harr: 24, 48,
        96, 192); a limit hand has no chain."""
        if self.limit_hand is not None:
            return []
        return [self.points << k for k in range(self.doubles + 1)]


def _award(ruleset: Ruleset, opts: Mapping[str, Any], key: str, winner: bool) -> Award | None:
    entry = ruleset.table.get(key)
    if entry is None:
        return None
    award = entry.winner if winner else entry.others
    if (
        not winner
        and award is None
        and key in COMPOSITION
        and opts.get("mixed_nonwinner_suit_doubles")
    ):
        award = entry.winner if not entry.winner or not entry.winner.limit else Award(doubles=3)
    if winner and key == "mahjong" and "mahjong_points" in opts:
        award = Award(points=int(opts["mahjong_points"]))
    if winner and key == "final_pair_simple_claimed" and "final_pair_simple_claimed" in opts:
        award = Award(points=int(opts["final_pair_simple_claimed"]))
    return award


def _limit_base(ruleset: Ruleset, opts: Mapping[str, Any]) -> int:
    limit = opts.get("limit")
    return int(limit) if limit is not None else int(opts.get("limit_hand_value", 500))


def price(
    features: Sequence[Feature],
    ruleset: Ruleset,
    opts: Mapping[str, Any],
    winner: bool,
    restricted: bool = False,
) -> list[Item]:
    """The items a table grants for these features, in the order found."""
    items: list[Item] = []
    for key, detail in features:
        award = _award(ruleset, opts, key, winner)
        if award is None:
            continue
        if restricted and (award.doubles and key not in RESTRICTED_DOUBLES):
            continue
        entry = ruleset.table[key]
        name = f"{entry.name} ({detail})" if detail else entry.name
        points = award.points + int(award.limit_points * _limit_base(ruleset, opts))
        if not (points or award.doubles or award.limit):
            continue
        items.append(Item(name, entry.rule, key, points, award.doubles, award.limit))
    return items


def _total(
    items: list[Item], ruleset: Ruleset, opts: Mapping[str, Any], result: HandScore
) -> HandScore:
    result.items = items
    result.points = sum(i.points for i in items)
    result.doubles = sum(i.doubles for i in items)
    result.flower_doubles = sum(i.doubles for i in items if i.key in FLOWER_DOUBLES)
    limits = [i for i in items if i.limit]
    limit = opts.get("limit")
    if limits and ruleset.fraction_is_a_floor:
        best = max(limits, key=lambda i: i.limit)
        ordinary = [i for i in items if not i.limit]
        points = sum(i.points for i in ordinary)
        doubles = sum(i.doubles for i in ordinary)
        if best.limit < 1 and points << doubles > best.limit * _limit_base(ruleset, opts):
            # Kajongg: a fraction of the limit stands only when the hand scores less
            return _total(ordinary, ruleset, opts, result)
    if limits:
        best = max(limits, key=lambda i: i.limit)
        result.limit_hand = best.item
        result.score = int(best.limit * _limit_base(ruleset, opts))
        result.value = result.score
        result.capped = False
        # A limit hand scores the limit and nothing else (1924 A14)
        result.items = [best]
        result.points = 0
        result.doubles = 0
        return result
    result.score = result.points * (1 << result.doubles)
    if limit is not None and result.score > int(limit):
        result.value, result.capped = int(limit), True
    else:
        result.value, result.capped = result.score, False
    return result


# -- readings -------------------------------------------------------------------------------


def _meld_parts(hand: SeatHand) -> list[Part]:
    return [Part(m.kind, m.tile, concealed=not m.exposed) for m in hand.melds]


def _nonwinner_reading(hand: SeatHand) -> Reading:
    """A waiting hand scores its concealed triplets and pairs; sequences score nothing, so the
    best reading takes every triplet it can (a Four held in the hand counts as a concealed
    Triplet, 1924 Law 41)."""
    counts = [0] * NUM_KINDS
    for t in hand.concealed:
        counts[t] += 1
    parts = _meld_parts(hand)
    for t, c in enumerate(counts):
        if c >= 3:
            parts.append(Part("pung", t, concealed=True))
        elif c == 2:
            parts.append(Part("pair", t, concealed=True))
    return Reading(tuple(parts), None, hand.all_tiles)


def _winner_readings(hand: SeatHand, fh: FinishedHand) -> list[Reading]:
    win = fh.win
    assert win is not None
    melds = _meld_parts(hand)
    readings: list[Reading] = []
    tiles = hand.all_tiles
    for arr in arrangements(hand.concealed, len(hand.melds)):
        slots: list[int | None] = (
            [i for i, g in enumerate(arr) if win.tile in g.tiles] if win.tile is not None else []
        )
        for slot in slots or [None]:
            parts = list(melds)
            for i, g in enumerate(arr):
                final = i == slot
                # a set completed with a claimed tile counts as exposed (contracts.md); the
                # pair too where the table says so (Kajongg)
                claimed_exposes = g.kind != "pair" or fh.ruleset.claimed_pair_exposed
                concealed = not (final and win.claimed and claimed_exposes)
                parts.append(Part(g.kind, g.tile, concealed, final))
            readings.append(Reading(tuple(parts), None, tiles))
    for shape in shapes_of(hand.concealed, len(hand.melds), win.tile):
        if shape in ("nine_gates", "gates_of_heaven"):
            continue  # four sets and a pair as well: found as a feature of those readings
        readings.append(Reading((), shape, tiles))
    return readings


def _visible_counts(fh: FinishedHand) -> list[int]:
    counts = [0] * NUM_KINDS
    for hand in fh.hands.values():
        for m in hand.melds:
            if m.exposed:
                for t in m.tiles:
                    counts[t] += 1
    for t in fh.visible:
        counts[t] += 1
    return counts


def _only_place(hand: SeatHand, fh: FinishedHand, opts: Mapping[str, Any]) -> bool:
    win = fh.win
    if win is None or win.tile is None or "fourth_tile" in win.context:
        return False
    if win.claimed and not opts.get("only_place_on_discard", True):
        return False
    if fh.ruleset.only_place == "shape":
        # Pung-Chow: the tile matched the pair or filled the middle (or only open end) of a
        # sequence, however the hand is read (Example 12 lays 2C as 2-3-4, not 1-2-3).
        readings = [r for r in _winner_readings(hand, fh) if r.shape is None]
        return bool(readings) and all(fills_by_shape(r, win) for r in readings)
    specials = fh.ruleset.specials & frozenset(SPECIAL_SHAPES)
    return fills_only_place(
        list(hand.concealed), len(hand.melds), win.tile, _visible_counts(fh), specials
    )


def _arrangement_json(r: Reading) -> list[list[str]]:
    if r.shape is not None:
        return [[tile_name(t) for t in sorted(r.tiles)]]
    return [[tile_name(t) for t in p.tiles] for p in r.parts]


def _pair_points(r: Reading, s: Situation, ruleset: Ruleset, opts: Mapping[str, Any]) -> int:
    feats = [f for f in part_features(r, s) if f[0].startswith("pair_")]
    return sum(i.points for i in price(feats, ruleset, opts, winner=False))


def _requirement(
    ruleset: Ruleset, opts: Mapping[str, Any], r: Reading, result: HandScore, feats: set[str]
) -> str:
    """Why this reading cannot go Mah-jongg in this game, or "" if it can."""
    if r.shape is not None:
        if r.shape == "seven_twins" and ruleset.name.startswith("code1924"):
            accepted = bool(opts.get("seven_twins_qualifies"))  # 1924 A11
        else:
            accepted = r.shape in ruleset.specials
        if not accepted:
            return f"{r.shape.replace('_', ' ')} is not a complete hand in {ruleset.name}"
    qualifying_limit = result.limit_hand is not None and any(
        i.key in ruleset.limit_hands_qualify for i in result.items
    )
    if (
        ruleset.min_doubles
        and not qualifying_limit
        and result.limit_hand is None
        and result.doubles - result.flower_doubles < ruleset.min_doubles
    ):
        return "the One-Double game needs a hand with a double, Flower doubles not counted"
    if ruleset.cleared_only and not qualifying_limit and not (feats & COMPOSITION):
        return "the Cleared-Hand game needs all one suit, all Terminals or all Honours"
    chows = sum(1 for p in r.parts if p.kind == "chow")
    # a limit hand is no exception (Heaven, Earth or Kong on Kong still need a Mah Jongg hand)
    # unless it is a Mah Jongg of its own, laid out in chows only to be scored
    if (
        ruleset.max_chows is not None
        and chows > ruleset.max_chows
        and not feats & OWN_MAHJONG_HANDS
    ):
        return f"{chows} chows: at most {ruleset.max_chows} chow in a Mah Jongg hand" + (
            f" (also for {result.limit_hand})" if result.limit_hand else ""
        )
    return ""


def score_reading(
    r: Reading,
    s: Situation,
    ruleset: Ruleset,
    opts: Mapping[str, Any],
    restricted: bool = False,
    extra: Sequence[Feature] = (),
) -> tuple[HandScore, set[str]]:
    feats: list[Feature] = part_features(r, s) + flower_features(s) + list(extra)
    if r.shape is None:
        # a special shape is priced as itself (Law 100 II and III want four triplets)
        feats += composition_features(r.tiles)
    if r.shape is None:
        feats += arrangement_features(r, s)
    if s.winner:
        feats += winner_features(r, s, _pair_points(r, s, ruleset, opts))
        feats += _gates(r, s)
        keys = {k for k, _ in feats}
        if ruleset.final_pair_replaces and any(k.startswith("final_pair_") for k in keys):
            feats = [f for f in feats if not f[0].startswith("pair_")]
    keys = {k for k, _ in feats}
    if (
        not opts.get("one_suit_and_terminals_both", True)
        and {
            "one_suit_honours",
            "terminals_honours",
        }
        <= keys
    ):
        feats = [f for f in feats if f[0] != "terminals_honours"]
    items = price(feats, ruleset, opts, s.winner, restricted)
    if s.winner and r.shape is None:
        items += _no_score_bonuses(items, ruleset, opts)
    items.sort(key=lambda i: i.key != "mahjong")  # the Mah-jongg bonus first, as the books list it
    result = _total(items, ruleset, opts, HandScore())
    result.arrangement = _arrangement_json(r)
    result.shape = r.shape
    return result, keys


def _gates(r: Reading, s: Situation) -> list[Feature]:
    """Nine Gates is also four sets and a pair: a feature of a concealed reading."""
    w = s.win
    if r.shape is not None or w is None or any(not p.concealed and not p.final for p in r.parts):
        return []
    if any(p.kind == "kong" for p in r.parts):
        return []
    return [
        (name, "")
        for name in shapes_of(list(r.tiles), 0, w.tile)
        if name in ("nine_gates", "gates_of_heaven")
    ]


def _no_score_bonuses(items: list[Item], ruleset: Ruleset, opts: Mapping[str, Any]) -> list[Item]:
    """Bonuses for having no other score: Pung-Chow's "No other score than Mah-Jongg" (any
    other point cancels it, even drawing the winning piece), Kajongg's "Zero point hand"
    (no points from sets or pairs, bonus tiles aside)."""
    extra: list[Feature] = []
    if not any(i.points for i in items if i.key != "mahjong"):
        extra.append(("no_other_score", ""))
    if not any(i.points for i in items if i.key.startswith(_PART_KEYS_PREFIX)):
        extra.append(("zero_points", ""))
    return price(extra, ruleset, opts, winner=True)


def _situation(fh: FinishedHand, seat: Seat, winner: bool, only_place: bool = False) -> Situation:
    hand = fh.hands.get(seat, SeatHand())
    return Situation(
        seat=int(seat),
        prevailing=int(fh.prevailing) if fh.prevailing is not None else None,
        winner=winner,
        win=fh.win if winner else None,
        flowers=hand.flowers,
        only_place=only_place,
    )


def score_seat(fh: FinishedHand, seat: Seat, opts: Mapping[str, Any]) -> HandScore:
    """The hand of one seat: the winner's best valid reading, or a non-winner's holding."""
    ruleset = fh.ruleset
    hand = fh.hands.get(seat)
    if hand is None:
        return HandScore()
    fault = fh.faults.get(seat)
    treatment = ruleset.faults.get(fault or "", "")
    winner = seat == fh.winner
    if winner:
        return _score_winner(fh, seat, hand, opts, fault)
    if treatment == "zero" or fault == "false_mahjong":
        return HandScore(
            arrangement=[],
            items=[
                Item(
                    f"{(fault or '').replace('_', ' ')} hand scores nothing",
                    ruleset.fault_rule,
                    "fault",
                )
            ],
        )
    reading = _nonwinner_reading(hand)
    calling = calling_features(fh, seat, hand, opts) if treatment != "restricted" else []
    result, _ = score_reading(
        reading,
        _situation(fh, seat, False),
        ruleset,
        opts,
        restricted=treatment == "restricted",
        extra=calling,
    )
    return result


def _may_call_for_a_named_hand(hand: SeatHand) -> bool:
    """Cheap test: could 13 tiles be one short of a hand a "Calling for" row names? Every
    tile held must fit the hand's kind of tiles (one suit, honours, majors, green ...)."""
    tiles = hand.all_tiles
    suits = {t // 9 for t in tiles if t < 27}
    return (
        len(suits) <= 1
        or not any(is_honour(t) for t in tiles)
        or all(is_terminal(t) or is_honour(t) for t in tiles)
        or all(t in GREEN for t in tiles)
        or sum(1 for t in tiles if t in DRAGONS) >= 8
        or sum(1 for t in tiles if t in WINDS) >= 11
        or sum(1 for m in hand.melds if m.kind == "kong") >= 3
    )


def calling_features(
    fh: FinishedHand, seat: Seat, hand: SeatHand, opts: Mapping[str, Any]
) -> list[Feature]:
    """BMJA "Calling for ...": the named hands this non-winner's hand is one tile from, each
    found by completing the hand with every tile that would make it a Mah Jongg."""
    wanted = fh.ruleset.calling_hands
    if not wanted or len(hand.concealed) + 3 * len(hand.melds) != 13:
        return []
    if not _may_call_for_a_named_hand(hand):
        return []
    specials = fh.ruleset.specials & frozenset(SPECIAL_SHAPES)
    nmelds = len(hand.melds)
    tiles = set(waits(list(hand.concealed), nmelds, None, specials))
    held = list(hand.concealed)
    free = [t for t in range(NUM_KINDS) if held.count(t) < 4]  # no fifth copy
    tiles |= {t for t in free if shapes_of([*held, t], nmelds, t)}
    found: set[str] = set()
    for tile in sorted(tiles):
        trial_hand = replace(hand, concealed=(*hand.concealed, tile))
        win = Win(tile, "wall", None, frozenset())
        trial = replace(fh, hands={**fh.hands, seat: trial_hand}, winner=seat, win=win)
        s = _situation(trial, seat, True)
        for reading in _winner_readings(trial_hand, trial):
            result, keys = score_reading(reading, s, fh.ruleset, opts)
            if not _requirement(fh.ruleset, opts, reading, result, keys):
                found |= keys & wanted
    return [(f"calling_{key}", "") for key in sorted(found)]


def _score_winner(
    fh: FinishedHand, seat: Seat, hand: SeatHand, opts: Mapping[str, Any], fault: str | None
) -> HandScore:
    ruleset = fh.ruleset
    if fault in ("short", "long", "foul", "dead", "false_mahjong"):
        return HandScore(
            valid=False,
            reason=f"a {fault.replace('_', ' ')} hand cannot go Mah-jongg",
            rule=ruleset.false_mahjong_rule,
        )
    s = _situation(fh, seat, True, _only_place(hand, fh, opts))
    best: HandScore | None = None
    failure = ""
    failed: HandScore | None = None
    for reading in _winner_readings(hand, fh):
        result, keys = score_reading(reading, s, ruleset, opts)
        why = _requirement(ruleset, opts, reading, result, keys)
        if why:
            if not failure:
                failure, failed = why, result
            continue
        if best is None or (result.value, result.score, result.points) > (
            best.value,
            best.score,
            best.points,
        ):
            best = result
    if best is None:
        if failure and failed is not None:
            explanation: dict[str, Any] = {
                "closest": failed.arrangement,
                "unarranged": [],
                "lacks": failure,
                "would_complete": [],
            }
            return HandScore(
                valid=False,
                reason=failure,
                rule=ruleset.requirement_rule or ruleset.false_mahjong_rule,
                explanation=explanation,
            )
        specials = ruleset.specials & frozenset(SPECIAL_SHAPES)
        explanation = explain_incomplete(hand, specials)
        unarranged = " ".join(explanation["unarranged"])
        return HandScore(
            valid=False,
            reason="the hand is not four sets and a pair, nor a special hand of this game"
            + (f": {unarranged} do not arrange" if unarranged else ""),
            rule=complete_rule(ruleset),
            explanation=explanation,
        )
    return best


def complete_rule(ruleset: Ruleset) -> str:
    if ruleset.name.startswith("code1924"):
        return "Code 1924, Law 44"
    if ruleset.name.startswith("pungchow"):
        return "Pung-Chow Part I, Mah-Jongg or Mah-Diao (four sets and a pair)"
    return ruleset.table["mahjong"].rule  # the rule set's "Standard Mah Jongg"
