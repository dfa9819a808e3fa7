"""`mjtable replay` is one loop over a log's hands; each family rebuilds and checks its own hands
(``RuleFamily.replay_hand``). The same tampering is caught in every family, a hand that cannot
be read names its line and field, and a log's first line says which family checks it."""

from __future__ import annotations

import json
from typing import NoReturn

import pytest

from config.cards import CompiledCard, default_card
from engine import players
from engine.errors import MalformedInput
from engine.family import American, Classical, family_of_log
from engine.record import parse_log

# (ruleset, players): a classical family at a full and a small table, the American game.
TABLES = [("pungchow", 4), ("code1924/mixed", 3), ("american", 4), ("american/3", 3)]


def _no_card() -> NoReturn:
    raise AssertionError("a classical log asked for a card")


def _log(ruleset: str, seats: int, hands: int = 2, seed: int = 5) -> list[str]:
    lines: list[str] = []
    summary = players.play(ruleset, hands, seed, players=seats, names=list("ABCD")[:seats],
                           card=default_card(), write=lines.append)
    assert summary["violations"] == 0, summary.get("problems")
    return lines


def _edited(lines: list[str], index: int, change: dict[str, object]) -> list[str]:
    obj = json.loads(lines[index])
    obj.update(change)
    return [*lines[:index], json.dumps(obj), *lines[index + 1:]]


def _discard_moved(lines: list[str]) -> list[str]:
    """The first discard of the log made with another tile, in either family's form."""
    for i, raw in enumerate(lines):
        obj = json.loads(raw)
        if obj.get("type") == "Discarded":  # the classical event
            return _edited(lines, i, {"tile": "1B" if obj["tile"] != "1B" else "2B"})
        if obj.get("kind") == "Discarded" and obj["public"]["tile"] != "J":
            moved = "1B" if obj["public"]["tile"] != "1B" else "2B"
            return _edited(lines, i, {"public": {**obj["public"], "tile": moved}})
    raise AssertionError("no discard in the log")


@pytest.mark.parametrize(("ruleset", "seats"), TABLES)
def test_each_family_matches_its_own_hands_and_refuses_a_tampered_one(
        ruleset: str, seats: int) -> None:
    lines = _log(ruleset, seats)
    family = family_of_log(lines, default_card)
    hands = parse_log(lines)
    clean = [family.replay_hand(h, f"hand {h.hand}") for h in hands]
    assert [(c.problems, c.unbuilt) for c in clean] == [([], None)] * 2
    assert sum(c.events for c in clean) == players.replay(lines, default_card)["events"] > 100

    first_final = next(i for i, raw in enumerate(lines) if '"final"' in raw)
    shown = json.loads(lines[first_final])["final"]
    view_changed = _edited(lines, first_final, {"final": {**shown, "wall": -1}})
    checked = family.replay_hand(parse_log(view_changed)[0], "hand 0")
    assert "the rebuilt public view differs from the recorded one" in checked.problems
    assert family.replay_hand(parse_log(view_changed)[1], "hand 1").problems == []

    played_otherwise = family.replay_hand(parse_log(_discard_moved(lines))[0], "hand 0")
    assert played_otherwise.problems, "a discard of another tile went unnoticed"
    assert "the rebuilt state's digest differs from the recorded one" in played_otherwise.problems


def test_the_report_counts_each_tampered_hand_once() -> None:
    lines = _discard_moved(_log("american", 4))
    report = players.replay(lines, default_card)
    assert (report["ruleset"], report["hands"], report["matched"]) == ("american", 2, 1)
    assert [m["hand"] for m in report["mismatches"]] == [0]


def test_a_log_names_its_family_on_its_first_line() -> None:
    asked: list[str] = []

    def card() -> CompiledCard:
        asked.append("card")
        return default_card()

    classical = family_of_log(["", *_log("pungchow", 4, hands=1)], _no_card)
    assert isinstance(classical, Classical) and classical.ruleset == "pungchow"
    assert classical.report_head() == {}
    american = family_of_log(_log("american/3", 3, hands=1), card)
    assert isinstance(american, American) and asked == ["card"]
    assert american.report_head() == {"ruleset": "american"}
    # An empty log is nobody's: no hands, and no card asked for.
    empty = players.replay([], _no_card)
    assert list(empty) == ["hands", "events", "matched", "mismatches", "seconds"]
    assert (empty["hands"], empty["matched"], empty["mismatches"]) == (0, 0, [])


@pytest.mark.parametrize(("ruleset", "seats", "where", "message"), [
    ("pungchow", 4, "hand 0 (line 1): events[0]", "a hand's record begins with HandStarted"),
    ("american", 4, "hand 0 (line 1)", "an American hand starts with its HandStarted event"),
])
def test_a_hand_that_cannot_be_read_names_its_line(ruleset: str, seats: int, where: str,
                                                   message: str) -> None:
    lines = _log(ruleset, seats, hands=1)
    # The hand's first event dropped, the rest renumbered: the log reads, the hand does not.
    shifted = [_edited(lines, i, {"seq": i - 1})[i] if '"seq"' in lines[i] else lines[i]
               for i in range(1, len(lines))]
    with pytest.raises(MalformedInput) as caught:
        players.replay(shifted, default_card)
    assert (caught.value.where, caught.value.message) == (where, message)


def test_a_dealt_hand_missing_from_the_american_log_names_the_seats() -> None:
    lines = _log("american/3", 3, hands=1)
    started = json.loads(lines[0])
    public = {**started["public"], "players": ["E", "S", "W", "N"]}
    with pytest.raises(MalformedInput, match="a Dealt event for each of E, S, W, N") as caught:
        players.replay(_edited(lines, 0, {"public": public}), default_card)
    assert caught.value.where == "hand 0 (line 1)"


def test_a_log_the_engine_cannot_rebuild_is_answered_not_crashed_on() -> None:
    """A classical hand naming a ruleset the engine does not know cannot be rebuilt; an
    American hand whose recorded wall is cut short runs out of tiles when replayed. Each is a
    mismatch of its own hand, and the other hands are still checked."""
    lines = _log("code1924/mixed", 4)
    report = players.replay(_edited(lines, 0, {"ruleset": "bogus"}), _no_card)
    assert report["matched"] == 1 and report["mismatches"][0]["hand"] == 0
    assert report["mismatches"][0]["problem"].startswith("cannot rebuild: unknown ruleset 'bogus'")

    lines = _log("american", 4)
    started = json.loads(lines[0])
    short = {**started["private"], "wall": []}
    report = players.replay(_edited(lines, 0, {"private": short}), default_card)
    assert report["matched"] == 1 and report["mismatches"][0]["hand"] == 0
    assert any(p.startswith("the recorded play cannot be applied again: IndexError")
               for p in report["mismatches"][0]["problems"])
