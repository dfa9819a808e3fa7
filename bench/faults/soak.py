"""Kill -9 soak through the shipped broker: hands of `mjtable run` on the emulated board,
commanded by the referee over TLS, with the broker and the service each killed at random
steps; a club scorer's persistent session must get every event once (after dedupe by `seq`),
in order (tests/faults/test_end_to_end.py, more hands and kills).

Run: `.venv/bin/python bench/faults/soak.py [--hands 5] [--kills 3] [--double]`. Writes
bench/faults/results-soak.json. With `--double` each hand kills the broker at a random step,
then the service ten and eleven steps later, twice in a row (the pattern of the one event a
soak once lost, docs/reliability.md).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.faults.test_end_to_end import play_with_kills  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--kills", type=int, default=3, help="of each, per hand")
    parser.add_argument("--double", action="store_true",
                        help="the broker, then the service twice in a row")
    args = parser.parse_args()
    rng = random.Random(7)
    totals = {"hands": 0, "events": 0, "broker_kills": 0, "service_kills": 0,
              "redelivered": 0, "lost": 0}
    began = time.perf_counter()
    for hand in range(args.hands):
        folder = Path(tempfile.mkdtemp(prefix="mjtable-soak-"))
        try:
            faults = None
            if args.double:
                at = rng.randrange(15, 60)
                faults = {at - 10: "broker", at: "service", at + 1: "service"}
            result = play_with_kills(folder, seed=100 + hand, kills=args.kills, faults=faults)
        except AssertionError as exc:
            # The store and the broker's log stay for a look (a failure is the news here).
            print(json.dumps({"hand": hand, "failed": str(exc)[:500], "kept": str(folder)}))
            raise
        shutil.rmtree(folder)
        print(json.dumps(result), flush=True)
        totals["hands"] += 1
        for key in ("events", "broker_kills", "service_kills", "redelivered", "lost"):
            totals[key] += result[key]
    totals["seconds"] = round(time.perf_counter() - began)
    print(json.dumps(totals))
    Path(__file__).with_name("results-soak.json").write_text(json.dumps(totals, indent=1) + "\n")


if __name__ == "__main__":
    main()
