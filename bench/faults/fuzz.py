"""Fuzzing every input surface: 10,000 grammar-generated cases a surface (tests/faults/
surfaces.py), counting what passed, what was refused with an answer, and what was not
answered as the contract says (a crash). Every crash is kept in tests/faults/corpus/.

Run: `.venv/bin/python bench/faults/fuzz.py [--cases 10000] [--seed 1] [SURFACE...]`.
Writes (adds to) bench/faults/results-fuzz.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.faults.surfaces import SURFACES, Finding, keep_in_corpus, scratch  # noqa: E402


def run_surface(name: str, cases: int, seed: int) -> dict[str, object]:
    surface = SURFACES[name]
    rng = random.Random(seed)
    outcomes = {"ok": 0, "refused": 0, "crash": 0}
    kinds: dict[str, str] = {}
    slowest = 0.0
    start = time.perf_counter()
    with scratch() as folder:
        for _ in range(cases):
            case = surface.generate(rng)
            began = time.perf_counter()
            try:
                outcomes[surface.check(case, Path(folder))] += 1
            except Finding as finding:
                outcomes["crash"] += 1
                key = re.sub(r"\d+", "N", str(finding))[:120]  # one case a kind of fault
                if key not in kinds:
                    kinds[key] = str(keep_in_corpus(name, case).relative_to(ROOT))
            slowest = max(slowest, time.perf_counter() - began)
    return {"surface": name, "cases": cases, **outcomes, "kinds": kinds,
            "seconds": round(time.perf_counter() - start, 1),
            "slowest_case_s": round(slowest, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(Path(__file__).with_name("results-fuzz.json")))
    parser.add_argument("surfaces", nargs="*", default=sorted(SURFACES))
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # the board's refusals would fill the terminal
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="mjtable-fuzz-cache-")
    out = Path(args.out)
    # Surfaces run in separate invocations add to one file (a surface run again replaces).
    kept = json.loads(out.read_text())["results"] if out.exists() else []
    for name in args.surfaces:
        result = run_surface(name, args.cases, args.seed)
        kept = [r for r in kept if r["surface"] != name] + [result]
        out.write_text(json.dumps({"seed": args.seed, "results": kept}, indent=1) + "\n")
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
