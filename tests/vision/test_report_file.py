"""The benchmarks' one way of printing a report and keeping it as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from report_file import show_and_write, write_report

REPORT = {"set": "xmj-real", "right": [97.1, 2.2], "nested": {"kinds": 34}}


def test_a_kept_report_reads_back_whole_and_ends_with_a_newline(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_report(REPORT, path)
    text = path.read_bytes().decode("utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == REPORT
    assert '\n "set"' in text  # one space of indent, as every results file


def test_no_path_keeps_nothing(tmp_path: Path) -> None:
    write_report(REPORT, None)
    show_and_write(REPORT, None)
    assert list(tmp_path.iterdir()) == []


def test_what_is_printed_is_what_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.json"
    show_and_write(REPORT, path)
    assert capsys.readouterr().out == path.read_text(encoding="utf-8")
