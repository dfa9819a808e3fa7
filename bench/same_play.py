"""Do `mjtable play` and `mjtable replay` answer as they did at a git revision?

`python bench/same_play.py --against REV [--hands N]` runs both commands in this tree and in a
copy of REV's `engine/`, `controller/` and `config/`, for every family (classical presets, the
1924 games, Pung-Chow, the smaller tables, the American game with its bundled card) and a few
seeds, and compares byte for byte: the summary of `play` (all but `seconds`), its `--log`, and
the report of `replay` on the log as written, with one digest changed, with one discard changed,
and cut off after a line that is not JSON. Prints one line per difference and a JSON summary;
exits 1 if anything differs. A check for refactoring the engine's doors, not a timing.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (ruleset, players, seed): every family, each at a full table and some at a smaller one.
CASES = [("classical/dmjl", 4, 1), ("classical/bmja", 2, 8), ("classical", 4, 3),
         ("code1924/mixed", 4, 99), ("code1924/mixed", 2, 9), ("code1924/mixed", 3, 5),
         ("code1924/cleared", 4, 3), ("code1924/one-double", 4, 12345), ("pungchow", 4, 7),
         ("pungchow", 3, 4), ("pungchow/limit", 4, 2), ("american", 4, 5),
         ("american", 3, 901473), ("american/2", 2, 6)]
CLI = "import sys; from controller import cli; sys.exit(cli.main(sys.argv[1:]))"
SECONDS = re.compile(r'"seconds": [0-9.]+')


def _tree_at(rev: str, into: Path) -> None:
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "engine", "controller",
                              "config"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def _run(tree: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", CLI, *args], cwd=tree, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tree)}, timeout=600)
    answer = SECONDS.sub('"seconds": X', done.stdout)  # the one field that may differ
    return f"{answer}exit {done.returncode}\n"


def _tampered(log: list[str]) -> dict[str, list[str]]:
    """The log as written, and three ways of spoiling it."""
    digest = next(i for i, line in enumerate(log) if '"digest"' in line)
    discard = next(i for i, line in enumerate(log)
                   if '"Discarded"' in line and '"tile":"1B"' not in line)
    moved = re.sub(r'"tile":"[^"]+"', '"tile":"1B"', log[discard], count=1)
    return {"log": log,
            "digest": [*log[:digest], log[digest].replace('"digest":"', '"digest":"0'),
                       *log[digest + 1:]],
            "discard": [*log[:discard], moved, *log[discard + 1:]],
            "not json": [*log[:3], "{not json"]}


def _answers(tree: Path, work: Path, ruleset: str, players: int, seed: int,
             hands: int) -> dict[str, str]:
    log = work / "play.jsonl"
    out = {"play": _run(tree, "play", "--ruleset", ruleset, "--players", str(players),
                        "--hands", str(hands), "--seed", str(seed), "--log", str(log))}
    written = log.read_text().splitlines()
    out["log"] = "\n".join(written)
    for name, lines in _tampered(written).items():
        spoiled = work / "replay.jsonl"
        spoiled.write_text("\n".join(lines) + "\n")
        out[f"replay ({name})"] = _run(tree, "replay", str(spoiled))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", required=True)
    parser.add_argument("--hands", type=int, default=4, help="hands per case (default 4)")
    args = parser.parse_args()
    compared = differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp, "before")
        _tree_at(args.against, before)
        for ruleset, players, seed in CASES:
            work = Path(tmp, "work")
            work.mkdir(exist_ok=True)
            hands = args.hands if not ruleset.startswith("american") else max(1, args.hands // 2)
            old = _answers(before, work, ruleset, players, seed, hands)
            new = _answers(ROOT, work, ruleset, players, seed, hands)
            for what in new:
                compared += 1
                if new[what] != old[what]:
                    differing += 1
                    print(f"differs: {ruleset} players {players} seed {seed}: {what}")
    print(json.dumps({"against": args.against, "compared": compared, "differing": differing}))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
