"""The hand as an event-sourced state machine: ``apply(state, command) -> (state, events)``.

Each command has a *decide* function that checks it against the rules and the state and
returns the events it causes, or raises ``RuleViolation`` naming the rule. Only then are the
events folded into the state (``engine.state.evolve``), so nothing half-applies.

What differs between the books is read from the ``Ruleset`` (``engine.rules``), never from the
family's name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engine import commands as cm
from engine import events as ev
from engine.errors import EngineError, MalformedInput, RuleViolation
from engine.hands import arrangements, is_complete
from engine.qualify import has_a_double, is_cleared, limit_hand
from engine.rules import CLAIM_KINDS, ClaimKind, Ruleset, get_ruleset
from engine.seats import SEATS, Seat
from engine.state import HandState, Meld, Mode, evolve
from engine.tiles import NUM_KINDS, Tile, copies_in_set, is_bonus, tile_name, tile_set
from engine.wall import break_point, breaker, build_wall, deal_sizes

__all__ = [
    "HandState",
    "Mode",
    "apply",
    "legal_claim_kinds",
    "new_hand",
    "public_view",
    "rebuild",
    "seat_view",
]


def _no(state: HandState, key: str, message: str) -> RuleViolation:
    return RuleViolation(state.ruleset.rule(key), message)


# -- a new hand ----------------------------------------------------------------------------


def new_hand(
    ruleset: Ruleset | str,
    mode: Mode = "full",
    *,
    rng: random.Random | None = None,
    wall: Sequence[Tile] | None = None,
    prevailing: Seat | None = Seat.E,
    hand: int = 0,
    players: int | Sequence[Seat] = 4,
) -> tuple[HandState, list[ev.Event]]:
    """Start a hand. Full mode needs the wall as built (``wall``) or an ``rng`` to build one;
    mirror mode knows no tile until the table shows it.

    ``players``: 4, or for the 1924 Two- and Three-Hand Games 2 (East and West) or 3 (no
    West player), or the seats in play (East always among them)."""
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if mode not in ("full", "mirror"):
        raise MalformedInput("mode", f"mode is 'full' or 'mirror', not {mode!r}")
    seats = _players(rules, players)
    built: tuple[Tile, ...] | None = None
    if mode == "full":
        if wall is None:
            wall = build_wall(rules, rng or random.Random(0))
        if sorted(wall) != sorted(tile_set(rules.tiles)):
            raise MalformedInput("wall", f"the wall must be the {rules.tiles}-tile set")
        built = tuple(wall)
    state = HandState(rules, mode)
    started = ev.HandStarted(
        ruleset=rules.name,
        mode=mode,
        prevailing=prevailing if rules.prevailing_wind else None,
        number=hand,
        wall=built,
        players=seats,
    )
    _commit(state, [started])
    return state, [started]


_DEFAULT_PLAYERS = {4: SEATS, 3: (Seat.E, Seat.S, Seat.N), 2: (Seat.E, Seat.W)}


def _players(rules: Ruleset, players: int | Sequence[Seat]) -> tuple[Seat, ...]:
    if isinstance(players, int):
        seats = _DEFAULT_PLAYERS.get(players, ())
    else:
        seats = tuple(sorted(set(players)))
    if len(seats) not in rules.player_counts or Seat.E not in seats:
        sizes = " or ".join(str(n) for n in rules.player_counts)
        raise MalformedInput("players", f"{rules.name} is played by {sizes} players, East "
                             f"among them, not {players!r}")
    return seats


def _commit(state: HandState, events: list[ev.Event]) -> None:
    for e in events:
        evolve(state, e)
    state.log.extend(events)


def apply(state: HandState, command: cm.Command) -> tuple[HandState, list[ev.Event]]:
    """Check ``command`` and fold its events into ``state`` (changed in place and returned).

    Raises ``RuleViolation`` (naming its rule) or ``MalformedInput``; then nothing changed.
    """
    decide = _DECIDE.get(type(command))
    if decide is None:
        raise MalformedInput("type", f"the engine does not take {type(command).__name__}")
    if state.phase == "ended" and not isinstance(command, cm.Correct):
        raise RuleViolation(
            state.end_rule or state.ruleset.rule("mahjong"),
            f"the hand is over ({state.result}); no {command.TYPE} is accepted",
        )
    events = decide(state, command)
    if isinstance(command, cm.Correct):
        return state, events  # _correct folded them already
    _commit(state, events)
    return state, events


# -- helpers -------------------------------------------------------------------------------


def _holds(state: HandState, seat: int, tile: Tile, n: int = 1) -> bool:
    """Full mode: the seat holds ``n`` of ``tile``. Mirror: it could (count and copies)."""
    s = state.seats[seat]
    if state.mode == "full":
        return s.concealed[tile] >= n
    return s.n >= n and state.seen[tile] + n <= copies_in_set(tile, state.ruleset.tiles)


def _need_holds(state: HandState, seat: int, tile: Tile, n: int, key: str, what: str) -> None:
    if not _holds(state, seat, tile, n):
        if state.mode == "mirror":
            raise _no(state, "count",
                      f"{Seat(seat)} cannot show {n} x {tile_name(tile)}: "
                      f"{state.seen[tile]} already face up, {state.seats[seat].n} tiles held")
        raise _no(state, key, f"{Seat(seat)} does not hold {n} x {tile_name(tile)} {what}")


def _check_tile(tile: Any, where: str) -> Tile:
    if not isinstance(tile, int) or not 0 <= tile < 44:
        raise MalformedInput(where, f"not a tile: {tile!r}")
    return tile


def _seat_turn(state: HandState, seat: Seat, key: str, doing: str) -> None:
    if seat != state.turn:
        raise _no(state, key, f"{seat} may not {doing}: it is {state.turn}'s turn")


def _no_loose_owed(state: HandState, seat: int, doing: str) -> None:
    if state.seats[seat].owed_loose:
        raise _no(state, "kong", f"{Seat(seat)} must draw a loose tile before it may {doing}")


def _no_replacement(state: HandState) -> bool:
    """Law 88: once the last available tile is drawn, a Flower or a Kong ends the hand (no
    replacement is drawn); before that, only an empty wall does."""
    return state.loose_left() <= 0 or state.last_available_drawn


def _ending_if_no_loose(state: HandState, seat: int, adds: int = 1) -> list[ev.Event]:
    """Law 88: a replacement owed when none may be drawn ends the hand drawn."""
    if not _no_replacement(state):
        return []
    return [_drawn_game(state, "no loose tile is left to replace the kong or flower")]


def _drawn_game(state: HandState, why: str) -> ev.HandEnded:
    # Two-Hand Game: "the positions changing after each game, regardless of which player wins".
    stays = state.ruleset.rotation != "every_hand" and len(state.players) > 2
    return ev.HandEnded(result="drawn", winner=None, rule=state.ruleset.rule("drawn_game"),
                        east_stays=stays)


# -- breaking and dealing ------------------------------------------------------------------


def _throw(state: HandState, c: cm.Throw) -> list[ev.Event]:
    if state.phase != "break":
        raise _no(state, "break_first", "the wall is already broken")
    dice = c.dice
    if len(dice) != 2 or any(not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise MalformedInput("dice", f"two dice of 1 to 6, not {list(dice)}")
    total = dice[0] + dice[1]
    if not state.throws:
        if c.seat != Seat.E:
            raise _no(state, "break_first", f"East throws first, not {c.seat}")
        selected = breaker(total, state.players)
        return [ev.DiceThrown(seat=c.seat, dice=tuple(dice), selects=int(selected))]
    _first_seat, first_total = state.throws[0]
    who = breaker(first_total, state.players)
    if c.seat != who:
        raise _no(state, "break_second",
                  f"East threw {first_total}, which selects {who} to throw next, not {c.seat}")
    wall_of, stack = break_point(first_total, total, state.ruleset.stacks_per_wall,
                                 state.players)
    return [
        ev.DiceThrown(seat=c.seat, dice=tuple(dice), selects=stack),
        ev.WallBroken(wall_of=wall_of, stack=stack, total=first_total + total),
    ]


def _deal(state: HandState, c: cm.Deal) -> list[ev.Event]:
    if state.phase != "deal":
        what = "the wall is not broken yet" if state.phase == "break" else "already dealt"
        raise _no(state, "deal", f"cannot deal: {what}")
    players = state.players
    expected = [0, 0, 0, 0]
    for seat, n in deal_sizes(players):
        expected[seat] += n
    counts = list(expected)
    if c.counts is not None:
        names = " ".join(s.name for s in players)
        if len(c.counts) != len(players) or any(
            not isinstance(n, int) or n < 0 for n in c.counts
        ):
            raise MalformedInput("counts", f"one tile count per player ({names}), "
                                 f"not {list(c.counts)}")
        for seat, n in zip(players, c.counts, strict=True):
            counts[seat] = n
        if state.mode == "full" and counts != expected:
            raise _no(state, "deal", f"the deal gives {[expected[p] for p in players]}, "
                      f"not {list(c.counts)}")
        if sum(counts) > state.remaining:
            raise MalformedInput("counts", f"{sum(counts)} tiles dealt from a wall of "
                                 f"{state.remaining}")
    events: list[ev.Event] = []
    hands: list[list[Tile]] = [[], [], [], []]
    if state.mode == "full":
        assert state.wall is not None
        pos = state.front
        for seat, n in deal_sizes(players):
            hands[seat].extend(state.wall[pos : pos + n])
            pos += n
    for seat in players:
        tiles = tuple(sorted(hands[seat])) if state.mode == "full" else None
        events.append(ev.Dealt(seat=seat, count=counts[seat], tiles=tiles))
    for seat in players:
        if counts[seat] != expected[seat]:
            fault = "long" if counts[seat] > expected[seat] else "short"
            events.append(ev.FaultRecorded(seat=seat, fault=fault,
                                           rule=state.ruleset.rule("long_short")))
    return events


# -- drawing, flowers, discarding ----------------------------------------------------------


def _draw(state: HandState, c: cm.Draw) -> list[ev.Event]:
    seat = c.seat
    s = state.seats[seat]
    if c.tile is not None:
        _check_tile(c.tile, "tile")
    if state.phase in ("break", "deal"):
        raise _no(state, "deal", "no draw before the deal")
    if s.owed_loose:
        if state.phase == "rob":
            raise _no(state, "rob_kong",
                      f"the kong of {tile_name(state.rob[0]) if state.rob else '?'} may be "
                      "robbed: close the claims before the loose tile is drawn")
        if state.loose_left() <= 0:
            raise _no(state, "dead_wall", "no loose tile is left")
        tile = None
        if state.mode == "full":
            assert state.wall is not None
            tile = state.wall[state.back - 1]
            if c.tile is not None and c.tile != tile:
                raise _no(state, "draw_turn",
                          f"the next loose tile is {tile_name(tile)}, not {tile_name(c.tile)}")
        else:
            tile = c.tile
        return [ev.Drew(seat=seat, loose=True, tile=tile)]
    if state.phase not in ("play", "claims"):
        raise _no(state, "draw_turn", f"{seat} may not draw now ({state.phase})")
    owing = [Seat(i) for i, t in enumerate(state.seats) if t.owed_loose]
    if owing:
        raise _no(state, "flowers", f"{owing[0]} must first draw its loose tile")
    if seat != state.turn or not state.need_draw:
        if seat == state.turn:
            raise _no(state, "draw_turn", f"{seat} has already drawn or taken a discard")
        raise _no(state, "draw_turn", f"{seat} drew out of turn: it is {state.turn}'s turn")
    if state.phase == "claims" and state.claims:
        raise _no(state, "late_claim",
                  f"calls on {tile_name(state.claimable[0]) if state.claimable else '?'} are "
                  "pending: close the claims before the next draw")
    if state.live_left() <= 0:
        raise _no(state, "dead_wall", "the last available tile has been drawn")
    tile = None
    if state.mode == "full":
        assert state.wall is not None
        tile = state.wall[state.front]
        if c.tile is not None and c.tile != tile:
            raise _no(state, "draw_turn",
                      f"the next tile in the wall is {tile_name(tile)}, not {tile_name(c.tile)}")
    else:
        tile = c.tile
        if tile is not None and state.seen[tile] >= copies_in_set(tile, state.ruleset.tiles):
            raise _no(state, "count", f"a fifth {tile_name(tile)}: all copies are face up")
    return [ev.Drew(seat=seat, loose=False, tile=tile)]


def _ground_flower(state: HandState, c: cm.GroundFlower) -> list[ev.Event]:
    seat, tile = c.seat, _check_tile(c.tile, "tile")
    if not state.ruleset.flowers:
        raise _no(state, "flowers", "this game is played without flowers")
    if not is_bonus(tile):
        raise _no(state, "flowers", f"{tile_name(tile)} is not a flower or season")
    if state.phase != "play":
        raise _no(state, "flowers", f"a flower is grounded in play, not now ({state.phase})")
    if state.first_discard_done:
        _seat_turn(state, seat, "flowers", "ground a flower")
        if state.need_draw:
            raise _no(state, "flowers", f"{seat} must draw before grounding a flower")
    if state.seen[tile]:
        raise _no(state, "count", f"{tile_name(tile)} is already grounded")
    _need_holds(state, seat, tile, 1, "flowers", "to ground")
    events: list[ev.Event] = [ev.FlowerGrounded(seat=seat, tile=tile)]
    return events + _ending_if_no_loose(state, seat)


def _discard(state: HandState, c: cm.Discard) -> list[ev.Event]:
    seat, tile = c.seat, _check_tile(c.tile, "tile")
    if state.phase not in ("play",):
        raise _no(state, "turn", f"{seat} may not discard now ({state.phase})")
    if not state.first_discard_done and seat != Seat.E:
        raise _no(state, "first_discard", f"East discards first, not {seat}")
    _seat_turn(state, seat, "turn", "discard")
    if state.need_draw:
        raise _no(state, "discard_before_draw", f"{seat} must draw before discarding")
    _no_loose_owed(state, seat, "discard")
    owing = [Seat(i) for i, t in enumerate(state.seats) if t.owed_loose]
    if owing:
        raise _no(state, "flowers", f"{owing[0]} must first draw its loose tile")
    if state.ruleset.flowers and is_bonus(tile):
        raise _no(state, "flower_short", f"a flower cannot be discarded ({tile_name(tile)})")
    _need_holds(state, seat, tile, 1, "turn", "to discard")
    return [ev.Discarded(seat=seat, tile=tile)]



# -- claims --------------------------------------------------------------------------------


def _can_chow(state: HandState, seat: int, tile: Tile) -> list[tuple[Tile, Tile]]:
    """The pairs of held tiles that make a sequence with ``tile`` (full mode)."""
    if tile >= 27:
        return []
    r = tile % 9
    c = state.seats[seat].concealed
    out = []
    for lo in (r - 2, r - 1, r):
        if lo >= 0 and lo + 2 <= 8:
            need = [tile - r + lo + k for k in range(3) if lo + k != r]
            if all(c[t] for t in need):
                out.append((need[0], need[1]))
    return out


def _may_chow(state: HandState, seat: Seat, discarder: Seat) -> bool:
    """Only the next player chows (Law 34); in the Two-Hand Game nobody does."""
    return len(state.players) > 2 and state.next_of[discarder] == seat


def legal_claim_kinds(state: HandState, seat: Seat) -> list[str]:
    """The set-claims a seat could make on the live discard (full mode; no Mah-jongg check)."""
    if state.phase != "claims" or state.claimable is None:
        return []
    tile, discarder = state.claimable
    if seat == discarder:
        return []
    kinds = []
    c = state.seats[seat].concealed
    if _may_chow(state, seat, discarder) and _can_chow(state, seat, tile):
        kinds.append("chow")
    if c[tile] >= 2:
        kinds.append("pung")
    if c[tile] >= 3:
        kinds.append("kong")
    return kinds


def _claim(state: HandState, c: cm.Claim) -> list[ev.Event]:
    seat, kind = c.seat, c.kind
    if kind not in CLAIM_KINDS:
        raise MalformedInput("kind", f"a claim is chow, pung, kong or mahjong, not {kind!r}")
    if c.time_us is not None and (not isinstance(c.time_us, int) or c.time_us < 0):
        raise MalformedInput("time_us", f"a board time in microseconds, not {c.time_us!r}")
    if any(e.seat == seat for e in state.claims):
        raise MalformedInput("seat", f"{seat} has already called on this tile")
    if state.phase == "rob":
        assert state.rob is not None
        tile, adder = state.rob
        if kind != "mahjong":
            raise _no(state, "rob_kong",
                      f"a tile added to a pung may be claimed only for Mah-jongg, not {kind}")
        if seat == adder:
            raise _no(state, "rob_kong", f"{seat} cannot rob its own kong")
        return [ev.ClaimMade(seat=seat, kind=kind, time_us=c.time_us, tiles=c.tiles)]
    if state.phase == "award" and state.award is not None:
        raise _no(state, "mahjong_claim" if state.award[1] == "mahjong" else "set_tiles",
                  f"the discard was already awarded to {state.award[0]}")
    if state.claimable is None or state.phase not in ("claims", "play"):
        rules = state.ruleset
        if state.phase == "play" and state.discards_made and not rules.claims_after_next_draw:
            raise _no(state, "late_claim", "the discard can no longer be claimed: the next "
                      "player has drawn")
        raise _no(state, "dead_discard", "no discard is live: a discard becomes dead as soon "
                  "as the following discard is made, and may not be claimed")
    tile, discarder = state.claimable
    if seat == discarder:
        raise _no(state, "turn", f"{seat} cannot claim its own discard")
    if state.late_drawer is not None and seat == state.late_drawer:
        raise _no(state, "late_claim",
                  f"{seat} drew from the wall instead of claiming {tile_name(tile)}")
    if seat not in state.players:
        raise MalformedInput("seat", f"{seat} has no player in this game")
    if kind == "chow":
        if tile >= 27:
            raise _no(state, "chow_left", f"{tile_name(tile)} is an Honour: it makes no sequence")
        if len(state.players) == 2:
            raise _no(state, "two_hand", "a discard cannot be chowed in the two-hand game")
        if state.next_of[discarder] != seat:
            why = (" (a chow that completes the hand may be claimed as Mah-jongg)"
                   if state.ruleset.mahjong_chow_from_anyone else "")
            raise _no(state, "chow_left",
                      f"{seat} may chow only the discard of the player on its left, "
                      f"not {discarder}'s{why}")
    if kind == "kong":
        grounded = any(m.kind == "pung" and m.tiles[0] == tile for m in state.seats[seat].melds)
        if grounded and not state.ruleset.kong_grounded_pung_from_discard:
            raise _no(state, "no_kong_on_grounded",
                      f"a grounded triplet cannot be konged from a discard ({tile_name(tile)})")
        if not grounded:
            _need_holds(state, seat, tile, 3, "kong", "to kong the discard")
    if kind == "pung":
        _need_holds(state, seat, tile, 2, "pung", "to pung the discard")
    if kind == "chow":
        if c.tiles is not None:
            _check_set(state, seat, "chow", (*c.tiles, tile), tile)
        elif state.mode == "full" and not _can_chow(state, seat, tile):
            raise _no(state, "chow_left",
                      f"{seat} holds no two tiles that make a sequence with {tile_name(tile)}")
    return [ev.ClaimMade(seat=seat, kind=kind, time_us=c.time_us, tiles=c.tiles)]


def adjudicate(
    ruleset: Ruleset,
    claims: Sequence[ev.ClaimMade],
    discarder: Seat,
    players: Sequence[Seat] = SEATS,
) -> tuple[Seat | None, ClaimKind | None, str]:
    """Who takes the discard, as what, and the rule that decided (Laws 50-52; Classical
    (a)-(c); Pung-Chow F rules 4-6). Ties among Mah-jongg calls go to the first in the order
    of play after the discarder; other ties to the earlier call on the board's clock."""
    if not claims:
        return None, None, ruleset.rule("turn")

    def key(item: tuple[int, ev.ClaimMade]) -> tuple[int, int, int]:
        i, cl = item
        rank = ruleset.rank(cl.kind)
        if cl.kind == "mahjong":
            return rank, (players.index(cl.seat) - players.index(discarder)) % n, i
        t = cl.time_us if cl.time_us is not None else 0
        return rank, t, i

    n = len(players)
    ordered = sorted(enumerate(claims), key=key)
    _, best = ordered[0]
    if len(claims) == 1:
        rule_key = {"chow": "chow_left", "pung": "pung", "kong": "kong",
                    "mahjong": "mahjong_claim"}[best.kind]
        if False:
            rule_key = "chow_left"
        return best.seat, best.kind, ruleset.rule(rule_key)
    best_rank = ruleset.rank(best.kind)
    tied = [cl for _, cl in ordered if ruleset.rank(cl.kind) == best_rank]
    if len(tied) > 1:
        rule = ruleset.rule("mahjong_order" if best.kind == "mahjong" else "table_time")
    elif best.kind == "mahjong":
        rule = ruleset.rule("mahjong_over_set")
    else:
        rule = ruleset.rule("pung_over_chow")
    return best.seat, best.kind, rule


