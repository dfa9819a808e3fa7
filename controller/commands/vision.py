"""`mjtable vision enroll|classify|scan` (docs/vision.md, "Commands")."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json

HELP = (
    "tile recognition: `vision enroll` a tile set, `vision classify` tiles, `vision scan` a table"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="enroll|classify|scan")
    enroll = verbs.add_parser("enroll", help="learn this table's tiles from sample photos")
    enroll.add_argument("--out", required=True, type=Path, metavar="MODEL_DIR")
    enroll.add_argument(
        "samples",
        type=Path,
        metavar="SAMPLES_DIR",
        help="one sub-folder per tile token (1B/, RD/, F3/, J/ ...) of images",
    )
    enroll.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="confidence below which classify answers null (default 0.7)",
    )
    classify = verbs.add_parser("classify", help="name the tile in each image")
    classify.add_argument("--model", type=Path, default=None, metavar="MODEL_DIR")
    classify.add_argument("images", nargs="+", metavar="IMAGE")
    scan = verbs.add_parser("scan", help="every tile and die on a table photo")
    scan.add_argument("--calibration", required=True, type=Path, metavar="FILE")
    scan.add_argument("--model", type=Path, default=None, metavar="MODEL_DIR")
    scan.add_argument("image", metavar="IMAGE")


def run(args: argparse.Namespace) -> int:
    verb: str = args.verb
    if verb == "enroll":
        return _enroll(args)
    if verb == "classify":
        return _classify(args)
    return _scan(args)


@contextmanager
def _model_input() -> Iterator[None]:
    """A model folder that cannot be loaded is the --model argument's fault."""
    from vision.embedder import ModelError

    try:
        yield
    except ModelError as exc:
        raise CommandInputError(str(exc), "--model") from None


def _recogniser(model: Path | None):  # type: ignore[no-untyped-def]
    from vision.identify import DEFAULT_MODEL_DIR, Recogniser

    with _model_input():
        return Recogniser.load(model or DEFAULT_MODEL_DIR)


def _enroll(args: argparse.Namespace) -> int:
    from vision.enrol import EnrolError, enrol_folder

    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise CommandInputError("threshold must be between 0 and 1", "--threshold")
    try:
        summary: dict[str, object] = dict(enrol_folder(args.samples, args.out, args.threshold))
    except EnrolError as exc:
        raise CommandInputError(exc.message, exc.where) from None
    warnings = _enrolment_warnings(args.samples)
    if warnings:
        summary["warnings"] = warnings
        for warning in warnings:
            sys.stderr.write(f"mjtable: warning: {warning}\n")
    emit_json(summary)
    return 0


# Fewer photos of a kind than this leave its prototypes to one tile's look (docs/vision.md,
# "Enrolment"); a set has at least the 34 kinds that make sets.
FEW_PHOTOS = 3
FEWEST_KINDS = 34


def _enrolment_warnings(samples: Path) -> list[str]:
    """What an enrolment that worked still lacks: kinds with few photos, too few kinds."""
    from vision.capture import IMAGE_SUFFIXES
    from vision.enrol import label_of_folder

    photos: dict[str, int] = {}
    for folder in sorted(p for p in samples.iterdir() if p.is_dir() and p.name[0] != "."):
        label = label_of_folder(folder.name)
        photos[label] = sum(1 for f in folder.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
    warnings = []
    few = [label for label, count in photos.items() if count < FEW_PHOTOS]
    if few:
        warnings.append(f"fewer than {FEW_PHOTOS} photos of {' '.join(few)}: each is known by "
                        "that one tile's look")
    if len(photos) < FEWEST_KINDS:
        warnings.append(f"{len(photos)} kinds enrolled, a set has at least {FEWEST_KINDS}: "
                        "`mjtable doctor --check enrolled` lists the missing ones")
    return warnings


def _classify(args: argparse.Namespace) -> int:
    import cv2

    recogniser = _recogniser(args.model)
    readable: list[tuple[int, Any]] = []
    errors: dict[int, str] = {}
    for i, name in enumerate(args.images):
        path = Path(name)
        image = cv2.imread(name, cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            errors[i] = "no such file" if not path.exists() else "not a readable image"
        else:
            readable.append((i, image))
    identities = recogniser.identify([image for _, image in readable])
    by_index = {i: ident for (i, _), ident in zip(readable, identities, strict=True)}
    for i, name in enumerate(args.images):
        if i in errors:
            emit_json({"image": name, "tile": None, "error": errors[i]})
            continue
        ident = by_index[i]
        tile = ident.label if ident.label not in ("BLANK", "BACK") else None
        out: dict[str, object] = {
            "image": name,
            "tile": tile,
            "confidence": round(ident.confidence, 3),
        }
        if ident.label in ("BLANK", "BACK"):
            out["face_down" if ident.label == "BACK" else "blank"] = True
        emit_json(out)
    return 0


def _scan(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.calibration import Calibration, CalibrationError
    from vision.identify import DEFAULT_MODEL_DIR
    from vision.scan import FrameError, load_scanner

    try:
        calibration = Calibration.load(args.calibration)
    except CalibrationError as exc:
        raise CommandInputError(str(exc), "--calibration") from None
    with _model_input():  # the scan's threads set before the network loads, as the service's
        scanner = load_scanner(calibration, args.model or DEFAULT_MODEL_DIR)
    path = Path(args.image)
    frame = cv2.imread(args.image, cv2.IMREAD_COLOR) if path.is_file() else None
    if frame is None:
        reason = "no such file" if not path.exists() else "not a readable image"
        raise CommandInputError(f"{reason}: {args.image}", "IMAGE")
    start = time.perf_counter()
    try:
        with scanner:
            result = scanner.scan(np.asarray(frame, np.uint8))
    except FrameError as exc:
        raise CommandInputError(str(exc), "IMAGE") from None
    out = {
        "image": args.image,
        **result.to_json(),
        "seconds": round(time.perf_counter() - start, 4),
    }
    emit_json(out)
    return 0
