"""Guided enrolment at the table (`mjtable enroll`), measured on rendered tables whose tile sets
training never saw.

    .venv/bin/python bench/bench_enroll.py --tables 3 --json bench/results-enroll.json

For each held-out set and table (its cloth, light and camera pose), ``--shots`` photos of the
documented layout are enrolled exactly as the command does (the last held back and named by
the others), then ``--test-shots`` further photos of the same table, never enrolled, are cut
the same way and named by the enrolled model, side by side with the bundled prototypes (no
enrolment) on the same crops. Top-1 with abstentions counted wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller import guided_enrol  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, MODELS_DIR, Recogniser  # noqa: E402


def named_right(recogniser: Recogniser, crops: list[tuple[str, object]]) -> tuple[int, list[str]]:
    named = recogniser.identify([crop for _, crop in crops])  # type: ignore[misc]
    misses = [f"{label}->{ident.label or 'unsure'}"
              for (label, _), ident in zip(crops, named, strict=True) if ident.label != label]
    return len(crops) - len(misses), misses


def one_table(art: str, seed: int, args: argparse.Namespace, kinds: list[str]) -> dict[str, object]:
    rows = guided_enrol.layout_rows(kinds)
    geometry = TableGeometry()
    started = time.perf_counter()
    shots = [guided_enrol.cut_shot(guided_enrol.rendered_shot(art, kinds, seed, n), geometry, rows)
             for n in range(1, args.shots + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        summary = guided_enrol.enrol_shots(shots, kinds, Path(tmp) / "model")
        enrol_s = time.perf_counter() - started
        enrolled = Recogniser.load(Path(tmp) / "model")
        bundled = Recogniser.load(DEFAULT_MODEL_DIR)
        test: list[tuple[str, object]] = []
        problems = []
        for n in range(args.shots + 1, args.shots + 1 + args.test_shots):
            shot = guided_enrol.cut_shot(guided_enrol.rendered_shot(art, kinds, seed, n),
                                         geometry, rows)
            test += shot.crops
            problems += shot.problems
        right, misses = named_right(enrolled, test)
        bundled_right, _ = named_right(bundled, test)
    return {
        "art": art, "seed": seed, "enrolled_crops": summary["images"],
        "missing": summary["missing"], "held_back": summary["held_back"],
        "doubtful": summary["doubtful"], "cut_problems": summary["problems"],
        "test_crops": len(test), "test_cut_problems": problems,
        "enrolled_right": right, "bundled_right": bundled_right, "misses": misses,
        "seconds_to_enrol": round(enrol_s, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=3, help="tables (seeds) per held-out set")
    parser.add_argument("--shots", type=int, default=3, help="shots enrolled (last held back)")
    parser.add_argument("--test-shots", type=int, default=3, help="shots only named")
    parser.add_argument("--ruleset", default="classical", help="whose set: classical = 42 kinds")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    held_out = json.loads((MODELS_DIR / "tile_embed.json").read_text())["held_out_sets"]
    kinds = guided_enrol.set_kinds(args.ruleset)
    results = []
    for art in held_out:
        for seed in range(1, args.tables + 1):
            result = one_table(art, seed, args, kinds)
            results.append(result)
            print(json.dumps({k: result[k] for k in ("art", "seed", "test_crops",
                  "enrolled_right", "bundled_right", "held_back", "doubtful")}), flush=True)
    summary: dict[str, object] = {}
    for art in held_out:
        mine = [r for r in results if r["art"] == art]
        total = sum(int(r["test_crops"]) for r in mine)  # type: ignore[call-overload]
        summary[art] = {
            "test_crops": total,
            "enrolled_top1": round(sum(int(r["enrolled_right"]) for r in mine)  # type: ignore[call-overload]
                                   / total, 4),
            "bundled_top1": round(sum(int(r["bundled_right"]) for r in mine)  # type: ignore[call-overload]
                                  / total, 4),
        }
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"args": vars(args) | {"json": str(args.json)},
                                         "summary": summary, "tables": results}, indent=1)
                             + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
