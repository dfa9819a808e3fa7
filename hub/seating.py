"""The seating draw: who sits at which table, and at which wind, in each round of an event.

Two aims, as tournament organisers state them:

* **everyone meets as many different opponents as the numbers allow**: the meetings of every
  pair of players are spread as evenly as possible over the event;
* **everyone sits each wind in turn**: within every block of four rounds drawn together a
  player sits each wind at most once (exactly once when they play all four rounds).

Method (our own code after published methods):

* Tables are the *Social Golfer Problem* (schedule g groups of p players for w rounds so that
  pairs meet as rarely as possible; Triska and Musliu, "An effective greedy heuristic for the
  Social Golfer Problem", Annals of Operations Research 194 (2012) 413-425). As they do, each
  round is first built greedily (each table grows by the player who has met its sitters least),
  then improved by local search over swaps of two players between tables. The cost of a whole
  schedule is a convex cost summed over pairs (the Good-Enough Golfers solver squares the
  meetings; we cube them, so a pair meeting three times weighs more than two meeting twice):
  with the number of meetings fixed by the table sizes, it is lowest when meetings are spread
  evenly.
  A seeded simulated annealing over the whole schedule then removes what the round-by-round
  greed left (it finds, for example, the 16 players in 5 rounds where everyone meets all 15).
* Winds are a proper edge colouring of a bipartite graph: players on one side, the tables of a
  block of four rounds on the other, an edge for each seating, four colours for the four winds.
  Every vertex has at most four edges, so König's edge-colouring theorem gives four colours
  with no two edges at a vertex alike: at each table the winds differ, and a player never sits
  the same wind twice in a block. This is the same balancing the AIM mahjong tournament seating
  tables (built on Alice Miller's social-golfer solutions) apply after the draw, done here by
  alternating paths for any roster.

A number of players that cannot fill tables of four is answered with the options: byes (the
fewest-byes players sit out, one round each in turn) or, where the ruleset plays three-handed
(American "Two and three players"; Harr's "Two and three-handed games"), tables of three, whose
empty seat takes no hand.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

WINDS = ("East", "South", "West", "North")
EMPTY_SEAT = ""  # a table of three: the seat without a player takes no hand

Fill = Literal["fours", "byes", "threes"]
FILLS: tuple[Fill, ...] = ("fours", "byes", "threes")
Pair = tuple[str, str]


class SeatingError(ValueError):
    """A draw that cannot be made, with what was wrong and where."""

    def __init__(self, error: str, where: str) -> None:
        self.error = error
        self.where = where
        super().__init__(f"{where}: {error}")


@dataclass(frozen=True)
class TableSeating:
    """One table in one round: the player at each wind ("" for a three-table's empty seat)."""

    table: int
    seats: tuple[tuple[str, str], ...]  # (wind, player) in wind order

    @property
    def players(self) -> list[str]:
        return [p for _, p in self.seats if p != EMPTY_SEAT]

    def to_json(self) -> dict[str, object]:
        return {"table": self.table, "seats": {w: p for w, p in self.seats if p}}


@dataclass(frozen=True)
class RoundSeating:
    number: int  # 1-based
    tables: tuple[TableSeating, ...]
    byes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"round": self.number, "tables": [t.to_json() for t in self.tables],
                "byes": list(self.byes)}


