"""Adjudication to the letter: Harr's precedence of a pung over a Mah-jongg made with a
sequence (Part F, rules 2 and 4-6), the 1924 small-table laws, and the board times every call
window records.

The windows in ``windows/`` are real bot hands, cut just after the discard that was contested:
``pungchow-seed1-hand24`` is ``mjtable play --ruleset pungchow --seed 1 --hands 25``, hand 24,
up to West's 6C; ``pungchow-seed1-hand43`` is ``--hands 44``, hand 43, up to North's 4B;
``code1924-2p-seed9-hand2`` is ``--ruleset code1924/mixed --players 2 --seed 9 --hands 3``,
hand 2, up to West's 5D. Each is rebuilt from its events and the calls are made again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import events as ev
from engine.commands import Claim, CloseClaims, Deal, DeclareMahjong, Discard, Draw, Expose, Throw
from engine.errors import MalformedInput
from engine.game import apply, can_win, commands_of, new_hand, rebuild
from engine.seats import Seat
from engine.simulate import mirror_of
from engine.state import HandState
from engine.tiles import parse_tile, parse_tiles
from engine.wall import breaker

E, S, W, N = Seat.E, Seat.S, Seat.W, Seat.N
T = parse_tile
WINDOWS = Path(__file__).parent / "windows"


def window(name: str) -> HandState:
    lines = (WINDOWS / f"{name}.jsonl").read_text().splitlines()
    return rebuild([ev.event_from_json(json.loads(line)) for line in lines])


def close(state: HandState, time_us: int | None = None) -> ev.ClaimsClosed:
    _, events = apply(state, CloseClaims(time_us=time_us))
    closed = events[0]
    assert isinstance(closed, ev.ClaimsClosed)
    return closed


# -- Pung-Chow, Part F ----------------------------------------------------------------------


def test_harr_f_rule_4_a_pung_takes_the_discard_from_a_mahjong_made_with_a_sequence() -> None:
    # Hand 24: North goes out on West's 6C only as 4-5-6 of Characters; South holds 6C 6C.
    # "A Pung has precedence over a Chow and if one player can pung the same discard that
    # another player can chow, the former has the right to appropriate the tile" (rule 4).
    state = window("pungchow-seed1-hand24")
    assert state.claimable == (T("6C"), W)
    assert can_win(state, N, T("6C")) and state.seats[S].concealed[T("6C")] == 2
    _, made = apply(state, Claim(seat=N, kind="mahjong"))
    assert made[0].into_sequence is True  # type: ignore[attr-defined]
    apply(state, Claim(seat=S, kind="pung"))
    closed = close(state)
    assert (closed.winner, closed.kind, closed.rule) == (S, "pung", "Pung-Chow, F, rule 4")
    apply(state, Expose(seat=S, tiles=parse_tiles("6C 6C 6C")))
    assert state.seats[S].melds[-1].tiles == tuple(parse_tiles("6C 6C 6C"))


def test_harr_f_rule_4_a_pung_that_completes_the_hand_beats_a_sequence_nearer_in_turn() -> None:
    # Hand 43: East (next after North) needs 4B for 4-5-6 of Bamboo; South pairs it to go out.
    # Rule 6 ("the player ... nearest to the discarder") speaks of two players who *pung* to
    # complete their hands; a sequence is a chow, and rule 4 gives the pung the tile.
    for order in ((E, S), (S, E)):
        state = window("pungchow-seed1-hand43")
        assert state.claimable == (T("4B"), N)
        for seat in order:
            apply(state, Claim(seat=seat, kind="mahjong"))
        closed = close(state)
        assert (closed.winner, closed.rule) == (S, "Pung-Chow, F, rule 4")
        _, events = apply(state, DeclareMahjong(seat=S))
        won = events[0]
        assert isinstance(won, ev.MahjongDeclared) and won.win_tile == T("4B")


def test_harr_f_rule_2_a_lone_pung_that_completes_the_hand() -> None:
    # "a player may at any time 'Pung' a discard which will complete his hand" (rule 2).
    state = window("pungchow-seed1-hand43")
    apply(state, Claim(seat=S, kind="mahjong"))
    closed = close(state)
    assert (closed.winner, closed.rule) == (S, "Pung-Chow, F, rule 2")


def test_harr_f_rule_4_in_a_mirror_the_caller_says_chow_or_pung() -> None:
    # A mirror cannot see North's hand. Told "Chow" it ranks the call as a chow; not told,
    # it takes the call as a pung to go out (rule 2) and checks it when the hand is shown:
    # a sequence that took the tile from a pung is a false Mah-jongg, citing rule 4.
    full = window("pungchow-seed1-hand24")
    said_chow = mirror_of(full)
    apply(said_chow, Claim(seat=N, kind="mahjong", into_sequence=True))
    apply(said_chow, Claim(seat=S, kind="pung"))
    assert close(said_chow).winner == S
    silent = mirror_of(full)
    apply(silent, Claim(seat=N, kind="mahjong"))
    apply(silent, Claim(seat=S, kind="pung"))
    closed = close(silent)
    assert (closed.winner, closed.rule) == (N, "Pung-Chow, F, rule 5")
    shown = full.concealed_tiles(N) + [T("6C")]
    _, events = apply(silent, DeclareMahjong(seat=N, concealed=tuple(sorted(shown))))
    false = events[0]
    assert isinstance(false, ev.FalseMahjong)
    assert false.rule == "Pung-Chow, F, rule 4" and "S's pung" in false.reason


def test_into_sequence_belongs_to_a_mahjong_claim_only() -> None:
    state = window("pungchow-seed1-hand24")
    with pytest.raises(MalformedInput, match="only on a Mah-jongg claim"):
        apply(state, Claim(seat=S, kind="pung", into_sequence=True))


def test_the_reproducer_plays_out_under_rule_4(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from controller import cli

    log = tmp_path / "events.jsonl"
    assert cli.main(["play", "--ruleset", "pungchow", "--seed", "1", "--hands", "25",
                     "--log", str(log)]) == 0
    capsys.readouterr()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    contested = [o for o in lines if o.get("hand") == 24 and o.get("type") == "ClaimsClosed"
                 and o["discard"] == "6C" and o["discarder"] == "W"]
    assert [(o["claims"], o["winner"], o["rule"]) for o in contested] == [
        (["N:mahjong", "S:pung"], "S", "Pung-Chow, F, rule 4")]


# -- the Code of 1924's games for fewer players --------------------------------------------


def test_two_hand_game_a_discard_cannot_be_chowed_even_for_mahjong() -> None:
    # Two-Hand Game: "A discard cannot be chowed." Law 35 (chow any discard for Mah-jongg)
    # gives no exception there: East's 5D fits only in 3-4-5 and 4-5-6 of Dots.
    state = window("code1924-2p-seed9-hand2")
    assert state.claimable == (T("5D"), W)
    assert not can_win(state, E, T("5D"))  # the bots no longer call it
    apply(state, Claim(seat=E, kind="mahjong"))
    assert close(state).winner == E  # the call is heard; the hand shown decides
    _, events = apply(state, DeclareMahjong(seat=E))
    false = events[0]
    assert isinstance(false, ev.FalseMahjong)
    assert false.rule == "Code 1924, Two-Hand Game"
    assert "cannot be chowed" in false.reason


def _small_table(ruleset: str, players: int) -> HandState:
    state, _ = new_hand(ruleset, "mirror", players=players)
    apply(state, Throw(seat=E, dice=(3, 4)))
    apply(state, Throw(seat=breaker(7, state.players), dice=(1, 1)))  # Laws 15-16
    apply(state, Deal())
    return state


@pytest.mark.parametrize(("shown", "valid"), [
    ("1B 2B 3B 4B 5B 6B 7B 8B 9B RD RD 3C 3C 3C", True),   # a pung: Law 49
    ("1B 2B 3B 4B 5B 6B 7B 8B 9B 3C 3C RD RD RD", True),   # the pair: Law 49
    ("1B 2B 3B 4B 5B 6B 7B 8B 9B RD RD 2C 3C 4C", False),  # a sequence: no chow at two
])
def test_two_hand_game_the_discard_may_complete_a_pung_or_the_pair_not_a_sequence(
    shown: str, valid: bool
) -> None:
    state = _small_table("code1924/mixed", 2)
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=W, kind="mahjong"))
    close(state)
    _, events = apply(state, DeclareMahjong(seat=W, concealed=tuple(parse_tiles(shown))))
    assert isinstance(events[0], ev.MahjongDeclared) is valid
    if not valid:
        assert events[0].rule == "Code 1924, Two-Hand Game"  # type: ignore[attr-defined]


def test_classical_two_players_chow_following_the_same_principles() -> None:
    # Classical: "playable with two or three players ... following the same principles":
    # the next player may chow, as at four; the 1924 Two-Hand Game's ban is its own law.
    state = _small_table("classical", 2)
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Claim(seat=W, kind="chow"))
    closed = close(state)
    assert (closed.winner, closed.kind, closed.rule) == (W, "chow",
                                                         "Classical, claiming a tile for a chow")


def test_three_hand_game_the_player_on_the_left_is_the_one_before_in_the_order_of_play() -> None:
    # Three-Hand Game: "the order of the play ... is East, South, North": North chows South's
    # discard (Law 34) though West's chair between them is empty; East chows North's.
    state = _small_table("code1924/mixed", 3)
    apply(state, Discard(seat=E, tile=T("3C")))
    apply(state, Draw(seat=S))
    apply(state, Discard(seat=S, tile=T("4C")))
    apply(state, Claim(seat=N, kind="chow"))
    closed = close(state)
    assert (closed.winner, closed.rule) == (N, "Code 1924, Law 34")


# -- board times ---------------------------------------------------------------------------


def test_every_window_records_its_opening_and_closing_and_each_call_its_time() -> None:
    state = window("pungchow-seed1-hand24")
    # The window on 6C opened with the discard; cut the log there and make it again, timed.
    state = rebuild(state.standing[:-1])
    _, events = apply(state, Discard(seat=W, tile=T("6C"), time_us=9_000_000))
    assert events[0].to_json()["time_us"] == 9_000_000
    apply(state, Claim(seat=S, kind="pung", time_us=9_400_000))
    apply(state, Claim(seat=N, kind="mahjong", time_us=9_650_000))
    closed = close(state, time_us=11_000_000)
    assert (closed.opened_us, closed.closed_us) == (9_000_000, 11_000_000)
    _, laid = apply(state, Expose(seat=S, tiles=parse_tiles("6C 6C 6C"), time_us=12_100_000))
    assert laid[0].to_json()["time_us"] == 12_100_000  # Law 52's proviso: grounded after
    again = rebuild(state.log)
    assert [e.to_json() for e in again.log] == [e.to_json() for e in state.log]
    # The commands recovered from the record carry the times (corrections, `mjtable replay`).
    replayed = [c for _, c in commands_of(state.standing)][-5:]
    assert [c.time_us for c in replayed] == [  # type: ignore[attr-defined]
        9_000_000, 9_400_000, 9_650_000, 11_000_000, 12_100_000]


def test_a_record_written_without_times_keeps_its_exact_form() -> None:
    # Logs written before the times existed decode, and encode back byte for byte.
    lines = (WINDOWS / "pungchow-seed1-hand24.jsonl").read_text().splitlines()
    for line in lines:
        obj = json.loads(line)
        assert ev.event_from_json(obj).to_json() == obj


def test_a_bad_board_time_is_named() -> None:
    state = window("pungchow-seed1-hand24")
    with pytest.raises(MalformedInput) as bad:
        apply(state, CloseClaims(time_us=-1))
    assert bad.value.where == "time_us"


@pytest.mark.parametrize(("ruleset", "players"), [
    ("code1924/mixed", 4), ("code1924/mixed", 2), ("pungchow", 4), ("classical", 3)])
def test_bot_play_logs_the_board_time_of_every_window_and_call(
    ruleset: str, players: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `mjtable play` times its bots on a simulated board clock: a referee reading the log
    # alone sees each window open at its discard (or added kong), each call inside it, and
    # the close after them; the board's time never runs backwards within a hand.
    from controller import cli

    log = tmp_path / "events.jsonl"
    assert cli.main(["play", "--ruleset", ruleset, "--players", str(players), "--seed", "5",
                     "--hands", "6", "--log", str(log)]) == 0
    capsys.readouterr()
    windows = 0
    opened: int | None = None
    calls: list[int] = []
    last = -1
    for line in log.read_text().splitlines():
        o = json.loads(line)
        if "final" in o:
            continue
        if o["type"] in ("Discarded", "KongAdded"):
            opened, calls = o["time_us"], []
        elif o["type"] == "ClaimMade":
            calls.append(o["time_us"])
        elif o["type"] == "ClaimsClosed":
            windows += 1
            assert o["opened_us"] == opened
            assert all(opened <= t <= o["closed_us"] for t in calls)
        t = o.get("closed_us", o.get("time_us"))
        if t is not None:
            assert t >= last
            last = t
    assert windows > 0
    assert cli.main(["replay", str(log)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["mismatches"] == []


def test_american_bot_play_logs_each_call_and_window_on_the_board_clock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # American C-9's timing exception (an exposure made first keeps the tile) is audited by
    # the press times: each call inside its window, the window from the discard to its close.
    from controller import cli

    log = tmp_path / "american.jsonl"
    assert cli.main(["play", "--ruleset", "american", "--seed", "2", "--hands", "1",
                     "--log", str(log)]) == 0
    capsys.readouterr()
    calls: list[int] = []
    windows = timed_calls = 0
    for line in log.read_text().splitlines():
        o = json.loads(line)
        if o.get("kind") == "CallMade":
            calls.append(o["public"]["time_us"])
        elif o.get("kind") == "WindowClosed":
            opened, closed = o["public"]["opened_us"], o["public"]["closed_us"]
            assert all(opened < t < closed for t in calls)
            windows += 1
            timed_calls += len(calls)
            calls = []
    assert windows > 10 and timed_calls > 0
    assert cli.main(["replay", str(log)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["mismatches"] == []
