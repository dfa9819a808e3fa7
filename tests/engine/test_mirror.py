"""Mirror mode: the engine follows a real table from what it shows, checks the hand shown at
Mah-jongg, and takes a referee's correction without losing the record."""

from __future__ import annotations

import json
import random

import pytest

from engine import events as ev
from engine.commands import (
    Claim,
    CloseClaims,
    Correct,
    Deal,
    DeclareMahjong,
    Discard,
    Draw,
    Expose,
    GroundFlower,
    RecordFault,
    Throw,
    command_from_json,
)
from engine.errors import MalformedInput, RuleViolation
from engine.game import apply, new_hand, public_view, rebuild
from engine.rules import get_ruleset
from engine.seats import Seat
from engine.simulate import default_bots, play_hand
from engine.state import HandState
from engine.tiles import parse_tile, parse_tiles, tile_name

E, S, W, N = Seat.E, Seat.S, Seat.W, Seat.N
T = parse_tile


def mirror(ruleset: str = "code1924/mixed", counts: tuple[int, ...] | None = None) -> HandState:
    state, _ = new_hand(ruleset, "mirror")
    apply(state, Throw(seat=E, dice=(2, 2)))
    apply(state, Throw(seat=N, dice=(5, 6)))
    apply(state, Deal(counts=counts))
    return state


def test_mirror_follows_turns_counts_and_claims_without_seeing_hands() -> None:
    state = mirror()
    assert [s.n for s in state.seats] == [14, 13, 13, 13]
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=W, kind="pung", time_us=1_250_000))
    closed = apply(state, CloseClaims())[1][0]
    assert isinstance(closed, ev.ClaimsClosed) and closed.winner == W
    apply(state, Expose(seat=W, tiles=parse_tiles("3C 3C 3C")))
    assert state.seats[W].n == 11
    apply(state, Discard(seat=W, tile=T("RD")))
    apply(state, CloseClaims())
    with pytest.raises(RuleViolation, match="S drew out of turn: it is N's turn"):
        apply(state, Draw(seat=S))
    apply(state, Draw(seat=N))
    # The fourth 3C may still be shown; a fifth may not.
    apply(state, Discard(seat=N, tile=T("3C")))
    apply(state, CloseClaims())
    apply(state, Draw(seat=E))
    with pytest.raises(RuleViolation, match=r"fifth|cannot show"):
        apply(state, Discard(seat=E, tile=T("3C")))


def test_mirror_checks_the_hand_shown_at_mahjong() -> None:
    state = mirror()
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=N, kind="mahjong"))
    apply(state, CloseClaims())
    with pytest.raises(MalformedInput) as bad:
        apply(state, DeclareMahjong(seat=N))
    assert bad.value.where == "concealed"
    shown = parse_tiles("1C 2C 3C 5D 5D 5D 7B 8B 9B GD GD GD WD WD")
    _, events = apply(state, DeclareMahjong(seat=N, concealed=tuple(shown)))
    assert isinstance(events[0], ev.MahjongDeclared)
    assert state.result == "mahjong" and state.winner == N
    assert public_view(state)["seats"]["N"]["shown"] == [tile_name(t) for t in sorted(shown)]


def test_mirror_incomplete_hand_is_a_false_mahjong_law_86() -> None:
    state = mirror()
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=S, kind="mahjong"))
    apply(state, CloseClaims())
    shown = parse_tiles("1C 2C 3C 5D 5D 5D 7B 8B 9B GD GD RD WD WD")
    _, events = apply(state, DeclareMahjong(seat=S, concealed=tuple(shown)))
    false = events[0]
    assert isinstance(false, ev.FalseMahjong)
    assert false.rule == "Code 1924, Law 86" and false.reason == "the hand is not complete"
    ended = events[1]
    assert isinstance(ended, ev.HandEnded)
    assert ended.result == "false_mahjong" and ended.east_stays  # Law 86: East keeps his seat


def test_law_18_a_long_deal_is_recorded_and_law_76_bars_its_mahjong() -> None:
    state = mirror(counts=(14, 14, 13, 13))
    assert state.seats[S].fault == "long"
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=S, kind="mahjong"))
    apply(state, CloseClaims())
    shown = parse_tiles("1C 2C 3C 5D 5D 5D 7B 8B 9B GD GD GD WD WD 9D")
    _, events = apply(state, DeclareMahjong(seat=S, concealed=tuple(shown)))
    assert isinstance(events[0], ev.FalseMahjong)
    assert events[0].rule == "Code 1924, Law 76"


