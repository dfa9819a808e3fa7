"""Inputs that once ended `mjtable score`, `card check --batch` and `config check` in a
traceback. Each now gets exit 2 and one `{"error", "where"}` naming what and where; in a batch
the bad line gets its own answer and the lines after it are still answered (contracts)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from controller import cli

DEEP = "[" * 100_000 + "]" * 100_000
HAND = (
    '{"ruleset": "code1924/mixed", "prevailing_wind": "E", "hands": {}, "winner": null, '
    '"win": null}'
)


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[dict[str, object]]]:
    code = cli.main(argv)
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines()]


def _file(tmp_path: Path, text: str, name: str = "in.json") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("text", "error", "where"),
    [
        (DEEP, "nested deeper than 32 levels", "line 1 column 33"),
        ('{"prevailing_wind": ' + "9" * 5000 + "}", "a number longer than 32 digits",
         "line 1 column 21"),
        ('{"x": 1e400}', "number 1e400 is out of range", "number"),
        ('{"x": NaN}', "NaN is not a JSON number", "number"),
    ],
)
def test_score_refuses_json_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, error: str, where: str
) -> None:
    code, out = _run(["score", _file(tmp_path, text)], capsys)
    assert code == 2
    assert out == [{"error": error, "where": where}]


def test_score_names_a_fault_that_is_not_a_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(HAND) | {"faults": {"N": [1]}}
    code, out = _run(["score", _file(tmp_path, json.dumps(doc))], capsys)
    assert code == 2
    assert out[0]["where"] == "faults.N" and "unknown fault [1]" in str(out[0]["error"])


def test_score_batch_answers_every_line_past_bad_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [DEEP, '{"a": ' + "1" * 5000 + "}", HAND[:-1] + ', "faults": {"N": [1]}}',
             HAND]
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe\n" + HAND.encode() + b"\n")
    code, out = _run(["score", "--batch", str(batch)], capsys)
    assert code == 0
    assert [o.get("where") for o in out] == [
        "line 1: column 33", "line 2: column 7", "line 3: faults.N", None,
        "line 5: byte 1", None,
    ]
    assert out[3]["net"] == out[5]["net"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_card_batch_answers_every_line_past_bad_ones(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = json.dumps({"tiles": ["1B", "1B", "1B", "2B", "2B", "2B", "3B", "3B", "3B", "4B",
                                 "4B", "4B", "5B", "5B"]})
    text = "\n".join([DEEP, '{"tiles": [' + "7" * 5000 + "]}", good]) + "\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out = _run(["card", "check", "--no-cache", "--batch", "-"], capsys)
    assert code == 0
    assert [o.get("where") for o in out[:2]] == ["line 1: column 33", "line 2: column 12"]
    assert "complete" in out[2]


def _config(tmp_path: Path, text: str) -> str:
    return _file(tmp_path, '[table]\nid = "t"\n' + text, "table.toml")


@pytest.mark.parametrize(
    ("text", "error", "key"),
    [
        ('[mqtt]\ntopic_prefix = "club\\u0000x"\n',
         "character U+0000 at position 5 is not allowed in an MQTT topic", "mqtt.topic_prefix"),
        ('[mqtt]\ntopic_prefix = "club\\tx"\n',
         "character U+0009 at position 5 is not allowed in an MQTT topic", "mqtt.topic_prefix"),
        ('[mqtt]\ntopic_prefix = "$SYS/x"\n',
         "a topic starting with '$' is reserved for the broker", "mqtt.topic_prefix"),
        ('[mqtt]\npassword_file = "/nonexistent/mqtt-password"\n',
         "cannot read /nonexistent/mqtt-password: No such file or directory",
         "mqtt.password_file"),
    ],
)
def test_config_check_refuses_what_the_broker_or_the_start_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, error: str, key: str
) -> None:
    path = _config(tmp_path, text)
    code, out = _run(["config", "check", path], capsys)
    assert code == 2
    assert out == [{"error": error, "where": f"{path}: {key}"}]


def test_config_check_refuses_toml_nested_2000_deep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _config(tmp_path, "[x]\ny = " + "[" * 2000 + "]" * 2000 + "\n")
    code, out = _run(["config", "check", path], capsys)
    assert code == 2
    assert out == [{"error": "nested deeper than 100 levels", "where": f"{path}:4"}]


def test_config_check_without_mqtt_needs_no_password_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _config(tmp_path, '[mqtt]\nenabled = false\npassword_file = "/nonexistent/p"\n')
    code, out = _run(["config", "check", path], capsys)
    assert code == 0 and out[0]["ok"] is True


def test_config_check_refuses_a_5000_digit_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _config(tmp_path, "[board]\nbaudrate = " + "1" * 5000 + "\n")
    code, out = _run(["config", "check", path], capsys)
    assert code == 2
    assert out == [{"error": "a number longer than 4,300 digits", "where": f"{path}:4"}]


def test_card_lint_refuses_a_5000_digit_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = _file(tmp_path, 'card "x" 2026 v1\nA-1 X ' + "4" * 5000 + " : 1111a 2222a 3333a 44a\n",
                 "x.card")
    code, out = _run(["card", "lint", card], capsys)
    assert code == 2 and out[0]["where"] == f"{card}:2:7"
    assert "P6" in str(out[0]["error"])


@pytest.mark.parametrize(("win", "where"), [
    ({"tile": "8B", "by": "wall", "from": None, "context": [["1D"]]}, "win.context[0]"),
    ({"tile": "8B", "by": ["wall"], "from": None, "context": []}, "win.by"),
])
def test_score_names_a_win_field_that_is_not_a_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], win: dict[str, object], where: str
) -> None:
    doc = json.loads(HAND) | {"winner": "E", "win": win, "hands": {"E": {
        "melds": [], "concealed": ["1B"] * 3 + ["2B"] * 3 + ["3B"] * 3 + ["4B"] * 3 + ["8B"] * 2,
        "flowers": []}}}
    code, out = _run(["score", _file(tmp_path, json.dumps(doc))], capsys)
    assert code == 2 and out[0]["where"] == where
