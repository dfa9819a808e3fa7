"""What each close line needs agrees with tiles_away, hand after hand: as many tiles as the
line is away, and adding them (Jokers where a Joker may stand) completes the line."""

from __future__ import annotations

import random

from engine.american.card import CompiledCard
from engine.american.match import make_hand, matches, tiles_away
from engine.american.needs import line_needs
from engine.tiles import FLOWER, JOKER


def test_needs_match_tiles_away_and_complete_the_line(card: CompiledCard) -> None:
    rng = random.Random(29)
    checked = 0
    while checked < 150:
        exp = rng.choice(card.expansions)
        tiles = exp.tiles()
        rng.shuffle(tiles)
        for _ in range(rng.randrange(1, 4)):
            tiles[rng.randrange(len(tiles))] = rng.choice([*range(34), FLOWER, JOKER])
        try:
            hand = make_hand(tiles[:13])
        except ValueError:
            continue
        for line, away in tiles_away(card, hand)[:3]:
            need = line_needs(card, hand, line)
            assert need is not None and need.tiles_away == away
            assert len(need.needs) == away
            assert len(need.spare) == away - 1  # 13 tiles kept or spare, 14 in a hand
            if away != 1:
                continue
            # one tile away: the tile it needs completes the line
            try:
                full = make_hand([t for t, n in hand.concealed for _ in range(n)]
                                 + [JOKER] * hand.jokers + need.needs)
            except ValueError:
                continue  # a fifth natural: the line needs a Joker there
            assert line in {m.line for m in matches(card, full)}
        checked += 1
