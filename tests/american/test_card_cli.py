"""`mjtable card check` and `mjtable card lint` against contracts.md."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller import cli

QN1 = ["4B", "4B", "4B", "J", "J", "GD", "GD", "5D", "5D", "5D", "J", "WD", "WD", "F"]
USER_HAND = ["F", "F", "7D", "7D", "7D", "7D", "8D", "8D", "8D"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    code = cli.main(["card", *argv])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines() if line.strip()]


def test_check_prints_the_contract_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, [answer] = run(capsys, "check", *QN1)
    assert code == 0
    assert answer["complete"] is True
    assert answer["matches"] == [{"line": "QN-1", "points": 40, "concealed": False,
                                  "jokerless": False}]
    closest = answer["closest"]
    assert isinstance(closest, list) and closest[0] == {"line": "QN-1", "tiles_away": 0}
    aways = [c["tiles_away"] for c in closest]
    assert aways == sorted(aways)


def test_check_with_exposures_and_13_tiles(capsys: pytest.CaptureFixture[str]) -> None:
    code, [answer] = run(capsys, "check", "4b", "4b", "4b", "j", "gd", "gd", "wd", "wd", "f",
                         "--exposed", "5D 5D 5D J")
    assert code == 0 and answer["complete"] is False and answer["matches"] == []
    # one more 4B (or a Joker: the quint takes Jokers) makes the 4B quint of QN-1
    assert {"line": "QN-1", "tiles_away": 1, "needs": ["4B"], "joker_may_fill": ["4B"],
            "spare": []} in answer["closest"]  # type: ignore[operator]
    assert answer["jokers_exchangeable"] == []


@pytest.mark.parametrize(("argv", "where"), [
    (["4B"] * 5 + QN1[5:], "4B"),
    (QN1[:-1] + ["XX"], "tile 14"),
    (QN1[:5], "tiles"),
    (QN1[:11] + ["--exposed", "1B 2B 3B"], "exposure 1"),
])
def test_bad_hands_exit_2_naming_the_tile(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          where: str) -> None:
    code, [answer] = run(capsys, "check", *argv)
    assert code == 2 and answer["where"] == where and answer["error"]


def test_check_with_a_user_card(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    card = tmp_path / "club.card"
    card.write_text('card "Club" 2026\nCL-1 X 35 : FF XXXX0a XXXX1a XXXX2a "any 3 consecutive"\n'
                    'CL-2 C 60 : NN EE WW SS 1a 2a 3a 4a 5a 6a\n')
    code, [answer] = run(capsys, "check", "--card", str(card),
                         *USER_HAND, "--exposed", "6D 6D 6D J")
    assert code == 0 and answer["closest"] == [{"line": "CL-1", "tiles_away": 1, "needs": ["8D"],
                                                "joker_may_fill": ["8D"], "spare": []}]


def test_a_card_with_errors_is_not_loaded(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    card = tmp_path / "bad.card"
    card.write_text('card "Bad" 2026\nB-1 X 25 : 1111a 2222b 3333c 44a\nB-2 X 25 : 111a 2a\n')
    code, [answer] = run(capsys, "check", "--card", str(card), *QN1)
    assert code == 2 and answer["where"] == f"{card}:3:12" and "L1" in str(answer["error"])


def test_batch_answers_each_line_and_survives_bad_ones(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [json.dumps({"tiles": QN1}), "not json",
             json.dumps({"tiles": QN1[:7] + QN1[11:], "exposed": [["5D", "5D", "5D", "J"]]}),
             json.dumps({"tiles": ["ZZ"] * 14})]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, answers = run(capsys, "check", "--batch", "-")
    assert code == 0 and len(answers) == 4
    assert answers[0]["complete"] is True and "error" in answers[1]
    assert answers[1]["where"] == "line 2: column 1"
    assert answers[2]["closest"] is not None and answers[3]["where"] == "line 4: tile 1"


def test_lint_reports_every_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    card = tmp_path / "bad.card"
    card.write_text('card "Bad" 2026\nB-1 X 25 : 1111a 2222b 3333? 44a\n'
                    "B-2 X 25 : 111a 2a\nB-3 X 25 : XXX0a XXXX1a 1111b 222c ; X in {9}\n")
    code, [report] = run(capsys, "lint", str(card))
    assert code == 2 and report["ok"] is False and report["errors"] == 3
    spots = [(p["line"], p["column"], p["code"]) for p in report["problems"]]  # type: ignore[index, union-attr]
    assert spots == [(2, 28, "P1"), (3, 12, "L1"), (4, 18, "L5")]
    assert report["where"] == f"{card}:2:28"


def test_lint_sample_card_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    code, [report] = run(capsys, "lint", str(root / "config/cards/sample-2026.card"))
    assert code == 0 and report["ok"] is True and report["problems"] == []
    assert report["lines"] == 24


def test_card_check_process_keeps_heavy_imports_out(tmp_path: Path) -> None:
    # Start-up time is a contract target: numpy and pydantic stay off this path, and with the
    # compiled card cached, so do the card parser and expander.
    heavy = ("numpy", "pydantic", "cv2", "paho", "engine.american.cln", "engine.american.expand",
             "dataclasses")
    code = ("import sys; from controller import cli; cli.main(['card','check',"
            + ",".join(repr(t) for t in QN1)
            + f"]); print(sorted(m for m in {heavy!r} if m in sys.modules))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env).stdout.splitlines()[-1] for _ in range(2)]
    assert "engine.american.cln" in runs[0]  # the first run compiles the card
    assert runs[1] == "[]"


def test_check_names_the_missing_tiles_and_the_jokers_to_exchange(
        capsys: pytest.CaptureFixture[str]) -> None:
    # QN-1 (XXXXX0a DDa XXXX1b DDb F) with the 5D kong exposed holding a Joker, a 4B pung,
    # GD GD, WD WD, a Flower and a Joker: one short of the 4B quint.
    code, [answer] = run(capsys, "check", "4B", "4B", "4B", "J", "GD", "GD", "WD", "WD", "F",
                         "--exposed", "5D 5D 5D J", "--table", "4B 4B J", "--table", "9C 9C 9C")
    assert code == 0
    closest = answer["closest"]
    assert isinstance(closest, list)
    assert closest[0] == {"line": "QN-1", "tiles_away": 1, "needs": ["4B"],
                          "joker_may_fill": ["4B"], "spare": []}
    # a line further away needs exactly as many tiles as it is away
    for entry in closest:
        if "needs" in entry:
            assert len(entry["needs"]) == entry["tiles_away"]
    # J-4: the 4B held may go in for the Joker of another player's 4B 4B J
    assert answer["jokers_exchangeable"] == [
        {"exposure": "4B 4B J", "owner": "table", "give": "4B", "jokers": 1}]


def test_a_single_or_pair_still_needed_is_never_a_joker(
        capsys: pytest.CaptureFixture[str]) -> None:
    # QN-1 without the Flower and with one GD: the pair and the single must be naturals (J-1)
    code, [answer] = run(capsys, "check", "4B", "4B", "4B", "4B", "J", "GD", "WD", "WD", "1C",
                         "--exposed", "5D 5D 5D J")
    assert code == 0
    entry = next(c for c in answer["closest"] if c["line"] == "QN-1")  # type: ignore[union-attr]
    assert entry["tiles_away"] == 2
    assert sorted(entry["needs"]) == ["F", "GD"] and entry["joker_may_fill"] == []
    assert entry["spare"] == ["1C"]  # the one tile the line has no place for


def test_a_bad_table_exposure_exits_2_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, [answer] = run(capsys, "check", *QN1, "--table", "4B 4C J")
    assert code == 2 and answer["where"] == "table 1"