def _close(state: HandState, c: cm.CloseClaims) -> list[ev.Event]:
    if state.phase == "rob":
        assert state.rob is not None
        tile, adder = state.rob
        winner, kind, rule = adjudicate(state.ruleset, state.claims, adder, state.players)
        if winner is None:
            rule = state.ruleset.rule("rob_kong")
        closed = ev.ClaimsClosed(discard=tile, discarder=adder,
                                 claims=tuple(f"{e.seat}:{e.kind}" for e in state.claims),
                                 winner=winner, kind=kind, rule=rule)
        if winner is None and _no_replacement(state):
            return [closed, _drawn_game(state, "no loose tile")]
        return [closed]
    if state.claimable is None or state.phase not in ("claims", "play"):
        raise _no(state, "turn", "no call window is open")
    tile, discarder = state.claimable
    winner, kind, rule = adjudicate(state.ruleset, state.claims, discarder, state.players)
    events: list[ev.Event] = [
        ev.ClaimsClosed(discard=tile, discarder=discarder,
                        claims=tuple(f"{e.seat}:{e.kind}" for e in state.claims),
                        winner=winner, kind=kind, rule=rule)
    ]
    if winner is not None and state.late_drawer is not None:
        drawer = state.late_drawer
        events.append(ev.DrawReturned(seat=drawer, tile=state.seats[drawer].last_drawn))
    if winner is None and state.need_draw and state.live_left() <= 0:
        events.append(_drawn_game(state, "the last available tile was drawn"))
    return events


