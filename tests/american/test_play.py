"""Whole simulated American hands: Charleston, calls, exposures and Joker exchanges with no
broken invariant (`mjtable play --ruleset american` must report violations: 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.american.card import CompiledCard
from engine.american.family import options_for, play


def test_bots_play_whole_hands_without_violations(card: CompiledCard, tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    with log.open("w") as fh:
        summary = play("american", 6, seed=11, card=card, write=lambda line: print(line, file=fh))
    assert summary["violations"] == 0, summary.get("problems")
    assert summary["hands"] == 6 and summary["wins"] + summary["draws"] == 6
    american = summary["american"]
    assert american["charleston_passes"] > 0 and american["calls"] > 0
    assert american["exposures"] > 0 and american["joker_exchanges"] > 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = {line.get("kind") for line in lines}
    assert {"CharlestonPassed", "Exposed", "JokerExchanged", "HandEnded"} <= kinds
    assert summary["events"] == sum(1 for line in lines if "kind" in line)
    assert sum(1 for line in lines if "final" in line) == 6


@pytest.mark.parametrize("ruleset", ["american/3", "american/2"])
def test_two_and_three_handed_games_play_through(card: CompiledCard, ruleset: str) -> None:
    summary = play(ruleset, 3, seed=4, card=card)
    assert summary["violations"] == 0 and summary["american"]["charleston_passes"] == 0


def test_unknown_american_ruleset() -> None:
    with pytest.raises(ValueError, match="american/5"):
        options_for("american/5")


@pytest.mark.slow
def test_many_hands_soak(card: CompiledCard) -> None:
    assert play("american", 200, seed=99, card=card)["violations"] == 0


def test_the_checks_catch_a_corrupted_hand(card: CompiledCard) -> None:
    # The invariants and the mirror cross-check are what make "violations: 0" mean something.
    import random

    from engine.american.bots import PlayStats, mirror_disagreement, play_hand
    from engine.american.game import AmericanOptions, check_invariants, new_hand

    state, _ = new_hand(card, AmericanOptions(), "full", random.Random(1))
    state.rack(state.players[1]).concealed.append(state.wall[0])  # a tile in two places
    state.rack(state.players[1]).count += 1
    assert any("152-tile set" in p for p in check_invariants(state))
    assert any("holds 14" in p for p in check_invariants(state))
    stats = PlayStats()
    played = play_hand(card, random.Random(8), AmericanOptions(), stats)
    assert played.result is not None and stats.violations == 0
    tampered = dict(played.result, net={"E": 1})
    assert mirror_disagreement(card, AmericanOptions(), [], tampered) != ""


def test_a_false_mahjong_on_the_last_tile_ends_the_hand(card: CompiledCard) -> None:
    """Seed 901473, three-handed: West calls East's discard of the wall's last tile for Mah
    Jongg in error. West is dead (M-4, DH-2 (l)); play would go on, but nobody has a tile to
    draw, so the hand is a wall game (W-1) instead of waiting for a draw forever."""
    summary = play("american/3", 1, seed=901473, card=card)
    assert summary["false_mahjong"] == 1 and summary["draws"] == 1
    assert summary["violations"] == 0, summary.get("problems")


@settings(max_examples=6, deadline=None)
@given(st.integers(min_value=0, max_value=2**31), st.sampled_from(["american", "american/3"]))
@example(901473, "american/3")  # a false Mah Jongg on the last tile (M-4, W-1)
def test_any_seed_plays_without_violations(seed: int, ruleset: str) -> None:
    from config.cards import SAMPLE_CARD, load_card

    summary = play(ruleset, 1, seed=seed, card=load_card(SAMPLE_CARD))
    assert summary["violations"] == 0, summary.get("problems")


def test_replay_rebuilds_a_logged_game_and_catches_tampering(card: CompiledCard,
                                                              tmp_path: Path) -> None:
    from engine.american.family import replay

    log = tmp_path / "events.jsonl"
    with log.open("w") as fh:
        play("american", 2, seed=21, card=card, write=lambda line: print(line, file=fh))
    lines = log.read_text().splitlines()
    clean = replay(lines, card)
    assert clean["matched"] == 2 and clean["mismatches"] == [] and clean["events"] > 100
    # Change one recorded discard: the re-applied command no longer gives the logged events.
    for i, raw in enumerate(lines):
        obj = json.loads(raw)
        if obj.get("kind") == "Discarded" and obj["public"]["tile"] != "J":
            obj["public"]["tile"] = "1B" if obj["public"]["tile"] != "1B" else "2B"
            lines[i] = json.dumps(obj)
            break
    assert replay(lines, card)["matched"] == 1


def test_mjtable_play_and_replay_american(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Must show: `mjtable play --ruleset american` runs whole hands with violations 0, and
    `mjtable replay` rebuilds them from the log."""
    from controller import cli

    log = tmp_path / "events.jsonl"
    code = cli.main(["play", "--ruleset", "american", "--hands", "2", "--seed", "5",
                     "--log", str(log)])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["violations"] == 0 and summary["hands"] == 2
    assert summary["american"]["charleston_passes"] > 0
    assert cli.main(["replay", str(log)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched"] == 2 and report["mismatches"] == []
    assert cli.main(["play", "--ruleset", "american/5"]) == 2
    assert "american/5" in json.loads(capsys.readouterr().out)["error"]
