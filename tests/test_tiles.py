"""Tile tokens and sets (contracts.md, "Tile tokens"; 1924 Laws 3-6)."""

import pytest

from engine import tiles as T


def test_every_token_round_trips() -> None:
    for tile in range(T.NUM_TILE_KINDS):
        assert T.parse_tile(T.tile_name(tile)) == tile


def test_tokens_are_case_insensitive_in_and_upper_case_out() -> None:
    assert T.tile_name(T.parse_tile("5c")) == "5C"
    assert T.tile_name(T.parse_tile("ew")) == "EW"
    assert T.tile_name(T.parse_tile("j")) == "J"


def test_unknown_token_names_token_and_place() -> None:
    with pytest.raises(T.TileError, match=r"'0B' at hands\.S\.concealed\[3\]"):
        T.parse_tiles(["1B", "2B", "3B", "0B"], "hands.S.concealed")


@pytest.mark.parametrize(("size", "kinds"), [(136, 34), (144, 42), (152, 36)])
def test_sets_have_the_book_counts(size: int, kinds: int) -> None:
    tiles = T.tile_set(size)
    assert len(tiles) == size
    assert len(set(tiles)) == kinds
    for tile in set(tiles):
        assert tiles.count(tile) == T.copies_in_set(tile, size)


def test_flower_numbers_are_seats() -> None:
    assert T.bonus_seat(T.F1) == 0 and T.bonus_seat(T.S4) == 3
    assert T.rank_of(T.F3) == 3


def test_glyphs_match_unicode_names() -> None:
    import unicodedata

    assert unicodedata.name(T.tile_glyph(T.C5)) == "MAHJONG TILE FIVE OF CHARACTERS"
    assert unicodedata.name(T.tile_glyph(T.B1)) == "MAHJONG TILE ONE OF BAMBOOS"
    assert unicodedata.name(T.tile_glyph(T.D9)) == "MAHJONG TILE NINE OF CIRCLES"
    assert unicodedata.name(T.tile_glyph(T.F3)) == "MAHJONG TILE CHRYSANTHEMUM"
    assert unicodedata.name(T.tile_glyph(T.JOKER)) == "MAHJONG TILE JOKER"
    assert unicodedata.name(T.tile_glyph(T.RD)) == "MAHJONG TILE RED DRAGON"