def _check_set(state: HandState, seat: int, kind: str, tiles: Sequence[Tile],
               claimed: Tile) -> ClaimKind:
    """The kind of set ``tiles`` make, checked against the claim (Law 58)."""
    for i, t in enumerate(tiles):
        _check_tile(t, f"tiles[{i}]")
    ts = sorted(tiles)
    shape: ClaimKind
    if claimed not in ts:
        raise _no(state, "set_tiles", f"the set must include the claimed {tile_name(claimed)}")
    if len(ts) == 3 and ts[0] < 27 and ts[0] // 9 == ts[2] // 9 and ts[1] == ts[0] + 1 \
            and ts[2] == ts[0] + 2:
        shape = "chow"
    elif len(ts) in (3, 4) and ts[0] == ts[-1] and ts[0] < NUM_KINDS:
        shape = "pung" if len(ts) == 3 else "kong"
    else:
        raise _no(state, "set_tiles", f"{' '.join(tile_name(t) for t in ts)} is not a set")
    if (shape == "chow") != (kind == "chow"):
        raise _no(state, "set_tiles", f"a {kind} was claimed, but the tiles make a {shape}")
    return shape


def _expose(state: HandState, c: cm.Expose) -> list[ev.Event]:
    if state.phase != "award" or state.award is None:
        raise _no(state, "set_tiles", "no claim has been awarded")
    winner, kind = state.award
    if c.seat != winner:
        raise _no(state, "set_tiles", f"the discard was awarded to {winner}, not {c.seat}")
    if kind == "mahjong":
        raise _no(state, "mahjong_claim", f"{winner} claimed Mah-jongg: show the hand")
    assert state.claimable is not None
    tile, discarder = state.claimable
    shape = _check_set(state, c.seat, kind, c.tiles, tile)
    own = sorted(c.tiles)
    own.remove(tile)
    s = state.seats[c.seat]
    grounded = any(m.kind == "pung" and m.tiles[0] == tile and not m.concealed
                   for m in s.melds)
    if shape == "kong" and grounded:
        if not state.ruleset.kong_grounded_pung_from_discard:
            raise _no(state, "no_kong_on_grounded",
                      f"a grounded triplet cannot be konged from a discard ({tile_name(tile)})")
    else:
        counts: dict[Tile, int] = {}
        for t in own:
            counts[t] = counts.get(t, 0) + 1
        for t, n in counts.items():
            _need_holds(state, c.seat, t, n, "set_tiles", "to complete the set")
        if state.mode == "mirror" and s.n < len(own) + 1:
            raise _no(state, "count", f"{c.seat} holds {s.n} tiles: too few to lay this set "
                      "and discard")
    events: list[ev.Event] = [ev.MeldExposed(seat=c.seat, kind=shape, tiles=tuple(c.tiles),
                                             claimed=tile, discarder=discarder)]
    if shape == "kong":
        events += _ending_if_no_loose(state, c.seat)
    return events


