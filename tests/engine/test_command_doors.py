"""The one door the command line plays, replays and scores through, whichever family: a card
is asked for only when the ruleset (or the log) is played from one."""

from __future__ import annotations

from typing import NoReturn

import pytest

from config.cards import CompiledCard, default_card
from engine import players, rulesets
from engine.errors import MalformedInput


def _no_card(*_: object) -> NoReturn:
    raise AssertionError("a classical hand asked for a card")


def test_a_classical_log_is_replayed_without_asking_for_a_card() -> None:
    lines: list[str] = []
    summary = players.play("pungchow", 2, 7, players=4, names=list("ABCD"), write=lines.append)
    assert summary["violations"] == 0 and summary["ruleset"] == "pungchow"
    report = players.replay(lines, card=_no_card)
    assert (report["hands"], report["matched"], report["mismatches"]) == (2, 2, [])


def test_a_log_played_from_a_card_is_replayed_on_the_card_it_asks_for() -> None:
    lines: list[str] = []
    asked: list[str] = []
    summary = players.play("american/3", 1, 4, players=3, names=list("xyz"),
                           card=default_card(), write=lines.append)
    assert summary["ruleset"] == "american/3" and summary["names"] == ["x", "y", "z"]

    def card() -> CompiledCard:
        asked.append("card")
        return default_card()

    report = players.replay(lines, card=card)
    assert asked == ["card"] and report["matched"] == 1 and report["mismatches"] == []


def test_a_tampered_classical_log_is_a_mismatch_and_a_broken_one_names_its_line() -> None:
    lines: list[str] = []
    players.play("code1924/mixed", 1, 3, players=4, names=list("ABCD"), write=lines.append)
    tampered = [*lines[:-1], lines[-1].replace('"digest":"', '"digest":"0')]
    assert players.replay(tampered, card=_no_card)["mismatches"]
    with pytest.raises(MalformedInput) as caught:
        players.replay([lines[0], "{not json"], card=_no_card)
    assert caught.value.where == "line 2"


def test_a_table_size_without_laws_is_refused_naming_the_sizes() -> None:
    with pytest.raises(ValueError, match="american/3 is played by 3 players, not 4"):
        players.play("american/3", 1, 0, players=4, names=list("ABCD"), card=default_card())


def test_the_scorer_is_the_one_the_document_names() -> None:
    drawn = {"ruleset": "american", "players": ["E", "S", "W"]}
    scored = rulesets.score(drawn, card=lambda path: default_card())
    assert scored["mahjong"]["rule"] == "American W-1" and list(scored["net"]) == ["E", "S", "W"]
    # The document names the family exactly; any other spelling is the tables' unknown name.
    for name in ("American", "american/3"):
        with pytest.raises(MalformedInput, match=f"unknown ruleset '{name}'"):
            rulesets.score({"ruleset": name}, card=lambda path: default_card())
    classical = rulesets.score({"ruleset": "classical/bmja", "prevailing_wind": "E"},
                               card=_no_card)
    assert classical["ruleset"] == "classical/bmja"


def test_a_classical_play_loads_nothing_of_the_cards() -> None:
    """`mjtable play --hands 1` is timed from start-up (bench/bench_engine.py)."""
    import subprocess
    import sys

    code = ("import sys, io, contextlib; from controller import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    cli.main(['play', '--ruleset', 'pungchow', '--hands', '0'])\n"
            "print(sorted(m for m in sys.modules if m.startswith(('config.cards', "
            "'engine.american'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
