"""Vision benchmarks: identity accuracy across tile sets, full-table scan time, and the PyPI
`mahjong-detector` model side by side on the same frames.

    .venv/bin/python bench/vision/bench_vision.py [--frames 10] [--per-kind 10] [--json out.json]

1. *Held-out set, enrolled*: for each art set held out of training (vision/models/tile_embed.json),
   enrol 3 camera-like crops per kind of that set, then classify ``--per-kind`` fresh crops
   per kind. Top-1 counts an abstention as wrong; abstention rate and accuracy on the answered
   crops are given too.
2. *Mixed sets, mostly never enrolled*: 3 enrolment crops per kind, each from a randomly chosen
   set; test crops come from every set, split into sets that were enrolled for that kind and
   sets that were not (and, of those, sets the network never saw in training).
3. *Full-table scan*: ``--frames`` rendered 1920x1080 frames with about 60 tiles (held-out art,
   the model enrolled on crops cut from a separate frame of the same set): median scan time,
   time per tile, tiles found, identity accuracy of found tiles.
4. *mahjong-detector 0.0.6* (YOLO11n, 34 riichi classes) on the same frames through its own
   pre- and post-processing and onnxruntime; scored on the 34 kinds it knows.
5. *Hands laid out*: ``--hands`` winning hands per held-out set, 14 tiles on a seat's rack
   strip, touching or up to 1.5 mm apart, as they are shown to be scored: identity of the
   tiles, and hands read whole (every tile named right, nothing more), each scanned once.
   ``--hands-only`` runs only this part.

Every number comes from one run on this machine; the machine is shared, so compare ratios.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import identity_parts  # noqa: E402
from cache_part import cache_bench  # noqa: E402
from detector_part import detector_bench  # noqa: E402
from dice_part import dice_bench  # noqa: E402
from identity_parts import (  # noqa: E402
    HELD_OUT,
    held_out_enrolled,
    identity_by_width,
    mixed_sets,
)
from other_revision import OtherRevision  # noqa: E402
from report_file import write_report  # noqa: E402
from scan_parts import frame_size, hands_bench, scan_bench  # noqa: E402

from vision.bonus_ocr import OcrBars  # noqa: E402
from vision.capture import DEFAULT_FRAME_SIZE  # noqa: E402
from vision.crops import CROP_W  # noqa: E402
from vision.embedder import MODELS_DIR, Embedder  # noqa: E402
from vision.table_text import at_the_cut  # noqa: E402
from vision.threads import SCAN_THREADS  # noqa: E402

META = json.loads((MODELS_DIR / "tile_embed.json").read_text())


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=10)
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--identity-only", action="store_true", help="parts 1 and 2 only (no frames)"
    )
    parser.add_argument("--scan-only", action="store_true", help="parts 3, 4 and 5 only")
    parser.add_argument(
        "--widths",
        type=int,
        nargs="+",
        metavar="PX",
        help="part 1 only, at each of these tile widths in camera pixels (part 1w)",
    )
    parser.add_argument(
        "--hands", type=int, default=12, help="part 5: hands laid out per held-out set"
    )
    parser.add_argument("--hands-only", action="store_true", help="part 5 only")
    parser.add_argument(
        "--live-only",
        action="store_true",
        help="parts 3b (the live-table scan cache) and 3c (touching dice) only",
    )
    parser.add_argument(
        "--dice-frames", type=int, default=40, help="part 3c: tables per kind of throw"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also scan every frame with the scanner of git revision REV (own process, "
        "alternately), and report both",
    )
    parser.add_argument(
        "--compare-frame-size",
        metavar="WxH",
        type=frame_size,
        help="parts 3 and 5 alone, on the same tables seen by a 1920x1080 camera and by a WxH "
        "one (the table fills the frame's height)",
    )
    parser.add_argument(
        "--read-cuts",
        action="store_true",
        help="the text recogniser reads the scanner's 48 x 64 cuts too (what a live table "
        "reaches once its background reader has read them; vision/table_text.py)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="parts 3 and 4: timed runs of each frame per method"
    )
    return parser.parse_args()


def _show(report: dict[str, Any], key: str, value: Any) -> None:
    """Keep a part's figures in the report and print them as they come."""
    report[key] = value
    print(json.dumps(value, indent=1), flush=True)