# -- kongs ---------------------------------------------------------------------------------


def _own_turn_after_draw(state: HandState, seat: Seat, key: str, doing: str) -> None:
    if state.phase != "play":
        raise _no(state, key, f"{seat} may not {doing} now ({state.phase})")
    _seat_turn(state, seat, key, doing)
    if state.need_draw:
        raise _no(state, key, f"{seat} must draw before it may {doing}")
    _no_loose_owed(state, seat, doing)


def _declare_kong(state: HandState, c: cm.DeclareKong) -> list[ev.Event]:
    seat, tile = c.seat, _check_tile(c.tile, "tile")
    before_play = not state.first_discard_done
    if before_play and state.phase == "play":
        # Law 24: a Four in the original hand may be grounded in the turn to replace flowers.
        _no_loose_owed(state, seat, "ground a Four")
    else:
        _own_turn_after_draw(state, seat, "concealed_kong", "declare a concealed kong")
        if not state.drew:
            raise _no(state, "concealed_kong",
                      "a concealed Four is grounded only immediately after drawing")
    if tile >= NUM_KINDS:
        raise _no(state, "concealed_kong", f"{tile_name(tile)} makes no set")
    if state.mode == "full":
        _need_holds(state, seat, tile, 4, "concealed_kong", "for a concealed Four")
    elif state.seen[tile] or state.seats[seat].n < 4:
        raise _no(state, "count", f"{seat} cannot hold four {tile_name(tile)}: "
                  f"{state.seen[tile]} face up elsewhere, {state.seats[seat].n} held")
    return [ev.KongDeclared(seat=seat, tile=tile)] + _ending_if_no_loose(state, seat)