def pair(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def table_sizes(players: int, fill: Fill) -> tuple[list[int], int]:
    """The table sizes of one round and the number of byes, or a SeatingError with the options."""
    if fill not in FILLS:
        raise SeatingError(f"unknown fill {fill!r}: one of {', '.join(FILLS)}", "fill")
    rest = players % 4
    if fill == "fours" or rest == 0:
        if players >= 4 and rest == 0:
            return [4] * (players // 4), 0
        if fill == "fours":
            raise SeatingError(_options(players), "players")
    if fill == "byes":
        if players < 4:
            raise SeatingError(f"{players} players cannot fill one table of four", "players")
        return [4] * (players // 4), rest
    threes = 4 - rest  # 4a + 3b = n with the fewest threes: b = (4 - n mod 4) mod 4
    if players < 3 * threes:
        raise SeatingError(f"{players} players cannot be seated at tables of four and three"
                           f" (they need {3 * threes} for {threes} tables of three); "
                           "use byes", "players")
    return [4] * ((players - 3 * threes) // 4) + [3] * threes, 0


def _options(players: int) -> str:
    if players < 3:
        return f"{players} players cannot fill a table: a table needs four (three where the" \
               " ruleset plays three-handed)"
    rest = players % 4
    threes = 4 - rest
    options = [f"byes ({rest} sit out each round)"] if players >= 4 else []
    if players >= 3 * threes:
        options.append(f"tables of three where the ruleset allows ({threes} of three and "
                       f"{(players - 3 * threes) // 4} of four)")
    return f"{players} players cannot fill tables of four; options: " + "; ".join(options)


# -- tables: the social golfer draw ------------------------------------------------------------

def _meetings(rounds: Sequence[Sequence[Sequence[str]]]) -> dict[Pair, int]:
    met: dict[Pair, int] = {}
    for tables in rounds:
        for table in tables:
            for a, b in combinations(table, 2):
                key = pair(a, b)
                met[key] = met.get(key, 0) + 1
    return met


def _choose_byes(players: Sequence[str], count: int, byes_so_far: Mapping[str, int],
                 rng: random.Random) -> list[str]:
    order = list(players)
    rng.shuffle(order)
    order.sort(key=lambda p: byes_so_far.get(p, 0))
    return order[:count]


def _greedy_round(players: list[str], sizes: list[int], met: Mapping[Pair, int],
                  rng: random.Random) -> list[list[str]]:
    left = list(players)
    rng.shuffle(left)
    tables: list[list[str]] = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size:
            best = min(range(len(left)),
                       key=lambda i: sum(_step(met.get(pair(left[i], q), 0)) for q in table))
            table.append(left.pop(best))
        tables.append(table)
    return tables


def pair_cost(m: int) -> int:
    """What a pair meeting m times costs: convex, so the total is lowest when meetings are
    spread evenly; cubed so that one pair meeting three times weighs more than several
    meeting twice."""
    return m * m * m


def _step(m: int) -> int:
    """The cost of one more meeting of a pair that met m times."""
    return pair_cost(m + 1) - pair_cost(m)


def _swap_delta(tables: list[list[str]], t1: int, i1: int, t2: int, i2: int,
                met: Mapping[Pair, int]) -> int:
    """Change of the cost when two players change tables (``met`` without these tables)."""
    a, b = tables[t1][i1], tables[t2][i2]
    delta = 0
    for q in tables[t1]:
        if q != a:
            delta += _step(met.get(pair(b, q), 0)) - _step(met.get(pair(a, q), 0))
    for q in tables[t2]:
        if q != b:
            delta += _step(met.get(pair(a, q), 0)) - _step(met.get(pair(b, q), 0))
    return delta


def _polish(schedule: list[list[list[str]]], met: dict[Pair, int]) -> None:
    """Descend each round against all the others until no single swap helps anywhere, so the
    draw is a local optimum the tests can check."""
    changed = True
    while changed:
        changed = False
        for tables in schedule:
            before = [list(t) for t in tables]
            for table in tables:
                _add(met, table, -1)
            _descend(tables, met)
            for table in tables:
                _add(met, table, 1)
            changed = changed or tables != before


def _descend(tables: list[list[str]], met: Mapping[Pair, int]) -> None:
    """Swap players between tables while a swap lowers the cost (steepest descent)."""
    while True:
        best = (0, -1, -1, -1, -1)
        for t1, t2 in combinations(range(len(tables)), 2):
            for i1 in range(len(tables[t1])):
                for i2 in range(len(tables[t2])):
                    d = _swap_delta(tables, t1, i1, t2, i2, met)
                    if d < best[0]:
                        best = (d, t1, i1, t2, i2)
        if best[0] >= 0:
            return
        _, t1, i1, t2, i2 = best
        tables[t1][i1], tables[t2][i2] = tables[t2][i2], tables[t1][i1]


def _add(met: dict[Pair, int], table: Sequence[str], step: int) -> None:
    for a, b in combinations(table, 2):
        key = pair(a, b)
        met[key] = met.get(key, 0) + step


def _anneal(schedule: list[list[list[str]]], met: dict[Pair, int], rng: random.Random,
            steps: int, floor: int) -> None:
    """Seeded simulated annealing over swaps in any round; keeps the best schedule seen."""
    movable = [r for r, tables in enumerate(schedule) if len(tables) > 1]
    if not movable or steps <= 0:
        return
    cost = sum(pair_cost(m) for m in met.values())
    best_cost, best = cost, [[list(t) for t in tables] for tables in schedule]
    temperature = 2.0
    for step in range(steps):
        if best_cost <= floor:
            break
        r = rng.choice(movable)
        tables = schedule[r]
        t1, t2 = rng.sample(range(len(tables)), 2)
        i1, i2 = rng.randrange(len(tables[t1])), rng.randrange(len(tables[t2]))
        _add(met, tables[t1], -1)
        _add(met, tables[t2], -1)
        d = _swap_delta(tables, t1, i1, t2, i2, met)
        t = temperature * (1 - step / steps) + 1e-3
        if d <= 0 or rng.random() < math.exp(-d / t):
            tables[t1][i1], tables[t2][i2] = tables[t2][i2], tables[t1][i1]
            cost += d
        _add(met, tables[t1], 1)
        _add(met, tables[t2], 1)
        if cost < best_cost:
            best_cost, best = cost, [[list(t) for t in tbl] for tbl in schedule]
    schedule[:] = best
    met.clear()
    met.update(_meetings(schedule))


def even_cost(players: int, met: Mapping[Pair, int]) -> int:
    """The cost if the meetings were spread perfectly evenly over all pairs of ``players``
    (the floor no schedule can beat)."""
    pairs = players * (players - 1) // 2
    total = sum(met.values())
    if pairs == 0:
        return 0
    q, r = divmod(total, pairs)
    return r * pair_cost(q + 1) + (pairs - r) * pair_cost(q)


# -- winds: a proper edge colouring of each block of four rounds -------------------------------

def _colour_block(block: list[list[list[str]]]) -> list[list[list[str]]]:
    """Give each table of each round in the block its players in wind order (E, S, W, N), so
    that no player sits a wind twice in the block. Bipartite edge colouring by alternating
    paths (König): edge = (player, table); colour = wind index."""
    # colour_at[vertex][colour] = the other end of the edge of that colour at vertex
    colour_at: dict[tuple[str, object], dict[int, tuple[str, object]]] = {}
    edges: list[tuple[tuple[str, object], tuple[str, object]]] = []
    for r, tables in enumerate(block):
        for t, table in enumerate(tables):
            tv = ("t", (r, t))
            for i, player in enumerate(table + [EMPTY_SEAT] * (4 - len(table))):
                pv = ("p", player) if player else ("e", (r, t, i))
                edges.append((pv, tv))
    for u, v in edges:
        cu, cv = colour_at.setdefault(u, {}), colour_at.setdefault(v, {})
        a = next(c for c in range(4) if c not in cu)
        b = next(c for c in range(4) if c not in cv)
        if a not in cv:
            cu[a], cv[a] = v, u
            continue
        # Flip the a/b path from v, then a is free at v (u is never on it: bipartite parity).
        path = [v]
        colour, x = a, v
        while colour in colour_at[x]:
            x = colour_at[x][colour]
            path.append(x)
            colour = b if colour == a else a
        recoloured = []
        for i in range(len(path) - 1):
            x, y = path[i], path[i + 1]
            c = a if i % 2 == 0 else b
            del colour_at[x][c]
            del colour_at[y][c]
            recoloured.append((x, y, b if c == a else a))
        for x, y, c in recoloured:
            colour_at[x][c], colour_at[y][c] = y, x
        cu[a], cv[a] = v, u
    seated: list[list[list[str]]] = []
    for r, tables in enumerate(block):
        seated.append([])
        for t, _table in enumerate(tables):
            by_wind = colour_at[("t", (r, t))]
            seated[r].append([str(by_wind[w][1]) if by_wind[w][0] == "p" else EMPTY_SEAT
                              for w in range(4)])
    return seated


# -- the draw ----------------------------------------------------------------------------------

def draw(players: Sequence[str], rounds: int, fill: Fill = "fours", seed: int = 0,
         history: Sequence[RoundSeating] = (), effort: int = 100_000) -> list[RoundSeating]:
    """Seat ``players`` for ``rounds`` rounds. ``history`` are rounds already played (their
    meetings and byes count; numbering continues after them). Deterministic for a seed."""
    _check(players, rounds)
    sizes, bye_count = table_sizes(len(players), fill)
    rng = random.Random(seed)
    met = _meetings([[t.players for t in r.tables] for r in history])
    byes_so_far: dict[str, int] = {}
    for r in history:
        for p in r.byes:
            byes_so_far[p] = byes_so_far.get(p, 0) + 1
    schedule: list[list[list[str]]] = []
    byes: list[list[str]] = []
    for _ in range(rounds):
        out = _choose_byes(players, bye_count, byes_so_far, rng)
        for p in out:
            byes_so_far[p] = byes_so_far.get(p, 0) + 1
        playing = [p for p in players if p not in out]
        tables = _greedy_round(playing, sizes, met, rng)
        _descend(tables, met)
        for table in tables:
            _add(met, table, 1)
        schedule.append(tables)
        byes.append(sorted(out))
    _anneal(schedule, met, rng, effort, even_cost(len(players), met))
    _polish(schedule, met)
    first = len(history) + 1
    out_rounds: list[RoundSeating] = []
    for start in range(0, rounds, 4):
        block = _colour_block(schedule[start:start + 4])
        for offset, tables in enumerate(block):
            n = start + offset
            out_rounds.append(RoundSeating(
                first + n,
                tuple(TableSeating(i + 1, tuple(zip(WINDS, table, strict=True)))
                      for i, table in enumerate(tables)),
                tuple(byes[n])))
    return out_rounds


def _check(players: Sequence[str], rounds: int) -> None:
    if rounds < 1:
        raise SeatingError(f"{rounds} rounds: an event has at least one round", "rounds")
    seen: set[str] = set()
    for i, p in enumerate(players):
        if not p or not p.strip():
            raise SeatingError("a player without a name", f"players[{i}]")
        if p in seen:
            raise SeatingError(f"{p!r} is listed twice", f"players[{i}]")
        seen.add(p)


def meetings(seatings: Sequence[RoundSeating]) -> dict[Pair, int]:
    """How often each pair of players shared a table."""
    return _meetings([[t.players for t in r.tables] for r in seatings])
