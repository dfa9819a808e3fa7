"""Every crossing (a bonus tile named as another kind, or the reverse) of the width sweep
(``bench_vision.py --widths``), crop by crop: what the first look said, what the bonus-tile
reader read, and which path of the decision (``Identity.how``) gave the answer.

    .venv/bin/python bench/vision/crossings.py --widths 18 22 24 28 32 40 48 --per-kind 20

The crops are the sweep's own (the same seed draws them in the same order).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from identity_parts import BONUS_KINDS, width_cases  # noqa: E402
from report_file import write_report  # noqa: E402

from vision.bonus import BonusReading  # noqa: E402
from vision.bonus_gate import bonus_evidence, gated  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.identify import Identity, Recogniser  # noqa: E402
from vision.threads import SCAN_THREADS  # noqa: E402


def traced(recogniser: Recogniser, crops: list[np.ndarray]) -> list[dict[str, Any]]:
    """Each crop's first look (after the shifted second look), its reading, and the answer."""
    vectors = recogniser.embed(crops)
    firsts = recogniser.second_look(crops, vectors, recogniser.identify_embeddings(vectors))
    answers = recogniser.bonus_look(crops, firsts, vectors)
    reader = recogniser.bonus_reader
    readings = reader.read(crops) if reader is not None else [None] * len(crops)
    return [
        {
            "answer": answer.label,
            "how": answer.how or "not gated",
            "why": answer.why,
            "first": look(first),
            "gated": gated(first, recogniser.bars),
            "reading": reading_of(reading),
            "evidence": None
            if reading is None
            else round(bonus_evidence(first, reading, recogniser.bars), 2),
        }
        for first, answer, reading in zip(firsts, answers, readings, strict=True)
    ]


def look(first: Identity) -> dict[str, Any]:
    return {
        "label": first.label,
        "best": first.best,
        "confidence": round(first.confidence, 3),
        "bonus_share": round(first.bonus_share, 4),
        "similarity": round(first.similarity, 3),
        "best_bonus": first.best_bonus,
        "bonus_confidence": round(first.bonus_confidence, 3),
    }


def reading_of(reading: BonusReading | None) -> dict[str, Any] | None:
    if reading is None:
        return None
    return {
        "kind": reading.kind,
        "confidence": round(reading.confidence, 3),
        "number": reading.number,
        "number_confidence": round(reading.number_confidence, 3),
        "bonus_probability": round(reading.bonus_probability, 3),
        "best_bonus": reading.best_bonus,
        "best_bonus_share": round(reading.best_bonus_share, 3),
        "fused": reading.fused,
        "fused_share": round(reading.fused_share, 3),
    }


def crossed(named: str | None, truth: str) -> bool:
    return named is not None and (named in BONUS_KINDS) != (truth in BONUS_KINDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--widths", type=int, nargs="+", default=[18, 22, 24, 28, 32, 40, 48])
    parser.add_argument("--per-kind", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    SCAN_THREADS.apply()
    embedder = Embedder()
    rng = np.random.default_rng(args.seed)
    found = []
    for case in width_cases(embedder, args.per_kind, args.widths, rng):
        for truth, row in zip(case.truth, traced(case.recogniser, case.crops), strict=True):
            if crossed(row["answer"], truth):
                found.append({"set": case.name, "width": case.width, "truth": truth, **row})
                print(json.dumps(found[-1]), flush=True)
    print(f"{len(found)} crossings", flush=True)
    write_report(found, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