def test_flowers_are_grounded_and_replaced_before_east_s_first_discard() -> None:
    state = mirror()
    apply(state, GroundFlower(seat=W, tile=T("F3")))
    with pytest.raises(RuleViolation, match="W must first draw its loose tile"):
        apply(state, Discard(seat=E, tile=T("1B")))
    back = state.back
    apply(state, Draw(seat=W))
    assert state.back == back - 1 and state.seats[W].n == 13
    with pytest.raises(RuleViolation, match="already grounded"):
        apply(state, GroundFlower(seat=N, tile=T("F3")))
    with pytest.raises(RuleViolation, match="without flowers"):
        apply(mirror("pungchow"), GroundFlower(seat=W, tile=T("F3")))


def test_a_correction_replaces_an_observation_and_keeps_the_record() -> None:
    state = mirror()
    apply(state, Discard(seat=E, tile=T("3C")))  # the camera misread 3D
    at = len(state.standing) - 1
    apply(state, CloseClaims())
    apply(state, Draw(seat=S))
    apply(state, Discard(seat=S, tile=T("5B")))
    logged = len(state.log)
    _, events = apply(state, Correct(at=at, command=Discard(seat=E, tile=T("3D")),
                                     reason="camera misread"))
    amended = events[0]
    assert isinstance(amended, ev.Amended) and amended.at == at
    assert [tile_name(t) for t in state.seats[E].discards] == ["3D"]
    assert [tile_name(t) for t in state.seats[S].discards] == ["5B"]
    # Nothing of the record is lost: the misread discard is still in the log.
    assert len(state.log) == logged + 1
    assert ev.Discarded(seat=E, tile=T("3C")) in state.log
    assert ev.Discarded(seat=E, tile=T("3C")) not in state.standing
    again = rebuild(state.log)
    assert public_view(again) == public_view(state)
    assert again.standing == state.standing


def test_a_correction_that_makes_later_play_illegal_is_refused_and_changes_nothing() -> None:
    state = mirror()
    apply(state, Discard(seat=E, tile=T("3C")))
    at = len(state.standing) - 1
    apply(state, Claim(seat=S, kind="pung"))
    apply(state, CloseClaims())
    apply(state, Expose(seat=S, tiles=parse_tiles("3C 3C 3C")))
    before = list(state.log)
    with pytest.raises(RuleViolation) as refused:
        apply(state, Correct(at=at, command=Discard(seat=E, tile=T("4C"))))
    assert "correction refused" in str(refused.value)
    assert refused.value.rule == "Code 1924, Law 58"
    assert state.log == before


def test_a_correction_must_name_an_observation() -> None:
    state = mirror()
    with pytest.raises(MalformedInput) as bad:
        apply(state, Correct(at=99, command=None))
    assert bad.value.where == "at"


def test_commands_decode_from_json_naming_the_bad_field() -> None:
    claim = command_from_json({"type": "Claim", "seat": "s", "kind": "pung", "time_us": 5})
    assert claim == Claim(seat=S, kind="pung", time_us=5)
    assert command_from_json(json.loads(json.dumps(claim.to_json()))) == claim
    with pytest.raises(MalformedInput) as bad:
        command_from_json({"type": "Discard", "seat": "E", "tile": "0X"})
    assert bad.value.where == "tile"
    with pytest.raises(MalformedInput) as bad:
        command_from_json({"type": "Discard", "seat": "E"})
    assert bad.value.where == "tile" and "missing" in bad.value.message
    with pytest.raises(MalformedInput) as bad:
        command_from_json({"type": "Shout", "seat": "E"})
    assert bad.value.where == "type"
    with pytest.raises(MalformedInput) as bad:
        command_from_json({"type": "Draw", "seat": "Q"})
    assert bad.value.where == "seat"


