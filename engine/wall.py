"""Building the wall, breaking it with two throws, and the deal.

The wall is a list of tiles *as built*: East's wall first, then South's, West's, North's
(Code 1924, Law 10), each wall as its stacks counted from the builder's right, each stack as
(upper, lower). Breaking (Laws 14-16; Pung-Chow B; Classical): East's throw selects the
breaker, counting East as 1 to the right; the breaker adds his own throw and counts that many
stacks from the right of his wall, carrying on into the wall on his left; the stack there is
lifted to become the loose tiles. Live draws start at the stack to the left of the opening and
go on leftwards; loose tiles come from the other end.

``draw_order`` turns the built wall into a flat list with the first live draw at the front
and the first loose tile at the back, so the state draws with two indexes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.rules import Ruleset
from engine.seats import SEATS, Seat
from engine.tiles import Tile, tile_set


def build_wall(ruleset: Ruleset, rng: random.Random) -> list[Tile]:
    """A shuffled set (simulation only: a real table shuffles by hand)."""
    tiles = tile_set(ruleset.tiles)
    rng.shuffle(tiles)
    return tiles


def throw_dice(rng: random.Random) -> tuple[int, int]:
    return (rng.randint(1, 6), rng.randint(1, 6))


def check_dice(dice: Sequence[int]) -> None:
    if len(dice) != 2 or any(not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise ValueError(f"two dice of 1-6, not {list(dice)}")


def breaker(first_total: int, players: Sequence[Seat] = SEATS) -> Seat:
    """The seat East's throw selects (Law 15: 5 or 9 East, 2, 6, 10 South, ...), counting
    the actual players (Two-Hand Game: odd East, even West; Three-Hand Game)."""
    return players[(first_total - 1) % len(players)]


def second_thrower(first_total: int, players: Sequence[Seat] = SEATS,
                   dummy_walls: bool = False) -> Seat:
    """Who throws second (Law 16). With ``dummy_walls`` (Harr's Two and Three-Handed Games)
    East's throw counts all four sides, and "East Wind acts for the dummy, throwing the dice
    for it"; otherwise it counts the players (the 1924 Three-Hand Game)."""
    if not dummy_walls:
        return breaker(first_total, players)
    seat = breaker(first_total, SEATS)
    return seat if seat in players else Seat.E


def break_point(
    first_total: int, second_total: int, stacks: int, players: Sequence[Seat] = SEATS
) -> tuple[Seat, int]:
    """``(wall_of, stack)``: the wall and the stack (1 = rightmost) lifted to open it (Law 16).
    A count past the end of the breaker's wall carries on into the wall on his left."""
    total = first_total + second_total
    owner = breaker(first_total, players)
    wall_steps, stack = divmod(total - 1, stacks)
    return SEATS[(owner - wall_steps) % 4], stack + 1


def _ring(built: Sequence[Tile], start_wall: Seat, stacks: int) -> list[tuple[Tile, Tile]]:
    """The stacks in draw direction, starting at the right end of ``start_wall``."""
    ring = []
    for i in range(4):
        w = (start_wall - i) % 4
        base = w * stacks * 2
        for k in range(stacks):
            ring.append((built[base + 2 * k], built[base + 2 * k + 1]))
    return ring


def draw_order(built: Sequence[Tile], wall_of: Seat, stack: int, stacks: int) -> list[Tile]:
    """The tiles in draw order: live draws from the front, loose tiles from the back (the
    lifted stack last, so it is the first loose tile)."""
    ring = _ring(built, wall_of, stacks)
    opening = stack - 1  # index of the lifted stack in the ring
    live = ring[opening + 1 :] + ring[:opening]
    order = [t for s in live for t in s]
    order.extend(ring[opening])
    return order


def deal_sizes(players: Sequence[Seat] = SEATS) -> list[tuple[Seat, int]]:
    """The order of the deal (Law 17): four tiles each in turn, three times, then one each,
    then East's fourteenth."""
    steps = [(s, 4) for _ in range(3) for s in players]
    steps += [(s, 1) for s in players]
    steps.append((players[0], 1))
    return steps


def wall_for(
    draws: Sequence[Tile], first_total: int, second_total: int, stacks: int
) -> list[Tile]:
    """The wall *as built* that, broken by these two throws, gives ``draws`` in draw order
    (live draws from the front, loose tiles from the back). For setting up a known hand in
    tests and demonstrations; the inverse of :func:`draw_order`."""
    wall_of, stack = break_point(first_total, second_total, stacks)
    positions = draw_order(list(range(len(draws))), wall_of, stack, stacks)
    built = [0] * len(draws)
    for i, p in enumerate(positions):
        built[p] = draws[i]
    return built


def deal_for(
    hands: Sequence[Sequence[Tile]],
    draws: Sequence[Tile],
    loose: Sequence[Tile],
    tiles: Sequence[Tile],
) -> list[Tile]:
    """A draw order that deals ``hands`` (E, S, W, N; 14, 13, 13, 13 tiles), then gives the
    live ``draws`` in order and the ``loose`` tiles in order; the rest of ``tiles`` (the set)
    fills the middle, its flowers and seasons in the very middle. ``ValueError`` if the set
    does not hold them."""
    pool = list(tiles)

    def take(t: Tile) -> Tile:
        try:
            pool.remove(t)
        except ValueError:
            raise ValueError(f"the set has no more {t}") from None
        return t

    queues = [[take(t) for t in h] for h in hands]
    order: list[Tile] = []
    for seat, n in deal_sizes():
        order.extend(queues[seat][:n])
        del queues[seat][:n]
    if any(queues):
        raise ValueError("hands must hold 14, 13, 13 and 13 tiles")
    order.extend(take(t) for t in draws)
    tail = [take(t) for t in loose]
    # Bonus tiles left over go to the middle, away from the next draws at either end.
    plain = [t for t in pool if not 34 <= t < 42]
    half = len(plain) // 2
    order.extend(plain[:half] + [t for t in pool if 34 <= t < 42] + plain[half:])
    order.extend(reversed(tail))
    return order