def _add_kong(state: HandState, c: cm.AddKong) -> list[ev.Event]:
    seat, tile = c.seat, _check_tile(c.tile, "tile")
    _own_turn_after_draw(state, seat, "add_kong", "add to a grounded pung")
    if not state.drew:
        raise _no(state, "kong_after_draw",
                  "the fourth tile may be added to a grounded triplet only after drawing")
    if not any(m.kind == "pung" and m.tiles[0] == tile for m in state.seats[seat].melds):
        raise _no(state, "add_kong", f"{seat} has no grounded triplet of {tile_name(tile)}")
    _need_holds(state, seat, tile, 1, "add_kong", "to add")
    events: list[ev.Event] = [ev.KongAdded(seat=seat, tile=tile)]
    if not state.ruleset.robbing_kong:
        events += _ending_if_no_loose(state, seat)
    return events


# -- Mah-jongg -----------------------------------------------------------------------------


def _mahjong(state: HandState, c: cm.DeclareMahjong) -> list[ev.Event]:
    seat = c.seat
    s = state.seats[seat]
    rules = state.ruleset
    discarder: Seat | None = None
    context: list[str] = []
    if state.phase == "award" and state.award is not None and state.award[0] == seat:
        if state.award[1] != "mahjong":
            raise _no(state, "set_tiles", f"{seat} claimed a {state.award[1]}: lay the set")
        by = state.award_by
        if by == "robbed_kong":
            assert state.rob is not None
            win_tile, discarder = state.rob
        else:
            assert state.claimable is not None
            win_tile, discarder = state.claimable
            if state.discards_made == 1 and discarder == Seat.E:
                context.append("earth")
            if state.last_available_drawn:
                context.append("last_discard")
        claimed = True
    elif state.phase in ("claims", "rob") or (state.phase == "play" and state.claimable
                                              and seat != state.turn):
        raise _no(state, "mahjong_claim",
                  f"{seat} must call for the tile (a Mah-jongg claim) before showing the hand")
    else:
        _own_turn_after_draw(state, seat, "mahjong", "declare Mah-jongg")
        if state.first_discard_done and not state.drew:
            raise _no(state, "mahjong",
                      f"{seat} took a discard for a set: Mah-jongg needs a draw or a claim")
        by = "loose_tile" if state.drew_loose else "wall"
        claimed = False
        if not state.first_discard_done and seat == Seat.E:
            context.append("heaven")
        elif by == "wall" and state.last_available_drawn:
            context.append("last_tile")
        win_tile = c.tile if c.tile is not None else s.last_drawn  # type: ignore[assignment]
    # The hand shown.
    if state.mode == "full":
        held = state.concealed_tiles(seat) + ([win_tile] if claimed else [])
        if c.concealed is not None and sorted(c.concealed) != sorted(held):
            raise MalformedInput("concealed", f"{seat} does not hold "
                                 f"{' '.join(tile_name(t) for t in sorted(c.concealed))}")
        shown = sorted(held)
    else:
        if c.concealed is None:
            raise MalformedInput("concealed", "the hand must be shown to Mah-jongg (Law 80)")
        shown = sorted(c.concealed)
        for i, t in enumerate(shown):
            _check_tile(t, f"concealed[{i}]")
    if win_tile is None:
        if state.mode == "mirror":
            raise MalformedInput("tile", "the winning tile must be named (stood on end, Law 80)")
        win_tile = shown[-1]
    problem = win_problem(state, seat, shown, win_tile, claimed, discarder, by, context)
    if problem is not None:
        false_rule, reason = problem
        stays = rules.rotation != "every_hand" and seat != Seat.E and len(state.players) > 2
        return [
            ev.FalseMahjong(seat=seat, concealed=tuple(shown), reason=reason, rule=false_rule,
                            tile=win_tile),
            ev.HandEnded(result="false_mahjong", winner=None, rule=rules.rule("false_mahjong"),
                         east_stays=stays),
        ]
    stays = rules.rotation != "every_hand" and seat == Seat.E and len(state.players) > 2
    return [
        ev.MahjongDeclared(seat=seat, concealed=tuple(shown), win_tile=win_tile, by=by,
                           discarder=discarder, context=tuple(context)),
        ev.HandEnded(result="mahjong", winner=seat, rule=rules.rule("mahjong"),
                     east_stays=stays),
    ]