def test_the_public_view_never_shows_a_concealed_tile() -> None:
    rng = random.Random(11)
    outcome = play_hand(get_ruleset("classical"), rng, default_bots(rng), cross_check=False)
    state = outcome.state
    for cut in range(5, len(state.standing), 17):
        partial = rebuild(state.standing[:cut])
        if partial.phase == "ended":
            break
        view = json.dumps(public_view(partial))
        shown: dict[str, int] = {}
        if partial.claimable is not None:  # the live discard is shown on its own as well
            shown[tile_name(partial.claimable[0])] = 1
        for s in partial.seats:
            claimed = [m.claimed for m in s.melds if m.claimed is not None]  # named again
            for t in s.discards + s.flowers + [x for m in s.melds for x in m.tiles] + claimed:
                shown[tile_name(t)] = shown.get(tile_name(t), 0) + 1
        for name in {tile_name(t) for t in range(42)}:
            assert view.count(f'"{name}"') <= shown.get(name, 0), (name, cut)
        for e in partial.standing:
            text = json.dumps(e.public_json())
            if isinstance(e, ev.Drew | ev.Dealt):
                assert '"tile' not in text


def test_law_73_75_a_foul_hand_plays_on_but_cannot_go_out() -> None:
    state = mirror()
    apply(state, RecordFault(seat=S, fault="foul", reason="a grounded 4B 5B 7B"))
    assert state.seats[S].fault == "foul"
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=S, kind="mahjong"))
    apply(state, CloseClaims())
    shown = parse_tiles("1C 2C 3C 5D 5D 5D 7B 8B 9B GD GD GD WD WD")
    _, events = apply(state, DeclareMahjong(seat=S, concealed=tuple(shown)))
    assert isinstance(events[0], ev.FalseMahjong)
    assert events[0].rule == "Code 1924, Law 75"
    # The referee's record survives a rebuild and is a command again for a correction.
    assert rebuild(state.log).seats[S].fault == "foul"


def test_an_amendment_publishes_no_concealed_tile() -> None:
    rng = random.Random(2)
    full = play_hand(get_ruleset("code1924/mixed"), rng, default_bots(rng),
                     cross_check=False).state
    draw_at = next(i for i, e in enumerate(full.standing)
                   if isinstance(e, ev.Drew) and not e.loose and e.seat == S)
    state = rebuild(full.standing[: draw_at + 3])
    drawn = state.seats[S].last_drawn
    _, events = apply(state, Correct(at=draw_at, command=Draw(seat=S, tile=drawn),
                                     reason="re-count"))
    public = events[0].public_json()
    assert "tile" not in public["command"]
    assert "tile" in events[0].to_json()["command"]  # the full record keeps it
    for e in public["events"]:
        if e["type"] in ("Drew", "Dealt"):
            assert "tile" not in e and "tiles" not in e


def test_law_18_a_miscounted_deal_is_corrected_before_east_s_first_discard() -> None:
    state = mirror(counts=(14, 14, 13, 13))
    assert state.seats[S].fault == "long"
    at = next(i for i, e in enumerate(state.standing) if isinstance(e, ev.Dealt))
    apply(state, Correct(at=at, command=Deal(counts=(14, 13, 13, 13)),
                         reason="the camera counted a tile twice"))
    assert state.seats[S].fault is None and state.seats[S].n == 13
    assert sum(isinstance(e, ev.FaultRecorded) for e in state.log) == 1  # the record keeps it


def test_the_public_view_says_what_the_table_waits_for() -> None:
    state, _ = new_hand("code1924/mixed", "mirror")
    assert public_view(state)["expect"] == {"do": "throw", "seat": "E"}
    apply(state, Throw(seat=E, dice=(3, 4)))
    assert public_view(state)["expect"] == {"do": "throw", "seat": "W"}
    apply(state, Throw(seat=W, dice=(1, 2)))
    assert public_view(state)["expect"] == {"do": "deal", "seat": None}
    apply(state, Deal())
    assert public_view(state)["expect"] == {"do": "discard", "seat": "E"}
    apply(state, GroundFlower(seat=N, tile=T("S1")))
    assert public_view(state)["expect"] == {"do": "draw_loose", "seat": "N"}
    apply(state, Draw(seat=N))
    apply(state, Discard(seat=E, tile=T("7D")))
    assert public_view(state)["expect"] == {"do": "calls", "seat": None}
    apply(state, Claim(seat=W, kind="pung"))
    apply(state, CloseClaims())
    assert public_view(state)["expect"] == {"do": "expose", "seat": "W"}
    apply(state, Expose(seat=W, tiles=parse_tiles("7D 7D 7D")))
    assert public_view(state)["expect"] == {"do": "discard", "seat": "W"}
    apply(state, Discard(seat=W, tile=T("1B")))
    apply(state, CloseClaims())
    assert public_view(state)["expect"] == {"do": "draw", "seat": "N"}
