"""Whether a bar on a crop's similarity to its prototypes (``Identity.similarity``) could
tell the crops the text recogniser (vision/bonus_ocr.py) should read at the scanner's cuts
from an enrolled table's own: of the calibration group's crops a reading could change (the
gate's abstentions on the bonus side and between the sides), how many each group would read
below each candidate bar.

    .venv/bin/python bench/vision/choose_bars.py --dry-run --looks CALIBRATION.pkl
    .venv/bin/python bench/vision/ocr_own_similarity.py --looks CALIBRATION.pkl [--json out.json]
    .venv/bin/python bench/vision/ocr_own_similarity.py --enrolled-tables [--json out.json]

The looks are choose_bars.py's (training sets only, never the held-out ones). An enrolled
table's groups (*enrolled tables scanned*, *enrolled at a width*) show what reading would
cost an enrolled table; the *never enrolled* groups, what it could gain. The training sets'
art is the embedding's own, so their enrolled tiles lie nearer their prototypes than a set
the network never saw does (bench/vision/README.md, "the text recogniser at the table"):
``--enrolled-tables`` lists the same crops of the held-out sets' enrolled tables as
profile_against.py scans them (a diagnosis: no bar is chosen on them).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gate_looks import Look, decided  # noqa: E402
from identity_parts import HELD_OUT  # noqa: E402
from scan_parts import enrolled_recogniser, frames  # noqa: E402

from vision.bonus_gate import default_bars  # noqa: E402
from vision.bonus_ocr import OcrBars, may_change  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.identity import Identity  # noqa: E402
from vision.synth.table_enrol import labelled_crops  # noqa: E402

# profile_against.py's tables: profile_scan.py's seed and frames.
TABLE_SEED = 2024
TABLE_FRAMES = 3

CANDIDATES = (0.8, 0.85, 0.9, 0.95, 0.97, 0.99, 1.01)


def asked_similarities(looks: list[Look]) -> list[float]:
    """The similarity of each crop whose gate's answer a reading could change."""
    bars, ocr = default_bars(), OcrBars()
    answers = [decided(look, bars) for look in looks]
    return sorted(a.similarity for a in answers if may_change(a, ocr))


def table(groups: dict[str, list[Look]]) -> dict[str, Any]:
    """Per group: its crops, those a reading could change, and those read at each bar."""
    out: dict[str, Any] = {}
    for key, looks in groups.items():
        sims = asked_similarities(looks)
        out[key] = {
            "crops": len(looks),
            "could change": len(sims),
            "read below": {str(bar): sum(s < bar for s in sims) for bar in CANDIDATES},
            "similarities": [round(s, 3) for s in sims],
        }
    return out


def enrolled_tables() -> dict[str, list[list[dict[str, Any]]]]:
    """Per held-out set enrolled as a table, per frame scanned, the crops a reading could
    change: the gate's reason, their similarity and the first look's best kind."""
    embedder, out = Embedder(), {}
    for art in HELD_OUT:
        recogniser = enrolled_recogniser(embedder, art, TABLE_SEED, "new")
        recogniser.bonus_ocr = None  # the gate's own answers
        out[art] = [
            [_asked(answer) for answer in recogniser.identify(crops) if may_change(answer)]
            for crops in (
                [crop for _, crop in labelled_crops(r)]
                for r in frames(TABLE_FRAMES, art, TABLE_SEED)
            )
        ]
    return out


def _asked(answer: Identity) -> dict[str, Any]:
    return {
        "why": answer.why,
        "similarity": round(answer.similarity, 3),
        "best": answer.best,
        "confidence": round(answer.confidence, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--looks", type=Path, help="choose_bars.py's --looks")
    parser.add_argument("--enrolled-tables", action="store_true", help="the held-out sets'")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.enrolled_tables:
        tables = enrolled_tables()
        for art, scans in tables.items():
            sims = sorted(c["similarity"] for scan in scans for c in scan)
            print(f"{art}: {[len(scan) for scan in scans]} a frame, similarities {sims}")
        if args.json:
            args.json.write_text(json.dumps(tables, indent=1) + "\n")
        return 0
    if args.looks is None:
        raise SystemExit("give --looks FILE (choose_bars.py's looks) or --enrolled-tables")
    if not args.looks.is_file():
        raise SystemExit(f"{args.looks}: no such file (make it with choose_bars.py --looks)")
    with args.looks.open("rb") as kept:
        groups: dict[str, list[Look]] = pickle.load(kept)
    result = table(groups)
    width = max(len(key) for key in result)
    print(f"{'group':{width}}  crops  could change  read below " + " ".join(map(str, CANDIDATES)))
    for key, row in result.items():
        read = " ".join(f"{n:>4}" for n in row["read below"].values())
        print(f"{key:{width}}  {row['crops']:5}  {row['could change']:12}  {read}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
