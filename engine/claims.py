"""Claims on a discard and their adjudication (Code 1924, Laws 34-39, 43, 50-53, 58, 64, 90;
Classical claim priority (a)-(c); Pung-Chow F rules 1-6)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import commands as cm
from engine import events as ev
from engine.checks import (
    check_tile,
    drawn_game,
    ending_if_no_loose,
    need_holds,
    no_replacement,
    refuse,
)
from engine.errors import MalformedInput
from engine.rules import CLAIM_KINDS, ClaimKind, Ruleset
from engine.seats import SEATS, Seat
from engine.state import HandState
from engine.tiles import NUM_KINDS, Tile, tile_name


def can_chow(state: HandState, seat: int, tile: Tile) -> list[tuple[Tile, Tile]]:
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


def may_chow(state: HandState, seat: Seat, discarder: Seat) -> bool:
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
    if may_chow(state, seat, discarder) and can_chow(state, seat, tile):
        kinds.append("chow")
    if c[tile] >= 2:
        kinds.append("pung")
    if c[tile] >= 3:
        kinds.append("kong")
    return kinds


def decide_claim(state: HandState, c: cm.Claim) -> list[ev.Event]:
    seat, kind = c.seat, c.kind
    if kind not in CLAIM_KINDS:
        raise MalformedInput("kind", f"a claim is chow, pung, kong or mahjong, not {kind!r}")
    if c.time_us is not None and (not isinstance(c.time_us, int) or c.time_us < 0):
        raise MalformedInput("time_us", f"a board time in microseconds, not {c.time_us!r}")
    for i, t in enumerate(c.tiles or ()):
        check_tile(t, f"tiles[{i}]")
    if any(e.seat == seat for e in state.claims):
        raise MalformedInput("seat", f"{seat} has already called on this tile")
    if state.phase == "rob":
        assert state.rob is not None
        tile, adder = state.rob
        if kind != "mahjong":
            raise refuse(state, "rob_kong",
                      f"a tile added to a pung may be claimed only for Mah-jongg, not {kind}")
        if seat == adder:
            raise refuse(state, "rob_kong", f"{seat} cannot rob its own kong")
        return [ev.ClaimMade(seat=seat, kind=kind, time_us=c.time_us, tiles=c.tiles)]
    if state.phase == "award" and state.award is not None:
        raise refuse(state, "mahjong_claim" if state.award[1] == "mahjong" else "set_tiles",
                  f"the discard was already awarded to {state.award[0]}")
    if state.claimable is None or state.phase not in ("claims", "play"):
        rules = state.ruleset
        if state.phase == "play" and state.discards_made and not rules.claims_after_next_draw:
            raise refuse(state, "late_claim", "the discard can no longer be claimed: the next "
                      "player has drawn")
        raise refuse(state, "dead_discard", "no discard is live: a discard becomes dead as soon "
                  "as the following discard is made, and may not be claimed")
    tile, discarder = state.claimable
    if seat == discarder:
        raise refuse(state, "turn", f"{seat} cannot claim its own discard")
    if state.late_drawer is not None and seat == state.late_drawer:
        raise refuse(state, "late_claim",
                  f"{seat} drew from the wall instead of claiming {tile_name(tile)}")
    if seat not in state.players:
        raise MalformedInput("seat", f"{seat} has no player in this game")
    if kind == "chow":
        if tile >= 27:
            raise refuse(state, "chow_left",
                         f"{tile_name(tile)} is an Honour: it makes no sequence")
        if len(state.players) == 2:
            raise refuse(state, "two_hand", "a discard cannot be chowed in the two-hand game")
        if state.next_of[discarder] != seat:
            why = (" (a chow that completes the hand may be claimed as Mah-jongg)"
                   if state.ruleset.mahjong_chow_from_anyone else "")
            raise refuse(state, "chow_left",
                      f"{seat} may chow only the discard of the player on its left, "
                      f"not {discarder}'s{why}")
    if kind == "kong":
        grounded = any(m.kind == "pung" and m.tiles[0] == tile for m in state.seats[seat].melds)
        if grounded and not state.ruleset.kong_grounded_pung_from_discard:
            raise refuse(state, "no_kong_on_grounded",
                      f"a grounded triplet cannot be konged from a discard ({tile_name(tile)})")
        if not grounded:
            need_holds(state, seat, tile, 3, "kong", "to kong the discard")
    if kind == "pung":
        need_holds(state, seat, tile, 2, "pung", "to pung the discard")
    if c.tiles is not None and kind != "mahjong":
        check_set(state, seat, kind, (*c.tiles, tile), tile)
        for t in set(c.tiles):
            need_holds(state, seat, t, c.tiles.count(t), "set_tiles", "for the set")
    if kind == "chow" and c.tiles is None and state.mode == "full" \
            and not can_chow(state, seat, tile):
        raise refuse(state, "chow_left",
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


def decide_close(state: HandState, c: cm.CloseClaims) -> list[ev.Event]:
    if state.phase == "rob":
        assert state.rob is not None
        tile, adder = state.rob
        winner, kind, rule = adjudicate(state.ruleset, state.claims, adder, state.players)
        if winner is None:
            rule = state.ruleset.rule("rob_kong")
        closed = ev.ClaimsClosed(discard=tile, discarder=adder,
                                 claims=tuple(f"{e.seat}:{e.kind}" for e in state.claims),
                                 winner=winner, kind=kind, rule=rule)
        if winner is None and no_replacement(state):
            return [closed, drawn_game(state, "no loose tile is left to replace the kong")]
        return [closed]
    if state.claimable is None or state.phase not in ("claims", "play"):
        raise refuse(state, "turn", "no call window is open")
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
        events.append(drawn_game(state, "the last available tile is drawn, its discard untaken"))
    return events


def check_set(state: HandState, seat: int, kind: str, tiles: Sequence[Tile],
               claimed: Tile) -> ClaimKind:
    """The kind of set ``tiles`` make, checked against the claim (Law 58)."""
    for i, t in enumerate(tiles):
        check_tile(t, f"tiles[{i}]")
    ts = sorted(tiles)
    shape: ClaimKind
    if claimed not in ts:
        raise refuse(state, "set_tiles", f"the set must include the claimed {tile_name(claimed)}")
    if len(ts) == 3 and ts[0] < 27 and ts[0] // 9 == ts[2] // 9 and ts[1] == ts[0] + 1 \
            and ts[2] == ts[0] + 2:
        shape = "chow"
    elif len(ts) in (3, 4) and ts[0] == ts[-1] and ts[0] < NUM_KINDS:
        shape = "pung" if len(ts) == 3 else "kong"
    else:
        raise refuse(state, "set_tiles", f"{' '.join(tile_name(t) for t in ts)} is not a set")
    if (shape == "chow") != (kind == "chow"):
        raise refuse(state, "set_tiles", f"a {kind} was claimed, but the tiles make a {shape}")
    return shape


def decide_expose(state: HandState, c: cm.Expose) -> list[ev.Event]:
    if state.phase != "award" or state.award is None:
        raise refuse(state, "set_tiles", "no claim has been awarded")
    winner, kind = state.award
    if c.seat != winner:
        raise refuse(state, "set_tiles", f"the discard was awarded to {winner}, not {c.seat}")
    if kind == "mahjong":
        raise refuse(state, "mahjong_claim", f"{winner} claimed Mah-jongg: show the hand")
    assert state.claimable is not None
    tile, discarder = state.claimable
    shape = check_set(state, c.seat, kind, c.tiles, tile)
    own = sorted(c.tiles)
    own.remove(tile)
    s = state.seats[c.seat]
    grounded = any(m.kind == "pung" and m.tiles[0] == tile and not m.concealed
                   for m in s.melds)
    if shape == "kong" and grounded:
        if not state.ruleset.kong_grounded_pung_from_discard:
            raise refuse(state, "no_kong_on_grounded",
                      f"a grounded triplet cannot be konged from a discard ({tile_name(tile)})")
    else:
        counts: dict[Tile, int] = {}
        for t in own:
            counts[t] = counts.get(t, 0) + 1
        for t, n in counts.items():
            need_holds(state, c.seat, t, n, "set_tiles", "to complete the set")
        if state.mode == "mirror" and s.n < len(own) + 1:
            raise refuse(state, "count", f"{c.seat} holds {s.n} tiles: too few to lay this set "
                      "and discard")
    events: list[ev.Event] = [ev.MeldExposed(seat=c.seat, kind=shape, tiles=tuple(c.tiles),
                                             claimed=tile, discarder=discarder)]
    if shape == "kong":
        events += ending_if_no_loose(state)
    return events


DECIDERS: dict[type[cm.Command], Callable[[HandState, Any], list[ev.Event]]] = {
    cm.Claim: decide_claim,
    cm.CloseClaims: decide_close,
    cm.Expose: decide_expose,
}
