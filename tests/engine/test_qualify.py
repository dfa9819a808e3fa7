"""Mah-jongg entry requirements (Code 1924, Laws 45-48)."""

from __future__ import annotations

from engine.qualify import has_a_double, is_cleared, limit_hand
from engine.seats import Seat
from engine.state import Meld
from engine.tiles import parse_tiles

P = parse_tiles


def test_law_47_cleared_hands() -> None:
    assert is_cleared(P("1B 2B 3B 4B 5B 6B 7B 8B 9B 9B 9B RD RD RD"))  # one suit, honours
    assert is_cleared(P("1B 1B 1B 9C 9C 9C 1D 1D 1D EW EW EW NW NW"))  # terminals, honours
    assert is_cleared(P("EW EW EW SW SW SW RD RD RD GD GD GD WD WD"))  # all honours
    assert not is_cleared(P("1B 2B 3B 4C 5C 6C 7B 8B 9B 9B 9B RD RD RD"))


def test_law_46_one_double_from_a_doubling_pung() -> None:
    hand = P("2B 3B 4B 5C 6C 7C 3D 4D 5D RD RD RD 9C 9C")
    assert has_a_double([], hand, Seat.S, Seat.E)
    plain = P("2B 3B 4B 5C 6C 7C 3D 4D 5D 8D 8D 8D 9C 9C")
    assert not has_a_double([], plain, Seat.S, Seat.E)
    # The prevailing wind doubles (Law 89) ...
    winds = P("2B 3B 4B 5C 6C 7C 3D 4D 5D EW EW EW 9C 9C")
    assert has_a_double([], winds, Seat.S, Seat.E)
    # ... and the winning-hand doubles count: a loose tile after a kong (Law 89).
    assert has_a_double([], plain, Seat.S, Seat.E, ["loose_tile"])


def test_law_91_all_sequences_and_a_non_scoring_pair_is_a_double() -> None:
    hand = P("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9C 9C")
    assert has_a_double([], hand, Seat.S, Seat.E)
    scoring_pair = P("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D RD RD")
    assert not has_a_double([], scoring_pair, Seat.S, Seat.E)  # a Dragon pair scores
    exposed = [Meld("chow", tuple(P("2B 3B 4B")))]
    assert has_a_double(exposed, P("5C 6C 7C 3D 4D 5D 6D 7D 8D 9C 9C"), Seat.S, Seat.E)


def test_law_48_limit_hands_qualify_in_any_game() -> None:
    orphans = P("1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD WD")
    assert limit_hand([], orphans) == "Thirteen Orphans"
    scholars = P("RD RD RD GD GD GD WD WD WD 2B 3B 4B 5C 5C")
    assert limit_hand([], scholars) == "Three Great Scholars"
    assert limit_hand([], P("2B 3B 4B 5C 6C 7C 3D 4D 5D 8D 8D 8D 9C 9C")) is None
