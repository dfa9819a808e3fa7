"""The finished hand to be scored, read from the JSON of `mjtable score` (contracts.md).

Everything is checked here, so scoring never meets a malformed hand: every refusal is a
:class:`~engine.errors.MalformedInput` whose ``where`` names the seat, field and index
(``hands.S.melds[1].tiles[2]``) and whose message names the tile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import MalformedInput
from engine.scoring.options import validate_options
from engine.scoring.tables import RULESETS, Ruleset
from engine.seats import SEATS, Seat, parse_seat
from engine.tiles import NUM_KINDS, Tile, TileError, is_bonus, parse_tile, tile_name

WIN_BY = ("wall", "loose_tile", "discard", "robbed_kong")
CONTEXTS = frozenset(
    {
        "last_tile",
        "last_discard",
        "heaven",
        "earth",
        "original_hand",
        "first_discard",
        "kong_on_kong",
        "delayed_call",
        "original_call",
        "calling_declared",
        # extensions (documented in docs/score.md)
        "no_choice",  # the discarder had no other tile to throw (1924 Law 77 (b); Pung-Chow)
        "washing",  # Pung-Chow II: the winner washes the tiles with his dealt hand
    }
)
FAULTS = frozenset({"short", "long", "foul", "dead", "false_mahjong"})


@dataclass(frozen=True)
class Meld:
    kind: str  # "chow" | "pung" | "kong"
    tile: Tile  # the lowest tile
    exposed: bool
    claimed_from: Seat | None = None  # extension: who discarded the tile that made it

    @property
    def tiles(self) -> tuple[Tile, ...]:
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == "kong" else 3)


@dataclass(frozen=True)
class SeatHand:
    melds: tuple[Meld, ...] = ()
    concealed: tuple[Tile, ...] = ()
    flowers: tuple[Tile, ...] = ()

    @property
    def all_tiles(self) -> tuple[Tile, ...]:
        return tuple(t for m in self.melds for t in m.tiles) + self.concealed


@dataclass(frozen=True)
class Win:
    tile: Tile | None
    by: str
    from_seat: Seat | None
    context: frozenset[str]

    @property
    def self_drawn(self) -> bool:
        return self.tile is not None and self.by in ("wall", "loose_tile")

    @property
    def claimed(self) -> bool:
        return self.by in ("discard", "robbed_kong")


@dataclass(frozen=True)
class FinishedHand:
    ruleset: Ruleset
    options: Mapping[str, Any]
    prevailing: Seat | None
    hands: Mapping[Seat, SeatHand]
    winner: Seat | None
    win: Win | None
    faults: Mapping[Seat, str] = field(default_factory=dict)
    visible: tuple[Tile, ...] = ()


def _obj(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise MalformedInput(where, f"expected an object, got {type(value).__name__}")
    return value


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedInput(where, f"expected a list, got {type(value).__name__}")
    return value


def _tile(token: object, where: str) -> Tile:
    if not isinstance(token, str):
        raise MalformedInput(where, f"a tile is a token such as 5C, not {token!r}")
    try:
        return parse_tile(token, where)
    except TileError as exc:
        raise MalformedInput(where, f"unknown tile {token!r}") from exc


def _set_tile(token: object, where: str) -> Tile:
    t = _tile(token, where)
    if t >= NUM_KINDS:
        raise MalformedInput(
            where, f"{tile_name(t)} is a bonus tile: it is set aside, never part of a set or pair"
        )
    return t


def _meld(obj: object, where: str) -> Meld:
    m = _obj(obj, where)
    tiles = sorted(
        _set_tile(t, f"{where}.tiles[{i}]")
        for i, t in enumerate(_list(m.get("tiles"), f"{where}.tiles"))
    )
    exposed = m.get("exposed", True)
    if not isinstance(exposed, bool):
        raise MalformedInput(f"{where}.exposed", "exposed is true or false")
    names = " ".join(tile_name(t) for t in tiles)
    if len(tiles) in (3, 4) and len(set(tiles)) == 1:
        kind = "pung" if len(tiles) == 3 else "kong"
    elif (
        len(tiles) == 3
        and tiles[0] < 27
        and tiles[1] == tiles[0] + 1
        and tiles[2] == tiles[0] + 2
        and tiles[0] // 9 == tiles[2] // 9
    ):
        kind = "chow"
    else:
        raise MalformedInput(
            f"{where}.tiles",
            f"{names} is no set: a set is three in sequence of one suit, three alike or four "
            "alike (Code 1924, Laws 27-30)",
        )
    if not exposed and kind != "kong":
        raise MalformedInput(
            f"{where}.exposed",
            f"only a kong declared from the hand is laid face down; the {kind} {names} was "
            "completed with a discard, so it is exposed",
        )
    source = m.get("from")
    claimed_from = None if source is None else parse_seat(source, f"{where}.from")
    return Meld(kind, tiles[0], exposed, claimed_from)


def _seat_hand(obj: object, where: str) -> SeatHand:
    h = _obj(obj, where)
    for key in h:
        if key not in ("melds", "concealed", "flowers"):
            raise MalformedInput(f"{where}.{key}", "unknown field (melds, concealed, flowers)")
    melds = tuple(
        _meld(m, f"{where}.melds[{i}]")
        for i, m in enumerate(_list(h.get("melds", []), f"{where}.melds"))
    )
    concealed = tuple(
        _set_tile(t, f"{where}.concealed[{i}]")
        for i, t in enumerate(_list(h.get("concealed", []), f"{where}.concealed"))
    )
    flowers = []
    for i, token in enumerate(_list(h.get("flowers", []), f"{where}.flowers")):
        t = _tile(token, f"{where}.flowers[{i}]")
        if not is_bonus(t):
            raise MalformedInput(
                f"{where}.flowers[{i}]", f"{tile_name(t)} is not a flower or season (F1-F4, S1-S4)"
            )
        flowers.append(t)
    return SeatHand(melds, concealed, tuple(flowers))


def _options(ruleset: Ruleset, raw: object) -> dict[str, Any]:
    return validate_options(ruleset, _obj(raw, "options") if raw is not None else {})


def parse_finished_hand(doc: object) -> FinishedHand:
    """Read and check one `mjtable score` input object."""
    d = _obj(doc, "")
    name = d.get("ruleset")
    if not isinstance(name, str) or name not in RULESETS:
        raise MalformedInput("ruleset", f"unknown ruleset {name!r}; one of {', '.join(RULESETS)}")
    ruleset = RULESETS[name]
    options = _options(ruleset, d.get("options"))

    prevailing: Seat | None = None
    raw_wind = d.get("prevailing_wind")
    if ruleset.has_prevailing_wind:
        if raw_wind is None:
            raise MalformedInput("prevailing_wind", f"{name} has a prevailing wind: give E S W N")
        prevailing = parse_seat(raw_wind, "prevailing_wind")
    elif raw_wind is not None:
        parse_seat(raw_wind, "prevailing_wind")  # still a seat, but this family has no round

    hands_raw = _obj(d.get("hands", {}), "hands")
    hands: dict[Seat, SeatHand] = {}
    for key, value in hands_raw.items():
        seat = parse_seat(key, f"hands.{key}")
        hands[seat] = _seat_hand(value, f"hands.{seat.name}")

    faults: dict[Seat, str] = {}
    for key, value in _obj(d.get("faults") or {}, "faults").items():
        seat = parse_seat(key, f"faults.{key}")
        if not isinstance(value, str) or value not in FAULTS:
            raise MalformedInput(
                f"faults.{seat.name}", f"unknown fault {value!r}; one of {sorted(FAULTS)}"
            )
        faults[seat] = value

    winner_raw = d.get("winner")
    winner = None if winner_raw is None else parse_seat(winner_raw, "winner")
    win = None
    if winner is not None:
        if winner not in hands:
            raise MalformedInput(f"hands.{winner.name}", "the winner's hand must be given")
        win = _win(d.get("win"), winner)
        if win.tile is not None and win.tile not in hands[winner].concealed:
            raise MalformedInput(
                f"hands.{winner.name}.concealed",
                f"the winning tile {tile_name(win.tile)} must be among the concealed tiles",
            )
    falsely = [s for s, f in faults.items() if f == "false_mahjong"]
    if falsely and winner is not None and falsely != [winner]:
        raise MalformedInput(
            f"faults.{falsely[0].name}",
            "a false Mah-jongg ends the hand (Code 1924, Law 86): winner must be null or that seat",
        )

    visible = tuple(
        _set_tile(t, f"visible[{i}]") for i, t in enumerate(_list(d.get("visible", []), "visible"))
    )
    washing = win is not None and "washing" in win.context
    if winner is not None and win is not None and "kong_completion" in ruleset.table:
        hands, win = _fourth_tile(hands, winner, win)
    _check_counts(hands, winner, faults, washing)
    _check_copies(hands, visible)
    return FinishedHand(ruleset, options, prevailing, hands, winner, win, faults, visible)


def _win(obj: object, winner: Seat) -> Win:
    w = _obj(obj, "win")
    by = w.get("by")
    if not isinstance(by, str) or by not in WIN_BY:
        raise MalformedInput("win.by", f"unknown {by!r}; one of {', '.join(WIN_BY)}")
    context = _list(w.get("context", []) or [], "win.context")
    for i, c in enumerate(context):
        if not isinstance(c, str) or c not in CONTEXTS:
            raise MalformedInput(f"win.context[{i}]", f"unknown context {c!r}")
    ctx = frozenset(context)
    raw_tile = w.get("tile")
    if raw_tile is None:
        if not ctx & {"heaven", "original_hand", "washing"}:
            raise MalformedInput("win.tile", "the winning tile is null only for a dealt hand")
        tile = None
    else:
        tile = _set_tile(raw_tile, "win.tile")
    source = w.get("from")
    from_seat = None
    if by in ("discard", "robbed_kong"):
        if source is None:
            raise MalformedInput("win.from", f"a win by {by} names the seat it came from")
        from_seat = parse_seat(source, "win.from")
        if from_seat == winner:
            raise MalformedInput("win.from", "a player cannot win on his own discard")
    elif source is not None:
        raise MalformedInput("win.from", f"a win by {by} comes from no one; from must be null")
    return Win(tile, by, from_seat, ctx)


def _fourth_tile(
    hands: Mapping[Seat, SeatHand], winner: Seat, win: Win
) -> tuple[dict[Seat, SeatHand], Win]:
    """Pung-Chow II, bonus 6: the winning tile is the fourth of a set of three exposed on the
    table. The hand then holds one tile more than its sets allow; that tile goes onto the set,
    which becomes an exposed kong, and the win is marked ``fourth_tile``."""
    hand = hands[winner]
    extra = len(hand.concealed) - expected_concealed(hand, True)
    if extra != 1 or win.tile is None:
        return dict(hands), win
    for i, m in enumerate(hand.melds):
        if m.kind == "pung" and m.exposed and m.tile == win.tile:
            concealed = list(hand.concealed)
            concealed.remove(win.tile)
            melds = list(hand.melds)
            melds[i] = Meld("kong", m.tile, True, m.claimed_from)
            fixed = SeatHand(tuple(melds), tuple(concealed), hand.flowers)
            return {**hands, winner: fixed}, Win(
                win.tile, win.by, win.from_seat, win.context | {"fourth_tile"}
            )
    return dict(hands), win


def expected_concealed(hand: SeatHand, winner: bool) -> int:
    """Concealed tiles a correct hand holds: 13 or 14, less three per set laid (a kong counts
    as a set: its fourth tile came with a loose tile)."""
    return (14 if winner else 13) - 3 * len(hand.melds)


def _check_counts(
    hands: Mapping[Seat, SeatHand],
    winner: Seat | None,
    faults: Mapping[Seat, str],
    washing: bool = False,
) -> None:
    for seat, hand in hands.items():
        if faults.get(seat) in ("short", "long", "dead", "false_mahjong"):
            continue  # the fault says the count is wrong; it is scored as such
        want = expected_concealed(hand, seat == winner)
        if washing and seat == winner:
            want = 14 if seat == Seat.E else 13  # the dealt hand (Pung-Chow, Washing the Tiles)
        have = len(hand.concealed)
        if have != want:
            raise MalformedInput(
                f"hands.{seat.name}.concealed",
                f"{have} concealed tiles with {len(hand.melds)} sets laid; a "
                f"{'winning' if seat == winner else 'waiting'} hand holds {want} "
                "(mark it in faults as short or long if that is what happened)",
            )


def _check_copies(hands: Mapping[Seat, SeatHand], visible: tuple[Tile, ...]) -> None:
    seen: dict[Tile, int] = {}
    for seat in SEATS:
        hand = hands.get(seat)
        if hand is None:
            continue
        for t in hand.all_tiles:
            seen[t] = seen.get(t, 0) + 1
            if seen[t] > 4:
                raise MalformedInput(
                    f"hands.{seat.name}", f"a fifth {tile_name(t)}: the set has four of each"
                )
        for i, t in enumerate(hand.flowers):
            seen[t] = seen.get(t, 0) + 1
            if seen[t] > 1:
                raise MalformedInput(
                    f"hands.{seat.name}.flowers[{i}]", f"a second {tile_name(t)}: there is one"
                )
    for i, t in enumerate(visible):
        seen[t] = seen.get(t, 0) + 1
        if seen[t] > 4:
            raise MalformedInput(
                f"visible[{i}]", f"a fifth {tile_name(t)}: the set has four of each"
            )
