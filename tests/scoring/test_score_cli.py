"""`mjtable score` as club software drives it: JSON in and out, exit 2 with an error that names
the seat, field and tile, `--batch` that keeps going past a bad line, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

GOOD = {
    "ruleset": "code1924/mixed",
    "options": {"limit": 500},
    "prevailing_wind": "E",
    "hands": {
        "S": {
            "melds": [
                {"tiles": ["5B", "5B", "5B"], "exposed": True},
                {"tiles": ["2C", "3C", "4C"], "exposed": True},
            ],
            "concealed": ["SW", "SW", "SW", "6D", "7D", "8D", "9C", "9C"],
            "flowers": [],
        }
    },
    "winner": "S",
    "win": {"tile": "9C", "by": "wall", "from": None, "context": []},
}


# the installed `mjtable` entry point, whichever environment runs the tests
MAIN = "import sys; from controller.cli import main; sys.exit(main())"


def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-c", MAIN, "score", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode, proc.stdout, proc.stderr


def with_(path: str, value: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(GOOD))
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


def test_contract_example_from_stdin() -> None:
    code, out, _ = run(stdin=json.dumps(GOOD))
    assert code == 0
    result = json.loads(out)
    south = result["hands"]["S"]
    assert (south["points"], south["doubles"], south["score"], south["value"]) == (34, 1, 68, 68)
    assert south["arrangement"][0] == ["5B", "5B", "5B"]
    assert result["mahjong"] == {"valid": True} and sum(result["net"].values()) == 0


def test_reads_a_file_argument(tmp_path: Any) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(GOOD))
    code, out, _ = run(str(path))
    assert code == 0 and json.loads(out)["hands"]["S"]["score"] == 68


@pytest.mark.parametrize(
    ("doc", "where", "words"),
    [
        (with_("ruleset", "code1925"), "ruleset", "unknown ruleset"),
        (with_("options.limit", "lots"), "options.limit", "whole number"),
        (with_("options.colour", 1), "options.colour", "unknown option"),
        (with_("hands.S.concealed.0", "XX"), "hands.S.concealed[0]", "'XX'"),
        (with_("hands.S.concealed.0", "F1"), "hands.S.concealed[0]", "F1 is a bonus tile"),
        (
            with_("hands.S.melds.1.tiles", ["2C", "3C", "5C"]),
            "hands.S.melds[1].tiles",
            "2C 3C 5C is no set",
        ),
        (
            with_("hands.S.concealed", ["SW", "SW", "SW", "6D", "7D", "8D", "9C"]),
            "hands.S.concealed",
            "7 concealed tiles",
        ),
        (with_("hands.S.melds.0.tiles", ["SW", "SW", "SW"]), "hands.S", "a fifth SW"),
        (with_("hands.S.flowers", ["5B"]), "hands.S.flowers[0]", "not a flower"),
        (with_("win.tile", "1D"), "hands.S.concealed", "winning tile 1D"),
        (with_("win.by", "magic"), "win.by", "unknown 'magic'"),
        (with_("winner", "X"), "winner", "E S W N"),
        (with_("prevailing_wind", None), "prevailing_wind", "prevailing wind"),
    ],
)
def test_bad_input_exit_2_naming_the_place(doc: dict[str, Any], where: str, words: str) -> None:
    code, out, err = run(stdin=json.dumps(doc))
    assert code == 2
    error = json.loads(out)
    assert error["where"] == where and words in error["error"]
    assert "Traceback" not in err and err.startswith("mjtable: ")


def test_not_json() -> None:
    code, out, err = run(stdin="{ruleset")
    assert code == 2 and json.loads(out)["error"].startswith("not JSON")
    assert "Traceback" not in err


def test_batch_scores_each_line_and_reports_bad_lines() -> None:
    lines = [
        json.dumps(GOOD),
        "{nope",
        json.dumps(with_("ruleset", "x")),
        "",
        json.dumps(
            {
                "ruleset": "classical",
                "prevailing_wind": "S",
                "hands": {},
                "winner": None,
                "win": None,
            }
        ),
    ]
    code, out, _ = run("--batch", "-", stdin="\n".join(lines) + "\n")
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 4
    assert results[0]["hands"]["S"]["score"] == 68
    assert results[1]["where"].startswith("line 2") and "not JSON" in results[1]["error"]
    assert results[2]["where"] == "line 3: ruleset"
    assert results[3]["mahjong"]["drawn"] is True and results[3]["payments"] == []


def test_score_does_not_import_heavy_modules() -> None:
    code = (
        "import sys, json, io, contextlib\n"
        "from controller import cli\n"
        "sys.stdin = io.StringIO(" + repr(json.dumps(GOOD)) + ")\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    cli.main(['score'])\n"
        "heavy = [m for m in ('numpy', 'pydantic', 'cv2', 'paho', 'serial') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_help_lists_every_ruleset_the_registry_scores() -> None:
    """`mjtable score --help` describes each name in words; the registry decides the names, so
    a ruleset added there and not described here fails."""
    import re

    from controller.commands.score import RULESETS_HELP
    from engine import rulesets

    entries = [rulesets.entry(n) for n in rulesets.names()]
    scored = {e.name for e in entries if e.scores or e.scored_by_card}
    described = set(re.findall(r"^ {2}([^\s,]+(?:, [^\s,]+)*)", RULESETS_HELP, re.M))
    listed = {name for line in described for name in line.split(", ")}
    assert listed == scored, (sorted(listed - scored), sorted(scored - listed))
