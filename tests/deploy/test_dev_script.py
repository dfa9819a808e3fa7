"""`./dev`, read back as a person sees it: its usage, and a clear refusal of what it does not
know (the set-up itself is exercised by bench/fresh_debian/run.sh on a minimal Debian)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _dev(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ROOT / "dev"), *args], capture_output=True, text=True, timeout=30)


def test_bare_dev_prints_its_usage_and_nothing_of_its_code() -> None:
    done = _dev()
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0].startswith("One entry point for a fresh Debian machine")
    for command in ("./dev simulate", "./dev test", "./dev setup [--training]", "./dev mjtable"):
        assert any(line.lstrip().startswith(command) for line in lines), command
    assert "root or sudo" in done.stdout
    assert not any(word in done.stdout for word in ("set -e", "pipefail", "#", "cd \"$("))


def test_unknown_commands_and_options_are_refused() -> None:
    done = _dev("sumilate")
    assert done.returncode == 64 and "./dev simulate" in done.stdout
    done = _dev("setup", "--trainig")
    assert done.returncode == 64
    assert done.stderr.strip() == "dev: unknown option --trainig (setup takes only --training)"