def _by_frame_size(embedder: Embedder, args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Parts 3 and 5 alone, the same tables seen by two cameras."""
    sizes = (DEFAULT_FRAME_SIZE, args.compare_frame_size)
    scans: dict[str, list[dict[str, Any]]] = {f"{w}x{h}": [] for w, h in sizes}
    hands: dict[str, list[dict[str, Any]]] = {f"{w}x{h}": [] for w, h in sizes}
    # Set by set, one size after the other, so that both see the machine alike.
    for art in HELD_OUT:
        for w, h in sizes:
            scans[f"{w}x{h}"].append(
                scan_bench(embedder, art, args.frames, args.seed, "new", None, args.repeat, (w, h))
            )
    for art in HELD_OUT:
        for w, h in sizes:
            if args.hands > 0:
                hands[f"{w}x{h}"].append(
                    hands_bench(embedder, art, args.hands, args.seed + 300, None, (w, h))
                )
    _show(report, "scan_by_frame_size", scans)
    _show(report, "hands_by_frame_size", hands)


def _parts(
    embedder: Embedder,
    args: argparse.Namespace,
    rng: np.random.Generator,
    report: dict[str, Any],
    other: OtherRevision | None,
) -> None:
    """Parts 1-5, as the options ask."""
    if not args.scan_only and not args.live_only and not args.hands_only:
        _show(report, "held_out_enrolled", held_out_enrolled(embedder, args.per_kind, rng, other))
        _show(report, "mixed_sets", mixed_sets(embedder, args.per_kind, rng, other))
        if args.identity_only:
            return
    if not args.live_only and args.hands > 0:
        hands = [hands_bench(embedder, art, args.hands, args.seed + 300, other) for art in HELD_OUT]
        _show(report, "hands", hands)
    if not args.hands_only:
        cache = [
            cache_bench(embedder, art, args.frames, args.seed, args.repeat) for art in HELD_OUT
        ]
        _show(report, "cache", cache)
        if args.dice_frames > 0:
            _show(report, "dice", dice_bench(args.dice_frames, args.seed, other))
    if not args.live_only and not args.hands_only:
        scan = [
            scan_bench(embedder, art, args.frames, args.seed, method, other, args.repeat)
            for art in HELD_OUT
            for method in ("old", "new")
        ]
        _show(report, "scan", scan)
        detector = [
            detector_bench(embedder, art, args.frames, args.seed + 7, other, args.repeat)
            for art in HELD_OUT
        ]
        _show(report, "detector", detector)


def main() -> int:
    args = _parse_args()
    if args.read_cuts:
        # The live table's bars: only bonus names are read at the cut (table_text.at_the_cut).
        identity_parts.OCR_BARS[0] = replace(at_the_cut(OcrBars()), min_width=CROP_W)
    SCAN_THREADS.apply()  # the service's threads (vision/threads.py), before the network loads
    embedder = Embedder()
    rng = np.random.default_rng(args.seed)
    report: dict[str, Any] = {"model": META, "embedding_runtime": embedder.runtime}
    if args.compare_frame_size:
        _by_frame_size(embedder, args, report)
    elif args.widths:
        _show(
            report,
            "identity_by_width",
            identity_by_width(embedder, args.per_kind, args.widths, rng),
        )
    else:
        with tempfile.TemporaryDirectory() as tmp:
            other = OtherRevision(args.against, Path(tmp)) if args.against else None
            try:
                _parts(embedder, args, rng, report, other)
            finally:
                if other is not None:
                    other.close()
    return _write(report, args.json)


def _write(report: dict[str, Any], path: Path | None) -> int:
    write_report(report, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