def win_problem(
    state: HandState,
    seat: Seat,
    shown: list[Tile],
    win_tile: Tile,
    claimed: bool,
    discarder: Seat | None,
    by: str,
    context: Sequence[str] = (),
) -> tuple[str, str] | None:
    """Why showing ``shown`` (sorted, the winning tile included) is not a Mah-jongg:
    ``(rule, reason)``, or ``None`` for a valid win. Raises ``RuleViolation`` only for a hand
    the table cannot hold (a fifth copy)."""
    rules = state.ruleset
    s = state.seats[seat]
    expected = s.n + (1 if claimed else 0)
    if s.fault in ("short", "foul"):
        return rules.rule("no_mahjong_short_foul"), f"a {s.fault} hand"
    if s.fault == "long":
        return rules.rule("no_mahjong_long"), "a long hand"
    if len(shown) != expected:
        return rules.rule("long_short"), f"{len(shown)} tiles shown, {expected} held"
    if not all(0 <= t < NUM_KINDS for t in shown) or win_tile not in shown:
        return rules.rule("mahjong"), "the winning tile is not in the hand shown"
    if state.mode == "mirror":
        counts = [0] * 44
        for t in shown:
            counts[t] += 1
        if claimed:
            counts[win_tile] -= 1  # already face up
        for t, n in enumerate(counts):
            if n and state.seen[t] + n > copies_in_set(t, rules.tiles):
                raise _no(state, "count", f"the hand shows a fifth {tile_name(t)}")
    melds = len(s.melds)
    if not is_complete(shown, melds, rules.specials):
        return rules.rule("false_mahjong"), "the hand is not complete"
    if (claimed and by == "discard" and discarder is not None
            and not _may_chow(state, seat, discarder) and not rules.mahjong_chow_from_anyone
            and not _completes_without_chow(shown, melds, win_tile, rules)):
        return (rules.rule("chow_left"),
                "the discard completes only a sequence, and only the next player may chow")
    ctx = [*context, by]
    if rules.qualification == "any":
        return None
    limit = limit_hand(s.melds, shown, ctx)
    if limit is not None:
        return None
    if rules.qualification == "cleared" and not is_cleared(
        shown + [t for m in s.melds for t in m.tiles]
    ):
        return rules.rule("qualify_cleared"), "the hand is not cleared"
    if rules.qualification == "one_double" and not has_a_double(
        s.melds, shown, seat, state.prevailing, ctx
    ):
        return rules.rule("qualify_one_double"), "the hand scores no double"
    return None


