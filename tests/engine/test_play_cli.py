"""`mjtable play` and `mjtable replay` (contracts.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller import cli
from engine.rules import RULESETS


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = cli.main(args)
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1])


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_play_and_replay_every_ruleset(
    ruleset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "events.jsonl"
    code, summary = run(["play", "--ruleset", ruleset, "--hands", "12", "--seed", "7",
                         "--log", str(log)], capsys)
    assert code == 0
    assert summary["violations"] == 0 and summary["hands"] == 12
    ended = ("wins", "draws", "false_mahjong", "washed")
    assert sum(summary[k] for k in ended) == 12  # type: ignore[misc]
    assert set(summary) >= {"hands", "wins", "draws", "events", "violations", "seconds"}
    lines = log.read_text().splitlines()
    assert sum(1 for line in lines if '"final"' in line) == 12
    assert summary["events"] == len(lines) - 12
    code, replayed = run(["replay", str(log)], capsys)
    assert code == 0
    assert replayed["matched"] == 12 and replayed["mismatches"] == []


def test_the_same_seed_plays_the_same_hands(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run(["play", "--hands", "3", "--seed", "42", "--log", str(a)], capsys)
    run(["play", "--hands", "3", "--seed", "42", "--log", str(b)], capsys)
    assert a.read_text() == b.read_text()


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "events.jsonl"
    run(["play", "--hands", "2", "--seed", "3", "--log", str(path)], capsys)
    return path


def test_replay_finds_a_tampered_event(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = log.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"type":"Discarded"' in line)
    event = json.loads(lines[i])
    event["tile"] = "9D" if event["tile"] != "9D" else "1D"
    lines[i] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n")
    code, out = run(["replay", str(log)], capsys)
    assert code == 1
    assert out["mismatches"] and out["mismatches"][0]["hand"] == 0  # type: ignore[index]


def test_replay_finds_a_tampered_final_state(log: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    lines = log.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"final"' in line)
    final = json.loads(lines[i])
    final["final"]["wall"] += 1
    lines[i] = json.dumps(final)
    log.write_text("\n".join(lines) + "\n")
    code, out = run(["replay", str(log)], capsys)
    assert code == 1
    problems = out["mismatches"][0]["problems"]  # type: ignore[index]
    assert "the rebuilt public view differs from the recorded one" in problems


@pytest.mark.parametrize(
    ("damage", "where"),
    [
        (lambda e: {**e, "tile": "ZZ"}, "tile"),
        (lambda e: {k: v for k, v in e.items() if k != "seat"}, "seat"),
        (lambda e: {**e, "seq": 99}, "seq"),
        (lambda e: {**e, "type": "Teleport"}, "type"),
    ],
)
def test_a_malformed_log_names_the_line_and_field(
    log: Path, capsys: pytest.CaptureFixture[str], damage: object, where: str
) -> None:
    lines = log.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"type":"Discarded"' in line)
    lines[i] = json.dumps(damage(json.loads(lines[i])))  # type: ignore[operator]
    log.write_text("\n".join(lines) + "\n")
    code, out = run(["replay", str(log)], capsys)
    assert code == 2
    assert out["where"] == f"line {i + 1}: {where}"


def test_a_log_that_is_not_json_names_the_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seq": 0, "hand": 0, "type": "HandStarted"\n')
    code, out = run(["replay", str(bad)], capsys)
    assert code == 2 and out["where"] == "line 1"


def test_play_refuses_an_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["play", "--ruleset", "riichi"], capsys)
    assert code == 2 and out["where"] == "--ruleset"
    assert "unknown ruleset 'riichi'" in str(out["error"])


@pytest.mark.parametrize("preset", ["classical/dmjl", "classical/bmja"])
def test_play_takes_a_scoring_preset_and_plays_it_as_its_family(
    preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = run(["play", "--ruleset", preset, "--hands", "2", "--seed", "3"], capsys)
    assert code == 0 and summary["violations"] == 0
    assert (summary["ruleset"], summary["plays"]) == (preset, "classical")
    _, family = run(["play", "--ruleset", "classical", "--hands", "2", "--seed", "3"], capsys)
    assert summary["events"] == family["events"]  # the same hands: the preset only scores


def test_play_american_at_three_plays_the_three_handed_game(
    capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = run(["play", "--ruleset", "american", "--players", "3", "--hands", "1"],
                        capsys)
    assert code == 0 and summary["ruleset"] == "american/3"


def test_play_pung_chow_at_three_plays_harrs_three_handed_game(
    capsys: pytest.CaptureFixture[str]
) -> None:
    # Harr, Two and Three-Handed Games: "Three or even two may play Pung Chow".
    code, summary = run(["play", "--ruleset", "pungchow", "--players", "3", "--hands", "2"],
                        capsys)
    assert code == 0 and summary["players"] == 3 and summary["violations"] == 0


@pytest.mark.parametrize(
    ("ruleset", "players", "message"),
    [
        ("american/3", "4", "american/3 is played by 3 players, not 4"),
        ("american/2", "4", "american/2 is played by 2 players, not 4"),
    ],
)
def test_play_refuses_a_table_size_the_ruleset_has_no_laws_for(
    ruleset: str, players: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(["play", "--ruleset", ruleset, "--players", players], capsys)
    assert (code, out) == (2, {"error": message, "where": "--players"})


def test_the_help_lists_every_ruleset_of_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.rulesets import names

    for command in ("play", "simulate"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        shown = " ".join(capsys.readouterr().out.split())
        assert all(name in shown for name in names()), command


def test_replay_of_a_missing_file_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["replay", "/nonexistent/events.jsonl"], capsys)
    assert code == 2 and out["where"] == "/nonexistent/events.jsonl"


def test_play_imports_nothing_heavy() -> None:
    code = (
        "import sys; from controller.cli import main; main(['play', '--hands', '1']); "
        "heavy = [m for m in ('cv2', 'numpy', 'paho', 'serial', 'pydantic') if m in sys.modules];"
        "print(heavy, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[2])
    assert done.stderr.strip() == "[]"


def test_play_counts_a_broken_engine_as_violations(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The checks of `mjtable play` are real: an engine that forgets to move a discarded tile
    onto the table is caught, and the exit code says so."""
    from engine import events as ev
    from engine import state as st

    original = st._FOLD[ev.Discarded]

    def forgetful(state: st.HandState, e: ev.Event) -> None:
        original(state, e)
        assert isinstance(e, ev.Discarded)
        if state.discards_made == 7:
            state.seats[e.seat].discards.pop()  # the tile vanishes from the table

    monkeypatch.setitem(st._FOLD, ev.Discarded, forgetful)
    code, summary = run(["play", "--hands", "3", "--seed", "1"], capsys)
    assert code == 1
    assert summary["violations"] == 3
    assert "problems" in summary
