"""Score and settle one finished hand: the whole of `mjtable score` but its I/O.

>>> result = score_hand({
...     "ruleset": "code1924/mixed", "prevailing_wind": "E", "winner": "S",
...     "hands": {"S": {"concealed": "1B 2B 3B 4C 5C 6C 7D 8D 9D RD RD RD EW EW".split()}},
...     "win": {"tile": "RD", "by": "wall"}})
>>> result["hands"]["S"]["score"], result["net"]["E"]
(64, -128)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.errors import MalformedInput
from engine.hands import SPECIAL_SHAPES, waits
from engine.payment import Payment
from engine.scoring.features import GREEN, composition_features
from engine.scoring.model import FinishedHand, SeatHand, Win, parse_finished_hand
from engine.scoring.score import HandScore, score_seat
from engine.scoring.settle import false_mahjong, net_of, pay_winner, settle_losers
from engine.seats import SEATS, Seat
from engine.tiles import DRAGONS, WINDS, Tile, is_honour, is_terminal

_WINNER_RULE = {
    "code1924": "Code 1924, Law 81",
    "pungchow": "Pung-Chow, Settling the Scores",
    "classical": "Classical: all pay the winner, East double",
}

_DRAWN_RULE = {
    "code1924": "Code 1924, Law 88",
    "pungchow": "Pung-Chow Part II, the last 14 tiles are never drawn: a draw game",
    "classical": "Classical rules of play: washout",
}


# A false Mah-jongg costs a penalty: the scoresheet books it only once the referee confirms
CONFIRM = "a false Mah-jongg: the referee confirms it before the penalty is entered"


def family_of(fh: FinishedHand) -> str:
    return fh.ruleset.name.split("/")[0]


def score_hand(doc: object) -> dict[str, Any]:
    """Parse, score and settle: the JSON object `mjtable score` prints. (An American hand is
    scored against its card: :func:`engine.american.scoring.score_american`.)"""
    if isinstance(doc, dict) and doc.get("ruleset") == "american":
        raise MalformedInput(
            "ruleset",
            "an American hand is scored against a card: engine.american.scoring."
            "score_american(doc, card), as `mjtable score` does",
        )
    return score_finished(parse_finished_hand(doc))


def score_finished(fh: FinishedHand) -> dict[str, Any]:
    opts = fh.options
    scores: dict[Seat, HandScore] = {s: score_seat(fh, s, opts) for s in SEATS if s in fh.hands}
    payments: list[Payment] = []
    family = fh.ruleset.name.split("/")[0]
    out: dict[str, Any] = {}

    offender = next((s for s, f in fh.faults.items() if f == "false_mahjong"), None)
    winner = fh.winner
    washing = winner is not None and fh.win is not None and "washing" in fh.win.context
    if washing and winner == Seat.E and fh.win is not None and "heaven" in fh.win.context:
        # "East Wind winning on original draw ... has preference over washing" (Limit Hands 6)
        washing = winner is None or not scores[winner].valid
    if washing and winner is not None:
        mahjong, payments = _washing(fh, winner)
    elif winner is not None and not scores[winner].valid:
        w = scores[winner]
        mahjong = {"valid": False, "reason": w.reason, "rule": w.rule, **w.explanation}
        mahjong["confirm"] = CONFIRM
        payments = false_mahjong(winner, fh.ruleset, opts)
    elif offender is not None:
        mahjong = {
            "valid": False,
            "reason": f"{offender.name} called Mah-jongg falsely",
            "rule": fh.ruleset.false_mahjong_rule,
        }
        payments = false_mahjong(offender, fh.ruleset, opts)
    elif winner is None:
        mahjong = {
            "valid": False,
            "drawn": True,
            "reason": "no one went Mah-jongg: a drawn hand, no one scores",
            "rule": _DRAWN_RULE[family],
        }
    else:
        mahjong = {"valid": True}
        payments = _settle_win(fh, winner, scores, opts)
    out["hands"] = {s.name: scores[s].to_json() for s in SEATS if s in scores}
    out["payments"] = [p.to_json() for p in payments]
    out["net"] = net_of(payments)
    out["mahjong"] = mahjong
    out["ruleset"] = fh.ruleset.name
    out["winner"] = winner.name if winner is not None else None
    return out


def _settle_win(
    fh: FinishedHand, winner: Seat, scores: Mapping[Seat, HandScore], opts: Mapping[str, Any]
) -> list[Payment]:
    payer, rule = _pay_for_all(fh, winner, scores[winner], opts)
    payments = pay_winner(
        winner, scores[winner].value, opts, SEATS, payer, rule, _WINNER_RULE[family_of(fh)]
    )
    if not opts.get("losers_settle", True):
        return payments
    if payer is not None and fh.ruleset.pay_for_all_cancels_losers:
        return payments
    losers = {s: (scores[s].score if s in scores else 0) for s in SEATS if s != winner}
    rule = (
        "Code 1924, Laws 82, 93"
        if fh.ruleset.name.startswith("code1924")
        else (
            "Pung-Chow, Settling the Scores"
            if fh.ruleset.name.startswith("pungchow")
            else f"{fh.ruleset.book}: losers pay each other"
        )
    )
    return payments + settle_losers(losers, opts, fh.ruleset.settlement_order, winner, rule)


# -- pay for all ----------------------------------------------------------------------------------


def _pay_for_all(
    fh: FinishedHand, winner: Seat, score: HandScore, opts: Mapping[str, Any]
) -> tuple[Seat | None, str]:
    kind = fh.ruleset.pay_for_all
    if kind is None or not opts.get("pay_for_all", True):
        return None, ""
    win = fh.win
    assert win is not None
    hand = fh.hands[winner]
    if kind == "insurance":
        return _insurance(fh, winner, hand, win, score)
    return _reckless(fh, winner, hand, win)


def _classes(tiles: tuple[Tile, ...]) -> list[frozenset[Tile]]:
    """The target hands of Law 77 the winning hand is, each as the tiles its sets may hold:
    all one suit, all Honours, all four Winds, all Terminals, all Green."""
    keys = {k for k, _ in composition_features(tiles)}
    out: list[frozenset[Tile]] = []
    suits = {t // 9 for t in tiles if t < 27}
    if keys & {"one_suit_pure", "one_suit_honours"}:
        s = next(iter(suits))
        honours = frozenset(range(27, 34)) if "one_suit_honours" in keys else frozenset()
        out.append(frozenset(range(s * 9, s * 9 + 9)) | honours)
    if "all_honours" in keys:
        out.append(frozenset(range(27, 34)))
    if all(tiles.count(w) >= 3 for w in WINDS):
        out.append(frozenset(WINDS))  # a triplet of every Wind: the sets that count are Winds
    if "all_terminals" in keys:
        out.append(frozenset(t for t in range(27) if is_terminal(t)))
    if all(t in GREEN for t in tiles):
        out.append(GREEN)
    return out


def _insurance(
    fh: FinishedHand, winner: Seat, hand: SeatHand, win: Win, score: HandScore
) -> tuple[Seat | None, str]:
    grounded = [m for m in hand.melds if m.exposed]
    # Law 78: two Dragon sets grounded, the third punged from a discard; Three Great Scholars.
    dragon_melds = [m for m in grounded if m.tile in DRAGONS and m.kind != "chow"]
    if score.limit_hand and "Three Great Scholars" in score.limit_hand:
        discarder: Seat | None = None
        if len(dragon_melds) == 2 and win.claimed and win.tile in DRAGONS:
            discarder = win.from_seat
        elif len(dragon_melds) == 3 and dragon_melds[2].claimed_from is not None:
            discarder = dragon_melds[2].claimed_from
        if discarder is not None and discarder != winner and not _exempt_1924(fh, discarder, win):
            return discarder, "Code 1924, Laws 78-79"
    # Law 77: three or four sets grounded within the class of the hand the discard completed.
    if win.by != "discard" or win.from_seat is None:
        return None, ""
    for cls in _classes(hand.all_tiles):
        inside = [m for m in grounded if all(t in cls for t in m.tiles)]
        if len(inside) >= 3 and not _exempt_1924(fh, win.from_seat, win):
            return win.from_seat, "Code 1924, Laws 77, 79"
    return None, ""


def _best_completion(fh: FinishedHand, seat: Seat, only: Tile | None = None) -> HandScore | None:
    """The best hand ``seat`` would have made with one more tile (his waiting hand)."""
    hand = fh.hands.get(seat)
    if hand is None:
        return None
    specials = fh.ruleset.specials & frozenset(SPECIAL_SHAPES)
    best = None
    for tile in waits(list(hand.concealed), len(hand.melds), None, specials):
        if only is not None and tile != only:
            continue
        trial = replace(
            fh,
            hands={**fh.hands, seat: replace(hand, concealed=(*hand.concealed, tile))},
            winner=seat,
            win=Win(tile, "wall", None, frozenset()),
            faults={},
        )
        result = score_seat(trial, seat, trial.options)
        if result.valid and (best is None or _doubles(result) > _doubles(best)):
            best = result
    return best


def _doubles(result: HandScore) -> int:
    return 99 if result.limit_hand else result.doubles - result.flower_doubles


def _exempt_1924(fh: FinishedHand, discarder: Seat, win: Win) -> bool:
    """Law 77 (a) a waiting hand worth three doubles, Flowers aside; (b) no other choice."""
    if "no_choice" in win.context:
        return True
    best = _best_completion(fh, discarder)
    return best is not None and _doubles(best) >= 3


def _reckless(fh: FinishedHand, winner: Seat, hand: SeatHand, win: Win) -> tuple[Seat | None, str]:
    """Pung-Chow II Penalties 2 and Illustrations 8a-d (rule-decisions Pung-Chow 8)."""
    if win.by != "discard" or win.from_seat is None or win.tile is None:
        return None, ""
    exposed = [t for m in hand.melds if m.exposed for t in m.tiles]
    tiles = hand.all_tiles
    suits = {t // 9 for t in tiles if t < 27}
    heads = all(is_terminal(t) or is_honour(t) for t in tiles)
    dragon_sets = [m for m in hand.melds if m.exposed and m.tile in DRAGONS and m.kind != "chow"]
    wind_sets = [m for m in hand.melds if m.exposed and m.tile in WINDS and m.kind != "chow"]
    triggered = (
        (
            len(suits) == 1
            and not any(is_honour(t) for t in tiles)
            and max((sum(1 for t in exposed if t < 27 and t // 9 == s) for s in suits), default=0)
            >= 9
        )
        or (heads and sum(1 for t in exposed if is_terminal(t) or is_honour(t)) >= 9)
        or (
            len(dragon_sets) == 2
            and win.tile in DRAGONS
            and win.tile not in {m.tile for m in dragon_sets}
            and hand.concealed.count(win.tile) >= 3
        )
        or (
            len(wind_sets) == 3
            and win.tile in WINDS
            and win.tile not in {m.tile for m in wind_sets}
        )
    )
    if not triggered:
        return None, ""
    discarder = win.from_seat
    if "no_choice" in win.context:
        return None, ""
    held = fh.hands.get(discarder)
    if held is not None:
        best = _best_completion(fh, discarder, only=win.tile)
        if best is not None:
            sets_doubling = sum(1 for i in best.items if i.key.startswith("set_") and i.doubles)
            if sets_doubling >= 2 or _doubles(best) > 2:
                return None, ""
    return discarder, "Pung-Chow Part II, Penalties 2"


# -- washing the tiles ----------------------------------------------------------------------------


def _washing(fh: FinishedHand, winner: Seat) -> tuple[dict[str, Any], list[Payment]]:
    rule = "Pung-Chow Part II, Washing the Tiles"
    if not fh.ruleset.washing:
        return {
            "valid": False,
            "reason": f"{fh.ruleset.name} does not wash the tiles",
            "rule": rule,
        }, []
    heads = len({t for t in fh.hands[winner].concealed if is_terminal(t) or is_honour(t)})
    amount = fh.ruleset.washing.get(min(heads, 13))
    if amount is None:
        return {
            "valid": False,
            "reason": f"{heads} different heads: washing needs 9 or more",
            "rule": rule,
        }, []
    # "not collecting double when he washes tiles": no East double either way.
    payments = [
        Payment(s, winner, amount, f"washing the tiles, {heads} heads ({rule})")
        for s in SEATS
        if s != winner
    ]
    return {"valid": True, "washing": heads}, payments
