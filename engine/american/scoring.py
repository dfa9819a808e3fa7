"""`mjtable score` for an American hand: the card line the winner's tiles make, its value, and
who pays what, in the same shape as the other families' results (docs/score.md).

The League's schedule is :mod:`engine.american.payments` (SC-1..SC-6, J-12, MN-3, MN-4); this
module reads the finished hand, verifies it against the card (M-1) and settles it:

* a win: the line's printed value, doubled first when jokerless (SC-4, never for Singles and
  Pairs, SC-5, nor a Finesse, J-12); the discarder pays double (SC-2), a self-pick costs
  everyone double (SC-3); a dead hand pays single (SC-6);
* Mah Jongg on a misnamed discard (MN-3), or on a discarded Joker called by a tile's name
  (MN-4): the misnamer alone pays four times the value ("pays for the table");
* a wall game: nobody pays (W-1);
* tiles that make no line: a Mah Jongg in error (M-4) — the declarer's hand is dead and pays
  the eventual winner; nothing is paid now, and the answer says which lines are closest and
  what they lack.

Pure: the compiled card is given; the caller reads the card file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from engine.american.compiled import CompiledCard
from engine.american.match import Hand, HandError, make_hand, matches, nearest_expansions
from engine.american.needs import needs_json
from engine.american.payments import (
    PaymentOptions,
    Settlement,
    Win,
    hand_value,
    pay_for_the_table,
    payment_options,
    settle_win,
)
from engine.errors import MalformedInput
from engine.seats import Seat, parse_seat
from engine.tiles import TileError, parse_tile, tile_name

WIN_BY = ("discard", "wall", "finesse", "heavenly", "earthly")
MISNAMED = {"tile": "MN-3", "joker": "MN-4"}
_KEYS = frozenset(
    {"ruleset", "card", "options", "players", "hands", "winner", "win", "line", "dead"}
)


def _obj(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedInput(where, f"expected an object, got {type(value).__name__}")
    return value


def _tokens(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise MalformedInput(where, "expected a list of tile tokens")
    return value


def _options(card: CompiledCard, raw: object) -> PaymentOptions:
    chosen: dict[str, Any] = dict(card.options)
    known = {f.name for f in fields(PaymentOptions)}
    for key, value in _obj(raw or {}, "options").items():
        if key not in known:
            raise MalformedInput(
                f"options.{key}", f"unknown option for american; known: {', '.join(sorted(known))}"
            )
        expected = int if key == "challenge_amount" else bool
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise MalformedInput(f"options.{key}", f"expected {expected.__name__}, got {value!r}")
        chosen[key] = value
    return payment_options(chosen)


def _hand(raw: object, where: str) -> Hand:
    doc = _obj(raw, where)
    tiles = _tokens(doc.get("tiles", []), f"{where}.tiles")
    exposed_raw = doc.get("exposed", [])
    if not isinstance(exposed_raw, list):
        raise MalformedInput(f"{where}.exposed", "expected a list of exposures")
    exposed = [_tokens(e, f"{where}.exposed[{i}]") for i, e in enumerate(exposed_raw)]
    try:
        concealed = [parse_tile(t, f"{where}.tiles[{i}]") for i, t in enumerate(tiles)]
        sets = [
            [parse_tile(t, f"{where}.exposed[{i}][{j}]") for j, t in enumerate(e)]
            for i, e in enumerate(exposed)
        ]
        return make_hand(concealed, sets, sizes=(14,))
    except TileError as exc:
        raise MalformedInput(exc.where, f"unknown tile {exc.token!r}") from None
    except HandError as exc:
        raise MalformedInput(f"{where}: {exc.where}", exc.message) from None


def _seats(doc: Mapping[str, Any]) -> tuple[Seat, ...]:
    raw = doc.get("players", ["E", "S", "W", "N"])
    if not isinstance(raw, list) or not 2 <= len(raw) <= 4:
        raise MalformedInput("players", "two to four seats, e.g. [\"E\", \"S\", \"W\"]")
    seats = tuple(parse_seat(s, f"players[{i}]") for i, s in enumerate(raw))
    if len(set(seats)) != len(seats):
        raise MalformedInput("players", "a seat is listed twice")
    return seats


def score_american(doc: object, card: CompiledCard) -> dict[str, Any]:
    """Score and settle one finished American hand: the JSON `mjtable score` prints."""
    d = _obj(doc, "")
    for key in d:
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise MalformedInput(key, f"unknown field for american; known: {known}")
    options = _options(card, d.get("options"))
    players = _seats(d)
    dead_raw = d.get("dead", [])
    if not isinstance(dead_raw, list):
        raise MalformedInput("dead", "a list of seats, e.g. [\"N\"]")
    dead = tuple(parse_seat(s, f"dead[{i}]") for i, s in enumerate(dead_raw))
    out: dict[str, Any] = {"ruleset": "american", "card": card.name}
    winner_raw = d.get("winner")
    if winner_raw is None:
        return {
            "hands": {},
            "payments": [],
            "net": {s.name: 0 for s in players},
            "mahjong": {
                "valid": False,
                "drawn": True,
                "reason": "a wall game: the wall ran out with no Mah Jongg; nobody pays",
                "rule": "American W-1",
            },
            **out,
            "winner": None,
        }
    winner = parse_seat(winner_raw, "winner")
    if winner not in players or winner in dead:
        raise MalformedInput("winner", f"{winner.name} is not a live player at this table")
    win = _obj(d.get("win"), "win")
    by, discarder, misnamed = _how(win, winner, players)
    hands = _obj(d.get("hands"), "hands")
    if winner.name not in hands:
        raise MalformedInput(f"hands.{winner.name}", "the winner's 14 tiles are needed")
    hand = _hand(hands[winner.name], f"hands.{winner.name}")
    return {**out, **_settle(card, hand, winner, by, discarder, misnamed, d.get("line"),
                             players, dead, options)}


def _how(win: Mapping[str, Any], winner: Seat,
         players: Sequence[Seat]) -> tuple[str, Seat | None, str | None]:
    by = win.get("by")
    if by not in WIN_BY:
        raise MalformedInput("win.by", f"one of {', '.join(WIN_BY)}, not {by!r}")
    discarder = None
    if by in ("heavenly", "earthly") and winner != Seat.E:
        raise MalformedInput("win.by", f"a {by.capitalize()} Hand is East's (American CH-9)")
    if by == "discard":
        discarder = parse_seat(win.get("from"), "win.from")
        if discarder == winner or discarder not in players:
            raise MalformedInput("win.from", "the discarder is another player at the table")
    elif win.get("from") is not None:
        raise MalformedInput("win.from", f"only a discard comes from a player, not a {by} win")
    misnamed = win.get("misnamed")
    if misnamed is not None and misnamed not in MISNAMED:
        raise MalformedInput("win.misnamed", f"'tile' (MN-3) or 'joker' (MN-4), not {misnamed!r}")
    if misnamed and by != "discard":
        raise MalformedInput("win.misnamed", "only a discard is misnamed")
    return by, discarder, misnamed


def _settle(card: CompiledCard, hand: Hand, winner: Seat, by: str, discarder: Seat | None,
            misnamed: str | None, named: object, players: Sequence[Seat], dead: Sequence[Seat],
            options: PaymentOptions) -> dict[str, Any]:
    found = matches(card, hand)
    arrangement = [[tile_name(t) for t in e.tiles()] for e in hand.exposures]
    arrangement.append(sorted(tile_name(t) for t, n in hand.concealed for _ in range(n))
                       + ["J"] * hand.jokers)
    if not found:
        return _in_error(card, hand, winner, arrangement, players)
    ids = [card.lines[m.line].id for m in found]
    if named is not None and named not in ids:
        raise MalformedInput("line", f"the tiles do not make {named!r}; they make "
                             f"{', '.join(ids)} (American M-1: verified against the card)")
    best = max(found, key=lambda m: (card.lines[m.line].points * (2 if m.jokerless else 1),
                                     -m.line))
    chosen = next(m for m in found if card.lines[m.line].id == named) if named else best
    line = card.lines[chosen.line]
    jokerless = chosen.jokerless and by != "finesse"  # J-12: a Finesse is never jokerless
    result = Win(winner, line.points, by, discarder, jokerless,  # type: ignore[arg-type]
                 len(hand.exposures))
    value, _ = hand_value(result, options)
    if misnamed:
        rule = MISNAMED[misnamed]
        assert discarder is not None
        settlement = pay_for_the_table(value, discarder, winner, rule)
    else:
        settlement = settle_win(result, players, dead, options)
    return {
        "hands": {winner.name: _hand_json(line, chosen.jokerless, jokerless, value, by,
                                          arrangement)},
        "payments": [p.to_json() for p in settlement.payments],
        "net": Settlement(settlement.payments).net(players),
        "mahjong": {"valid": True, "line": line.id, **({"misnamed": misnamed} if misnamed else {}),
                    **({"also": [i for i in ids if i != line.id]} if len(ids) > 1 else {})},
        "winner": winner.name,
        "dead": [s.name for s in dead],
    }


def _hand_json(line: Any, permits: bool, jokerless: bool, value: int, by: str,
               arrangement: list[list[str]]) -> dict[str, Any]:
    kind = "concealed (C)" if line.concealed else "exposed (X)"
    items: list[dict[str, Any]] = [{
        "item": f"Card line {line.id}, {kind}" + (f": {line.note}" if line.note else ""),
        "points": line.points, "rule": f"American SC-1 (the card's line {line.id})"}]
    doubles = 0
    if jokerless and value > line.points:
        doubles = 1
        items.append({"item": "Jokerless: the value doubled first", "doubles": 1,
                      "rule": "American SC-4"})
    elif permits and by == "finesse":
        items.append({"item": "Finesse: never jokerless", "points": 0, "rule": "American J-12"})
    return {"line": line.id, "section": line.section, "concealed": line.concealed,
            "jokerless": jokerless, "points": line.points, "doubles": doubles, "score": value,
            "value": value, "limit_hand": None, "capped": False, "arrangement": arrangement,
            "items": items, "doubling": [line.points << k for k in range(doubles + 1)]}


def _in_error(card: CompiledCard, hand: Hand, winner: Seat, arrangement: list[list[str]],
              players: Sequence[Seat]) -> dict[str, Any]:
    away = nearest_expansions(card, hand)
    wanted = needs_json(card, hand, away, most=3, within=14)
    closest = [{"line": card.lines[line].id, "tiles_away": n, **wanted.get(line, {})}
               for line, n, _ in away[:3]]
    lacks = "; ".join(
        f"{c['line']} needs {_listed(c.get('needs'))}"
        + (f" and has no place for {_listed(c.get('spare'))}" if c.get("spare") else "")
        for c in closest
    )
    return {
        "hands": {winner.name: {"points": 0, "doubles": 0, "score": 0, "value": 0,
                                "limit_hand": None, "capped": False,
                                "arrangement": arrangement, "items": [], "doubling": [0]}},
        "payments": [],
        "net": {s.name: 0 for s in players},
        "mahjong": {
            "valid": False,
            "reason": "the 14 tiles make no line of the card: a Mah Jongg in error; the "
                      "declarer's hand is dead and pays the eventual winner the full value",
            "rule": "American M-4",
            "closest": closest,
            "lacks": lacks,
            "dead": winner.name,
            "confirm": "a Mah Jongg in error: the table confirms before the hand is called dead",
        },
        "winner": winner.name,
        "dead": [winner.name],
    }


def _listed(tiles: object) -> str:
    return " ".join(str(t) for t in tiles) if isinstance(tiles, list) else "nothing"
