"""The cards a family is played from (the registry's ``needs_card``; docs/cards.md), as the
tools outside the engine use them: compile a card's text, listing every problem with its line
and column (`mjtable card lint`), and say which lines of a card a hand completes or nears
(`mjtable card check`). Reading a card file, and the compiled-card cache, are config's
(``config.cards``): the engine does no I/O.

>>> card, problems = compile_card('''card "odds" 2026 v1
... section OD "Odds"
... OD-1 X 25 : 1111a 33b 555c 7b 9999a "any 3 suits"
... ''')
>>> problems, card.name
([], 'odds')
>>> check_hand(card, "1B 1B 1B 1B 3C 3C 5D 5D 5D 7C 9B 9B 9B".split())["closest"]
[{'line': 'OD-1', 'tiles_away': 1, 'needs': ['9B'], 'joker_may_fill': ['9B'], 'spare': []}]
>>> check_hand(card, ["1B", "ZZ"])
Traceback (most recent call last):
...
engine.tiles.TileError: unknown tile 'ZZ' at tile 2
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.american.card import compile_card
from engine.american.compiled import CardError, CompiledCard, Problem
from engine.american.match import HandError, check, parse_exposure, parse_hand
from engine.tiles import TileError, parse_tile

__all__ = ["CardError", "CompiledCard", "HandError", "Problem", "TileError", "check_hand",
           "compile_card"]


def check_hand(card: CompiledCard, tiles: Sequence[str],
               exposed: Sequence[Sequence[str]] = (),
               table: Sequence[Sequence[str]] = ()) -> dict[str, object]:
    """Which lines of ``card`` the hand completes or nears: its concealed ``tiles``, its
    ``exposed`` sets, and the other players' exposures on the ``table`` (their Jokers may be
    exchangeable). Raises :class:`~engine.tiles.TileError` for a token that is no tile and
    :class:`HandError` for a hand that cannot exist, each naming the tile or exposure."""
    hand = parse_hand(tiles, exposed)
    others = [parse_exposure([parse_tile(t, f"table {i + 1}, tile {j + 1}")
                              for j, t in enumerate(e)], f"table {i + 1}")
              for i, e in enumerate(table)]
    return check(card, hand, others)
