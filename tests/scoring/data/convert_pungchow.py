"""Turn the worked examples of Pung-Chow Part I (design/pungchow-examples.yaml, read from the
book's pictures, errata applied) into `mjtable score` inputs with the book's figures.

Run once when the YAML changes: `.venv/bin/python tests/scoring/data/convert_pungchow.py
PATH/pungchow-examples.yaml > tests/scoring/data/pungchow_part1.json`. The tests read the JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import yaml

NAMES = {"east": "EW", "south": "SW", "west": "WW", "north": "NW",
         "red": "RD", "green": "GD", "white": "WD"}
SEAT = {"east": "E", "south": "S", "west": "W", "north": "N"}
HOW = {"drawn": "wall", "loose_tile": "loose_tile", "punged": "discard", "chowed": "discard"}
# Errata the pictures need before scoring (pungchow-examples.yaml, "errata"):
# Layout 1: all Character tiles of West are Bamboo. Layout 3: East and South both show a
# concealed pung of 4C (six on the table); South's is read as 4D, which scores the same.
SWAP = {
    ("P1-LAYOUT1", "west"): {"7C": "7B", "8C": "8B", "9C": "9B"},
    ("P1-LAYOUT3", "south"): {"4C": "4D"},
}
FORCE_HOW: dict[str, str] = {}


def tiles_of(raw: list[str], used: set[str], swap: dict[str, str]) -> list[str]:
    out = []
    singles = iter(("RD", "GD", "WD"))
    for t in raw:
        all_used = all(d in used for d in ("RD", "GD", "WD"))
        if t == "dragon" and (len(set(raw)) > 1 or (len(raw) == 2 and all_used)):
            t = next(singles)  # unmatched dragons of different colours
        elif t == "dragon":
            # colour not readable: the first dragon the rest of the table leaves free
            t = next(d for d in ("RD", "GD", "WD") if d not in used)
        t = NAMES.get(t, t)
        out.append(swap.get(t, t))
    return out


def hand_of(sets: list[dict[str, Any]], winner: bool, used: set[str],
            swap: dict[str, str]) -> tuple[dict[str, Any], str | None]:
    melds, concealed, win_tile = [], [], None
    dragon_sets: dict[int, str] = {}
    for s in sets:
        tiles = tiles_of(s["tiles"], used, swap)
        if s["kind"] != "unmatched" and s["tiles"][0] == "dragon":
            # keep one colour per unreadable set, and different sets different colours
            colour = tiles[0]
            used.add(colour)
            tiles = [colour] * len(tiles)
            dragon_sets[id(s)] = colour
        final = s.get("contains_winning_tile", False)
        if final:
            win_tile = tiles[0] if s["kind"] != "chow" else None
        declared = s.get("declared_concealed_kong", False)
        if s["kind"] in ("pung", "kong", "chow") and (s.get("exposed") or declared) and not (
            winner and final
        ):
            melds.append({"tiles": tiles, "exposed": not declared})
        else:
            concealed += tiles
    return {"melds": melds, "concealed": concealed, "flowers": []}, win_tile


def seat_for(example: dict[str, Any]) -> str:
    if example.get("seat_wind"):
        return SEAT[example["seat_wind"]]
    winds = {t for s in example["sets"] for t in s["tiles"] if t in SEAT}
    # not East (the book's payments assume it) and no wind in the hand that would score
    return next(SEAT[w] for w in ("south", "west", "north") if w not in winds)


def win_of(example_id: str, how: str, tile: str | None, seat: str,
           chow_tile: str | None) -> dict[str, Any]:
    how = FORCE_HOW.get(example_id, how)
    if how == "original_hand":
        return {"tile": None, "by": "wall", "from": None,
                "context": ["heaven"] if seat == "E" else ["original_hand"]}
    by = HOW[how]
    source = None
    if by == "discard":
        source = next(s for s in ("N", "W", "S", "E") if s != seat)
    return {"tile": tile or chow_tile, "by": by, "from": source, "context": []}


def example_case(ex: dict[str, Any]) -> dict[str, Any]:
    seat = seat_for(ex)
    used = {NAMES[t] for s in ex["sets"] for t in s["tiles"] if t in NAMES}
    hand, tile = hand_of(ex["sets"], True, used, {})
    chow_tile = NAMES.get(ex["winning_tile"]["tile"], ex["winning_tile"]["tile"])
    if chow_tile == "dragon":
        chow_tile = tile
    win = win_of(ex["id"], ex["winning_tile"]["how"], tile, seat, chow_tile)
    errata = ex.get("errata") or {}
    expected = errata.get("corrected_hand_score", ex["printed_hand_score"])
    return {
        "id": ex["id"],
        "input": {"ruleset": "pungchow", "hands": {seat: hand}, "winner": seat, "win": win},
        "expected": {"seat": seat, "score": expected},
    }


def layout_case(lay: dict[str, Any]) -> dict[str, Any]:
    winner = SEAT[lay["winner"]]
    used = {NAMES[t] for p in lay["players"].values() for s in p["sets"] for t in s["tiles"]
            if t in NAMES}
    hands, scores, win = {}, {}, None
    for wind, p in lay["players"].items():
        seat = SEAT[wind]
        swap = SWAP.get((lay["id"], wind), {})
        hand, tile = hand_of(p["sets"], seat == winner, used, swap)
        hands[seat] = hand
        scores[seat] = p.get("errata_score", p["printed_score"])
        if scores[seat] == 2562:
            scores[seat] = p["recomputed_from_picture"]["score"]  # 2560, see transfers
        if seat == winner:
            final = next(s for s in p["sets"] if s.get("contains_winning_tile"))
            # the book's bonuses say how the winning tile came ("Drawing winning piece")
            drawn = "Drawing winning piece" in (p.get("winner_bonuses_assumed") or {})
            how = "drawn" if drawn else ("chowed" if final["kind"] == "chow" else "punged")
            chow_tile = tiles_of(final["tiles"], used, swap)[0]
            win = win_of(lay["id"], how, tile, seat, chow_tile)
    transfers = []
    corrected = (lay.get("settlement_corrected") or {}).get("transfers")
    for t in corrected or lay["settlement_printed"]:
        payer = t["payer"]
        if payer == "each of the other three":
            payers = [w for w in SEAT if w != lay["winner"]]
        else:
            payers = payer.replace("each of ", "").split(", ")
        for one in payers:
            # Layout 2: the errata's 2562 cannot come out of the doubling; the picture gives 2560
            transfers.append({"from": SEAT[one], "to": SEAT[t["payee"]],
                              "amount": t.get("alt_if_2560", t["amount"])})
    return {
        "id": lay["id"],
        "input": {"ruleset": "pungchow", "hands": hands, "winner": winner, "win": win},
        "expected": {"scores": scores, "transfers": transfers},
    }


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    cases = [example_case(e) for e in doc["part_I_examples"]]
    cases += [layout_case(x) for x in doc["part_I_score_settling_layouts"]]
    json.dump(cases, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