def can_win(state: HandState, seat: Seat, tile: Tile | None = None) -> bool:
    """Full mode: would ``seat`` go out validly now, on its own hand (``tile=None``) or on the
    live discard / robbable tile ``tile``? For bots; the engine decides by ``apply``."""
    held = state.concealed_tiles(seat)
    s = state.seats[seat]
    if tile is None:
        if len(held) + 3 * len(s.melds) != 14:
            return False
        win = s.last_drawn if s.last_drawn is not None else held[-1]
        by = "loose_tile" if state.drew_loose else "wall"
        ctx = ["heaven"] if not state.first_discard_done else []
        if state.last_available_drawn and by == "wall":
            ctx.append("last_tile")
        return win_problem(state, seat, held, win, False, None, by, ctx) is None
    shown = sorted([*held, tile])
    if state.phase == "rob" and state.rob is not None:
        return win_problem(state, seat, shown, tile, True, state.rob[1], "robbed_kong") is None
    discarder = state.claimable[1] if state.claimable else None
    ctx = ["last_discard"] if state.last_available_drawn else []
    return win_problem(state, seat, shown, tile, True, discarder, "discard", ctx) is None


def _completes_without_chow(shown: list[Tile], melds: int, tile: Tile, rules: Ruleset) -> bool:
    if melds == 0 and is_complete(shown, 0, rules.specials) and not arrangements(shown, 0):
        return True  # a special hand
    for arr in arrangements(shown, melds):
        if any(g.kind != "chow" and g.tile == tile for g in arr):
            return True
    return False


def _record_fault(state: HandState, c: cm.RecordFault) -> list[ev.Event]:
    if c.fault not in ("long", "short", "foul"):
        raise MalformedInput("fault", f"a fault is long, short or foul, not {c.fault!r}")
    if c.seat not in state.players:
        raise MalformedInput("seat", f"{c.seat} has no player in this game")
    if state.phase in ("break", "deal"):
        raise _no(state, "long_short", "a fault is recorded once the hands are dealt")
    key = "foul" if c.fault == "foul" else "long_short"
    return [ev.FaultRecorded(seat=c.seat, fault=c.fault, rule=state.ruleset.rule(key),
                             reason=c.reason, referee=True)]


# -- corrections ---------------------------------------------------------------------------

def commands_of(standing: Sequence[ev.Event]) -> list[tuple[int, cm.Command]]:
    """The commands behind a standing record, each with the seq of its first event."""
    out: list[tuple[int, cm.Command]] = []
    mirror = bool(standing) and isinstance(standing[0], ev.HandStarted) \
        and standing[0].mode == "mirror"
    for i, e in enumerate(standing):
        command: cm.Command | None = None
        if isinstance(e, ev.DiceThrown):
            command = cm.Throw(seat=e.seat, dice=e.dice)
        elif isinstance(e, ev.Dealt) and e.seat == Seat.E:
            seats = len(standing[0].players) if isinstance(standing[0], ev.HandStarted) else 4
            counts = tuple(d.count for d in standing[i : i + seats] if isinstance(d, ev.Dealt))
            command = cm.Deal(counts=counts if mirror else None)
        elif isinstance(e, ev.Drew):
            command = cm.Draw(seat=e.seat, tile=e.tile)
        elif isinstance(e, ev.FlowerGrounded):
            command = cm.GroundFlower(seat=e.seat, tile=e.tile)
        elif isinstance(e, ev.Discarded):
            command = cm.Discard(seat=e.seat, tile=e.tile)
        elif isinstance(e, ev.ClaimMade):
            command = cm.Claim(seat=e.seat, kind=e.kind, time_us=e.time_us, tiles=e.tiles)
        elif isinstance(e, ev.ClaimsClosed):
            command = cm.CloseClaims()
        elif isinstance(e, ev.MeldExposed):
            command = cm.Expose(seat=e.seat, tiles=e.tiles)
        elif isinstance(e, ev.KongDeclared):
            command = cm.DeclareKong(seat=e.seat, tile=e.tile)
        elif isinstance(e, ev.KongAdded):
            command = cm.AddKong(seat=e.seat, tile=e.tile)
        elif isinstance(e, ev.MahjongDeclared):
            command = cm.DeclareMahjong(seat=e.seat, concealed=e.concealed,
                                        tile=e.win_tile if mirror else None)
        elif isinstance(e, ev.FaultRecorded) and e.referee:
            command = cm.RecordFault(seat=e.seat, fault=e.fault, reason=e.reason)
        elif isinstance(e, ev.FalseMahjong):
            command = cm.DeclareMahjong(seat=e.seat, concealed=e.concealed,
                                        tile=e.tile if mirror else None)
        if command is not None:
            out.append((i, command))
    return out


