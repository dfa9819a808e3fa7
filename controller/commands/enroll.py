"""`mjtable enroll --config FILE --out DIR`: enrol the table's own tiles, guided, at the table.

    mjtable enroll --config /etc/mahjong-table/table.toml --out /var/lib/mahjong-table/tiles
    mjtable enroll --config table.toml --out DIR --frames shot1.png shot2.png shot3.png

The set is laid out in rows in the order of docs/build/enrolment.md; for each of ``--shots``
shots (3 by default; other tiles of the same kinds each time) the camera takes a photo when
Enter is pressed (or the ``--frames`` photos are used). Each tile is cut out and named by its
place; the last shot is held back and named by an enrolment of the others. Prints one JSON
object: ``{"model": DIR, "kinds": 42, "images": 126, "missing": [], "held_back": {"tiles": 42,
"right": 42, "accuracy": 1.0}, "doubtful": {}, "problems": {}}``. Exit 0 when every kind of
the set is enrolled, 1 when some are missing (the model holds the others), 2 on bad input.
Enrolment from a folder of photos stays `mjtable vision enroll`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json

HELP = "enrol the table's own tiles at the table: rows in order, shots, a held-back check"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR",
                        help="the model directory to write (camera.model)")
    parser.add_argument("--shots", type=int, default=3, metavar="N",
                        help="photos of the layout (default 3; the last is held back)")
    parser.add_argument("--frames", nargs="+", metavar="IMAGE",
                        help="use these photos as the shots instead of the camera")


def run(args: argparse.Namespace) -> int:
    from config.load import ConfigError, load_config
    from controller import guided_enrol
    from controller.table_geometry import table_geometry

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        first = exc.problems[0]
        raise CommandInputError(first.message, first.where) from None
    if not 2 <= args.shots <= 10:
        raise CommandInputError("2 to 10 shots (one is held back)", "--shots")
    if args.frames is not None and len(args.frames) < 2:
        raise CommandInputError("at least two photos (one is held back)", "--frames")
    kinds = guided_enrol.set_kinds(cfg.table.ruleset)
    rows = guided_enrol.layout_rows(kinds)
    geometry = table_geometry(cfg.camera)
    shots = [guided_enrol.cut_shot(frame, geometry, rows) for frame in _frames(args, cfg, rows)]
    if not any(shot.crops for shot in shots):
        problems = "; ".join(p for shot in shots for p in shot.problems)
        raise CommandInputError(f"no tile could be named in any shot: {problems}",
                                "--frames" if args.frames else "camera")
    try:
        summary = guided_enrol.enrol_shots(shots, kinds, args.out)
    except OSError as exc:
        raise CommandInputError(f"cannot write the model: {exc}", "--out") from None
    emit_json(summary)
    return 1 if summary["missing"] else 0


def _frames(args: argparse.Namespace, cfg: Any, rows: list[list[str]]) -> list[Any]:
    from vision.capture import CameraUnavailable, open_source, read_image

    if args.frames is not None:
        try:
            return [read_image(Path(name)) for name in args.frames]
        except CameraUnavailable as exc:
            raise CommandInputError(str(exc), "--frames") from None
    if cfg.camera.source == "none":
        raise CommandInputError("camera.source is none: give --frames", "camera.source")
    order = "\n".join(f"  row {n}: {' '.join(row)}" for n, row in enumerate(rows, 1))
    sys.stderr.write(
        "Lay one tile of each kind in rows across the table, from the far side (West) towards "
        f"East, each row left to right as East sees it, a finger's width apart:\n{order}\n"
    )
    frames = []
    try:
        source = open_source(cfg.camera.source, (cfg.camera.width, cfg.camera.height))
    except CameraUnavailable as exc:
        raise CommandInputError(str(exc), "camera.source") from None
    try:
        for shot in range(1, args.shots + 1):
            again = "" if shot == 1 else " (other tiles of the same kinds, same places)"
            sys.stderr.write(f"shot {shot} of {args.shots}{again}: press Enter when laid ")
            sys.stderr.flush()
            if not sys.stdin.readline():
                raise CommandInputError("input ended before the last shot", "stdin")
            frames.append(source.read())
    except CameraUnavailable as exc:
        raise CommandInputError(str(exc), "camera.source") from None
    finally:
        source.close()
    return frames
