"""Claims on a discard and their adjudication (Code 1924, Laws 34-39, 43, 50-53, 58, 64, 90;
Classical claim priority (a)-(c); Pung-Chow F rules 1-6)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import commands as cm
from engine import events as ev
from engine.checks import (
    check_tile,
    check_time,
    drawn_game,
    ending_if_no_loose,
    need_holds,
    no_replacement,
    refuse,
)
from engine.errors import MalformedInput
from engine.hands import arrangements, is_complete
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


def chows_at_table(state: HandState) -> bool:
    """Are there chows at this table? Not in the 1924 Two-Hand Game ("A discard cannot be
    chowed"); Classical plays two "following the same principles" (``two_hand_chow``)."""
    return len(state.players) > 2 or state.ruleset.two_hand_chow


def may_chow(state: HandState, seat: Seat, discarder: Seat) -> bool:
    """Only the next player chows (Law 34), where the table has chows at all."""
    return state.next_of[discarder] == seat and chows_at_table(state)


def may_chow_to_win(state: HandState, seat: Seat, discarder: Seat) -> bool:
    """May ``seat`` take ``discarder``'s tile into a sequence to go out? The next player may;
    under Law 35 and Classical anyone may; but never where the table has no chows (the 1924
    Two-Hand Game's "A discard cannot be chowed" has no exception)."""
    if not chows_at_table(state):
        return False
    return state.ruleset.mahjong_chow_from_anyone or state.next_of[discarder] == seat


def completes_without_chow(shown: list[Tile], melds: int, tile: Tile, rules: Ruleset) -> bool:
    """Does some arrangement of the complete hand ``shown`` hold ``tile`` in a pung, a kong or
    the pair (or is it a special hand)? If not, the tile completes only a sequence."""
    if melds == 0 and is_complete(shown, 0, rules.specials) and not arrangements(shown, 0):
        return True  # a special hand
    for arr in arrangements(shown, melds):
        if any(g.kind != "chow" and g.tile == tile for g in arr):
            return True
    return False


def takes_into_sequence(state: HandState, seat: Seat, tile: Tile) -> bool | None:
    """Full mode: does ``tile`` complete ``seat``'s hand only as a sequence? ``None`` if it
    does not complete the hand at all (a false call, shown as such later)."""
    shown = sorted([*state.concealed_tiles(seat), tile])
    melds = len(state.seats[seat].melds)
    if not is_complete(shown, melds, state.ruleset.specials):
        return None
    return not completes_without_chow(shown, melds, tile, state.ruleset)


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
    check_time(c.time_us)
    if c.into_sequence is not None and (kind != "mahjong" or not isinstance(c.into_sequence,
                                                                           bool)):
        raise MalformedInput("into_sequence", "true or false, and only on a Mah-jongg claim")
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
        if not chows_at_table(state):
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
    into_sequence = c.into_sequence
    # Harr F rule 4: how the tile completes the hand decides its precedence. The engine knows
    # the hand in full mode; a mirror takes the caller's word ("Chow" or "Pung"). Recorded
    # only when true: a pung to go out is the default.
    if (kind == "mahjong" and state.ruleset.sequence_mahjong_is_chow and state.mode == "full"
            and (into_sequence or takes_into_sequence(state, seat, tile))):
        into_sequence = True
    return [ev.ClaimMade(seat=seat, kind=kind, time_us=c.time_us, tiles=c.tiles,
                         into_sequence=into_sequence)]


def adjudicate(
    ruleset: Ruleset,
    claims: Sequence[ev.ClaimMade],
    discarder: Seat,
    players: Sequence[Seat] = SEATS,
) -> tuple[Seat | None, ClaimKind | None, str]:
    """Who takes the discard, as what, and the rule that decided (Laws 50-52; Classical
    (a)-(c); Pung-Chow F rules 2, 4-6). Ties among Mah-jongg calls go to the first in the
    order of play after the discarder; other ties to the earlier call on the board's clock.
    Under Pung-Chow a Mah-jongg that takes the discard into a sequence is a chow (F rule 4:
    "A Pung has precedence over a Chow"); only a pung that completes the hand outranks a
    pung for a set (F rule 5)."""
    if not claims:
        return None, None, ruleset.rule("turn")
    n = len(players)

    def as_chow(cl: ev.ClaimMade) -> bool:
        return cl.kind == "chow" or (cl.kind == "mahjong" and bool(cl.into_sequence)
                                     and ruleset.sequence_mahjong_is_chow)

    def rank(cl: ev.ClaimMade) -> int:
        return ruleset.rank("chow" if as_chow(cl) else cl.kind)

    def key(item: tuple[int, ev.ClaimMade]) -> tuple[int, int, int]:
        i, cl = item
        if cl.kind == "mahjong":
            return rank(cl), (players.index(cl.seat) - players.index(discarder)) % n, i
        t = cl.time_us if cl.time_us is not None else 0
        return rank(cl), t, i

    ordered = [cl for _, cl in sorted(enumerate(claims), key=key)]
    best = ordered[0]
    if len(ordered) == 1:
        rule_key = {"chow": "chow_left", "pung": "pung", "kong": "kong",
                    "mahjong": "chow_mahjong_claim" if as_chow(best) else "mahjong_claim"
                    }[best.kind]
        return best.seat, best.kind, ruleset.rule(rule_key)
    second = ordered[1]
    if rank(second) == rank(best):
        rule = ruleset.rule("mahjong_order" if best.kind == "mahjong" else "table_time")
    elif as_chow(second) and (best.kind != "mahjong" or ruleset.sequence_mahjong_is_chow):
        rule = ruleset.rule("pung_over_chow")  # Law 52; F rule 4 (a pung for Mah-jongg too)
    else:
        rule = ruleset.rule("mahjong_over_set")
    return best.seat, best.kind, rule


def decide_close(state: HandState, c: cm.CloseClaims) -> list[ev.Event]:
    times = {"opened_us": state.window_opened_us, "closed_us": check_time(c.time_us)}
    if state.phase == "rob":
        assert state.rob is not None
        tile, adder = state.rob
        winner, kind, rule = adjudicate(state.ruleset, state.claims, adder, state.players)
        if winner is None:
            rule = state.ruleset.rule("rob_kong")
        closed = ev.ClaimsClosed(discard=tile, discarder=adder,
                                 claims=tuple(f"{e.seat}:{e.kind}" for e in state.claims),
                                 winner=winner, kind=kind, rule=rule, **times)
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
                        winner=winner, kind=kind, rule=rule, **times)
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
                                             claimed=tile, discarder=discarder,
                                             time_us=check_time(c.time_us))]
    if shape == "kong":
        events += ending_if_no_loose(state)
    return events


DECIDERS: dict[type[cm.Command], Callable[[HandState, Any], list[ev.Event]]] = {
    cm.Claim: decide_claim,
    cm.CloseClaims: decide_close,
    cm.Expose: decide_expose,
}
