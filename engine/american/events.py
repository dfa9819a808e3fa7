"""The events of an American hand: one frozen class per kind, as the other families' are.

Each kind's fields are typed; the table publishes an event as ``{"type": <kind>, "seat": ...,
"public": {...}}`` (docs/mqtt.md) and stores its ``private`` part (tiles face down, the
engine's dead-hand evidence) without ever publishing it. A field says which part it belongs
to: public by default (:func:`shown_if_set` leaves it out while None), :func:`secret` for the
private part, :func:`whole` for a mapping that *is* the public part (a hand's result, the
counts agreed seat by seat).

Every kind has one JSON form, ``american/Event``, the form `play --log` files and replays have
always used::

    {"type": "american/Event", "kind": "Drew", "seat": "S", "public": {"wall": 83},
     "private": {"tile": "3B"}}

>>> from engine.seats import Seat
>>> from engine.tiles import parse_tile
>>> drew = Drew(seat=Seat.S, wall=83, tile=parse_tile("4B"))
>>> drew.kind, drew.public, drew.private
('Drew', {'wall': 83}, {'tile': '4B'})
>>> event_from_json(drew.to_json()) == drew
True
>>> drew.public_json()
{'type': 'american/Event', 'kind': 'Drew', 'seat': 'S', 'public': {'wall': 83}}
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.american.payload import (
    WIRE_TYPE,
    AmericanEvent,
    event_from_json,
    make_event,
    named,
    secret,
    shown_if_set,
    whole,
)
from engine.messages import EVENTS, Json
from engine.seats import Seat
from engine.tiles import Tile

__all__ = ["AmericanEvent", "event_from_json"]

EVENTS.register_decoder(WIRE_TYPE, event_from_json)


# -- the deal -------------------------------------------------------------------------------

@make_event("HandStarted")
@dataclass(frozen=True, slots=True, kw_only=True)
class HandStarted(AmericanEvent):
    """A new hand: the card it is played from, the dice East threw, the tiles left in the
    wall; the wall's order (full mode) is private."""

    ruleset: str = "american"
    mode: str
    players: tuple[Seat, ...]
    card: Json
    dice: int
    wall: int
    wall_tiles: tuple[Tile, ...] = secret(key="wall")


@make_event("Dealt")
@dataclass(frozen=True, slots=True, kw_only=True)
class Dealt(AmericanEvent):
    seat: Seat
    count: int
    tiles: tuple[Tile, ...] = secret()


# -- the Charleston -------------------------------------------------------------------------

@make_event("CharlestonPassOffered")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharlestonPassOffered(AmericanEvent):
    """A seat laid its pass of ``stage`` (CH-2), ``blind`` of them passed on unseen (CH-3)."""

    seat: Seat
    stage: str
    blind: int
    tiles: tuple[Tile, ...] = secret()


@make_event("CharlestonPassed")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharlestonPassed(AmericanEvent):
    """Every seat's pass went ``direction``; ``blind``: seat name to tiles passed blind."""

    direction: str
    blind: Json


@make_event("CharlestonVote")
@dataclass(frozen=True, slots=True, kw_only=True)
class CharlestonVote(AmericanEvent):
    seat: Seat
    stop: bool


@make_event("SecondCharlestonStarted")
@dataclass(frozen=True, slots=True, kw_only=True)
class SecondCharlestonStarted(AmericanEvent):
    """Nobody stopped it (CH-4)."""


@make_event("SecondCharlestonStopped")
@dataclass(frozen=True, slots=True, kw_only=True)
class SecondCharlestonStopped(AmericanEvent):
    seat: Seat
    rule: str


@make_event("CourtesyOffered")
@dataclass(frozen=True, slots=True, kw_only=True)
class CourtesyOffered(AmericanEvent):
    seat: Seat
    count: int


@make_event("CourtesyAgreed")
@dataclass(frozen=True, slots=True, kw_only=True)
class CourtesyAgreed(AmericanEvent):
    """Seat name to the tiles it exchanges with the player opposite (CH-5)."""

    counts: Json = whole()


@make_event("CourtesyPassOffered")
@dataclass(frozen=True, slots=True, kw_only=True)
class CourtesyPassOffered(AmericanEvent):
    seat: Seat
    count: int
    tiles: tuple[Tile, ...] = secret()


@make_event("CourtesyPassed")
@dataclass(frozen=True, slots=True, kw_only=True)
class CourtesyPassed(AmericanEvent):
    counts: Json = whole()


# -- turns ----------------------------------------------------------------------------------

@make_event("Drew")
@dataclass(frozen=True, slots=True, kw_only=True)
class Drew(AmericanEvent):
    """A draw; ``wall`` tiles are left. ``tile`` is private (None in mirror mode)."""

    seat: Seat
    wall: int
    rule: str | None = shown_if_set()
    tile: Tile | None = secret(None)


@make_event("Discarded")
@dataclass(frozen=True, slots=True, kw_only=True)
class Discarded(AmericanEvent):
    """``named``: the name spoken when it was not the tile (MN-1); ``dead``: the rule that
    makes it uncallable (a Joker, J-3)."""

    seat: Seat
    tile: Tile
    named: Tile | None = shown_if_set()
    dead: str | None = shown_if_set()


