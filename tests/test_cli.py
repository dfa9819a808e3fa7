"""The command-line dispatcher: the JSON error contract (contracts.md)."""

import json

import pytest

from controller import cli


def test_unknown_command_exits_2_with_json_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["frobnicate"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert "frobnicate" in out["error"] and out["where"] == "argv[1]"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in text
