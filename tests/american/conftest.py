"""Shared set-ups for the American game tests: a table with chosen hands and wall."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from config.cards import SAMPLE_CARD, load_card
from engine.american.card import CompiledCard
from engine.american.game import AmericanHand, AmericanOptions, new_hand
from engine.seats import Seat, parse_seat
from engine.tiles import parse_tiles

Table = Callable[..., AmericanHand]


@pytest.fixture(scope="session")
def card() -> CompiledCard:
    return load_card(SAMPLE_CARD, use_cache=False)


@pytest.fixture
def table(card: CompiledCard) -> Table:
    """``table(E="...", S="...", wall="...", turn="E", step="discard")``: a hand in play with
    exactly these concealed tiles (full mode), or counts only (``mode="mirror"``)."""

    def make(wall: str = "1B 2B 3B 4B 5B 6B 7B 8B", turn: str = "E", step: str = "discard",
             mode: str = "full", players: int = 4, options: AmericanOptions | None = None,
             **hands: str) -> AmericanHand:
        opts = options or AmericanOptions(players=players)
        state, _ = new_hand(card, opts, mode, random.Random(5))
        for seat in state.players:
            rack = state.rack(seat)
            if mode == "full":
                tiles = parse_tiles(hands.get(seat.name, "")) if seat.name in hands else []
                rack.concealed = tiles
                rack.count = len(tiles)
        state.wall = parse_tiles(wall) if mode == "full" else []
        state.wall_left = len(parse_tiles(wall))
        state.phase = "play"
        state.turn = parse_seat(turn)
        state.step = step
        return state

    return make


def seat(name: str) -> Seat:
    return parse_seat(name)