def _fresh(started: ev.HandStarted) -> HandState:
    state = HandState(get_ruleset(started.ruleset), started.mode)  # type: ignore[arg-type]
    _commit(state, [started])
    return state


def _correct(state: HandState, c: cm.Correct) -> list[ev.Event]:
    if not isinstance(c.at, int) or not 0 < c.at < len(state.standing):
        raise MalformedInput("at", f"no event {c.at} in this hand (0-{len(state.standing) - 1})")
    if isinstance(c.command, cm.Correct):
        raise MalformedInput("command", "a correction cannot replace with a correction")
    cmds = commands_of(state.standing)
    index = next((k for k, (at, _) in enumerate(cmds) if at == c.at), None)
    if index is None:
        raise MalformedInput("at", f"event {c.at} ({state.standing[c.at].TYPE}) follows from an "
                             "earlier command: correct that one")
    started = state.standing[0]
    assert isinstance(started, ev.HandStarted)
    fresh = _fresh(started)
    replay = [cmd for _, cmd in cmds[:index]]
    if c.command is not None:
        replay.append(c.command)
    replay += [cmd for _, cmd in cmds[index + 1 :]]
    for j, cmd in enumerate(replay):
        try:
            apply(fresh, cmd)
        except RuleViolation as exc:
            raise RuleViolation(exc.rule, f"correction refused: with it, {cmd.TYPE} "
                                f"#{j} would be illegal: {exc.message}") from None
        except EngineError as exc:
            raise MalformedInput("command", f"correction refused at {cmd.TYPE} #{j}: {exc}") \
                from None
    amended = ev.Amended(at=c.at, command=c.command, reason=c.reason,
                         events=tuple(fresh.standing[c.at :]))
    log = state.log + [amended]
    state.__dict__.update(fresh.__dict__)
    state.log = log
    return [amended]


# -- rebuilding, views -----------------------------------------------------------------------


def rebuild(events: Sequence[ev.Event]) -> HandState:
    """Fold a hand's record into its state. Trusted: the engine's own events (a log
    written by ``apply``); corrections (``Amended``) are replayed as recorded."""
    if not events or not isinstance(events[0], ev.HandStarted):
        raise MalformedInput("events[0]", "a hand's record begins with HandStarted")
    state = _fresh(events[0])
    for e in events[1:]:
        if isinstance(e, ev.HandStarted):
            raise MalformedInput("events", "a second HandStarted: one hand per rebuild")
        if isinstance(e, ev.Amended):
            log = state.log + [e]
            again = _fresh(events[0])
            for f in list(state.standing[1 : e.at]) + list(e.events):
                evolve(again, f)
            state.__dict__.update(again.__dict__)
            state.log = log
        else:
            evolve(state, e)
            state.log.append(e)
    return state


def _meld_json(m: Meld) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": m.kind, "tiles": [tile_name(t) for t in m.tiles],
                           "exposed": not m.concealed}
    if m.claimed is not None:
        out["claimed"] = tile_name(m.claimed)
        out["from"] = str(m.discarder)
    return out


def public_view(state: HandState) -> dict[str, Any]:
    """What the table shows, JSON-ready: never a concealed tile."""
    seats = {}
    for seat in SEATS:
        s = state.seats[seat]
        entry: dict[str, Any] = {
            "concealed": s.n,
            "melds": [_meld_json(m) for m in s.melds],
            "flowers": [tile_name(t) for t in s.flowers],
            "discards": [tile_name(t) for t in s.discards],
        }
        if s.fault:
            entry["fault"] = s.fault
        seats[seat.name] = entry
    view: dict[str, Any] = {
        "ruleset": state.ruleset.name,
        "mode": state.mode,
        "hand": state.hand,
        "prevailing": None if state.prevailing is None else state.prevailing.name,
        "players": [s.name for s in state.players],
        "phase": state.phase,
        "turn": state.turn.name,
        "wall": state.remaining,
        "live": state.live_left(),
        "seats": seats,
        "discard": None if state.claimable is None else
        {"tile": tile_name(state.claimable[0]), "from": state.claimable[1].name},
        "claims": [f"{e.seat}:{e.kind}" for e in state.claims],
    }
    if state.phase == "ended":
        view["result"] = {"result": state.result,
                          "winner": None if state.winner is None else state.winner.name,
                          "rule": state.end_rule, "east_stays": state.east_stays}
        if state.result == "mahjong" and state.winner is not None:
            view["seats"][state.winner.name]["shown"] = [
                tile_name(t) for t in state.concealed_tiles(state.winner)
            ] if state.mode == "full" else _shown(state)
    return view


def _shown(state: HandState) -> list[str]:
    for e in reversed(state.standing):
        if isinstance(e, ev.MahjongDeclared):
            return [tile_name(t) for t in e.concealed]
    return []


def seat_view(state: HandState, seat: Seat) -> dict[str, Any]:
    """The public view plus the seat's own concealed tiles (full mode)."""
    view = public_view(state)
    view["seat"] = seat.name
    view["own"] = [tile_name(t) for t in state.concealed_tiles(seat)]
    return view


_DECIDE: dict[type[cm.Command], Callable[[HandState, Any], list[ev.Event]]] = {
    cm.Throw: _throw,
    cm.Deal: _deal,
    cm.Draw: _draw,
    cm.GroundFlower: _ground_flower,
    cm.Discard: _discard,
    cm.Claim: _claim,
    cm.CloseClaims: _close,
    cm.Expose: _expose,
    cm.DeclareKong: _declare_kong,
    cm.AddKong: _add_kong,
    cm.DeclareMahjong: _mahjong,
    cm.RecordFault: _record_fault,
    cm.Correct: _correct,
}
