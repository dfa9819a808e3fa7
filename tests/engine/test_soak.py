"""10,000 bot hands per ruleset without a violation (slow: `pytest -m slow`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.rules import RULESETS


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_ten_thousand_hands_without_a_violation(ruleset: str) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "bench/engine_soak.py", "--hands", "10000", "--ruleset", ruleset],
        cwd=root, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"violations": 0' in done.stdout