@make_event("DiscardTakenBack")
@dataclass(frozen=True, slots=True, kw_only=True)
class DiscardTakenBack(AmericanEvent):
    seat: Seat
    tile: Tile
    rule: str


@make_event("NameCorrected")
@dataclass(frozen=True, slots=True, kw_only=True)
class NameCorrected(AmericanEvent):
    seat: Seat
    tile: Tile
    rule: str


# -- calls ----------------------------------------------------------------------------------

@make_event("CallMade")
@dataclass(frozen=True, slots=True, kw_only=True)
class CallMade(AmericanEvent):
    """``call``: "expose" or "mahjong"; ``time_us``: the press on the board's clock (C-9)."""

    seat: Seat
    call: str = named("kind")
    exposed: bool
    time_us: int | None = shown_if_set()


@make_event("CallWithdrawn")
@dataclass(frozen=True, slots=True, kw_only=True)
class CallWithdrawn(AmericanEvent):
    seat: Seat
    rule: str


@make_event("WindowClosed")
@dataclass(frozen=True, slots=True, kw_only=True)
class WindowClosed(AmericanEvent):
    """The call window closed on ``discard`` (C-5); with calls, ``winner`` won it with a call
    of ``call`` by ``rule`` (C-9). ``claims``: "seat:kind" in the order made."""

    discard: Tile
    discarder: Seat | None = shown_if_set()
    claims: tuple[str, ...]
    winner: Seat | None
    call: str | None = shown_if_set(key="kind")
    rule: str
    opened_us: int | None = shown_if_set()
    closed_us: int | None = shown_if_set()


@make_event("CallAwarded")
@dataclass(frozen=True, slots=True, kw_only=True)
class CallAwarded(AmericanEvent):
    """The discard passes to the next caller (C-9, a nearer Mah Jongg found false)."""

    seat: Seat
    rule: str
    call: str = named("kind")


@make_event("Exposed")
@dataclass(frozen=True, slots=True, kw_only=True)
class Exposed(AmericanEvent):
    seat: Seat
    tiles: tuple[Tile, ...]


@make_event("ExposureAdjusted")
@dataclass(frozen=True, slots=True, kw_only=True)
class ExposureAdjusted(AmericanEvent):
    seat: Seat
    tiles: tuple[Tile, ...]
    rule: str


# -- Joker exchange -------------------------------------------------------------------------

@make_event("JokerExchanged")
@dataclass(frozen=True, slots=True, kw_only=True)
class JokerExchanged(AmericanEvent):
    seat: Seat
    owner: Seat
    tile: Tile
    exposure: tuple[Tile, ...]


@make_event("ExchangeCorrected")
@dataclass(frozen=True, slots=True, kw_only=True)
class ExchangeCorrected(AmericanEvent):
    seat: Seat
    owner: Seat
    exposure: tuple[Tile, ...]
    rule: str


# -- Mah Jongg, dead hands and the end ------------------------------------------------------

@make_event("MahJongg")
@dataclass(frozen=True, slots=True, kw_only=True)
class MahJongg(AmericanEvent):
    seat: Seat
    line: str
    points: int
    by: str
    jokerless: bool


@make_event("MahJonggRetracted")
@dataclass(frozen=True, slots=True, kw_only=True)
class MahJonggRetracted(AmericanEvent):
    """M-4: ``now`` "expose" (changed into a call for an exposure) or "play on"."""

    seat: Seat
    rule: str
    now: str


@make_event("FalseMahJongg")
@dataclass(frozen=True, slots=True, kw_only=True)
class FalseMahJongg(AmericanEvent):
    seat: Seat
    why: str
    rule: str
    overruled: bool | None = shown_if_set()


@make_event("ChallengeRuled")
@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeRuled(AmericanEvent):
    """``ruling``: "upheld" on visible evidence (DH-3) or "disputed" (DH-6)."""

    seat: Seat
    target: Seat
    ruling: str
    rule: str


@make_event("DeclaredDead")
@dataclass(frozen=True, slots=True, kw_only=True)
class DeclaredDead(AmericanEvent):
    seat: Seat
    rule: str
    conceded: bool | None = shown_if_set()


@make_event("ThrewIn")
@dataclass(frozen=True, slots=True, kw_only=True)
class ThrewIn(AmericanEvent):
    seat: Seat
    rule: str


@make_event("ShortHandMayDraw")
@dataclass(frozen=True, slots=True, kw_only=True)
class ShortHandMayDraw(AmericanEvent):
    seat: Seat
    rule: str


@make_event("BetPlaced")
@dataclass(frozen=True, slots=True, kw_only=True)
class BetPlaced(AmericanEvent):
    """The Bettor's choice stays secret until the hand ends (B-1)."""

    choice: str = secret()


@make_event("HandEnded")
@dataclass(frozen=True, slots=True, kw_only=True)
class HandEnded(AmericanEvent):
    """``result``: the hand's result as the state holds it (its ``result`` key: "mahjong",
    "wall" or "redeal", with the rule, settlement and payments); ``racks``: the losers'
    concealed tiles after a Mah Jongg, never published (M-1)."""

    result: Json = whole()
    racks: Json = secret(None, omit_none=True)
