"""`mjtable calibrate`: the camera's view of the table from the four corner markers.

    mjtable calibrate --print-markers markers.pdf        a printable A4 sheet of the markers
                                                         (.pdf, or .png carrying its DPI)
    mjtable calibrate --out calibration.json IMAGE       from a photo of the table
    mjtable calibrate --out calibration.json --source v4l2:0    from the camera, now
    mjtable calibrate --out calibration.json --source picamera2 --size 2304x1296

Prints ``{"calibration": FILE, "reprojection_error_px": 0.4, "image_size": [1920, 1080],
"markers": 4}``. A bad calibration (a marker missing, reprojection error above
``--max-error``) is refused with the reason and exit 2; nothing is written.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json

HELP = "camera calibration from the corner markers (`--print-markers` for the sheet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", nargs="?", metavar="IMAGE", help="a photo of the table")
    parser.add_argument("--out", type=Path, metavar="FILE", help="where to write the calibration")
    parser.add_argument(
        "--source",
        metavar="SPEC",
        help="take the photo now: picamera2, v4l2:N, file:PATH or render:SEED",
    )
    parser.add_argument(
        "--size",
        metavar="WxH",
        help="with --source: the frame to ask of the camera, as the table's camera.width and "
        "camera.height (default 1920x1080)",
    )
    parser.add_argument(
        "--geometry",
        type=Path,
        metavar="FILE",
        help="JSON table geometry (size, markers, tile size, zones)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="the table file: its [camera] table_mm, marker_mm, marker_inset_mm and tile size",
    )
    parser.add_argument(
        "--max-error",
        type=float,
        default=2.0,
        metavar="PX",
        help="refuse a calibration whose reprojection error is larger (px)",
    )
    parser.add_argument(
        "--print-markers",
        type=Path,
        metavar="FILE",
        help="write the printable A4 marker sheet (.pdf or .png, true scale) and stop",
    )
    parser.add_argument(
        "--dpi", type=int, default=300, help="with --print-markers: dots per inch (default 300)"
    )


def run(args: argparse.Namespace) -> int:
    from controller.printable import write_sheet
    from vision.calibration import CalibrationError, calibrate, marker_sheet
    from vision.capture import DEFAULT_FRAME_SIZE, CameraUnavailable, open_source, read_image

    geometry = _geometry(args)
    if args.print_markers is not None:
        if not 72 <= args.dpi <= 1200:
            raise CommandInputError(f"72 to 1200 dots per inch, got {args.dpi}", "--dpi")
        try:
            write_sheet(marker_sheet(geometry, args.dpi), args.print_markers, args.dpi)
        except (OSError, ValueError) as exc:
            raise CommandInputError(
                f"cannot write the marker sheet: {exc}", "--print-markers"
            ) from None
        emit_json(
            {
                "markers": str(args.print_markers),
                "ids": list(geometry.marker_ids),
                "size_mm": geometry.marker_mm,
                "dpi": args.dpi,
                "print": "A4 at actual size (100 %, no fitting to the page)",
            }
        )
        return 0
    if args.out is None:
        raise CommandInputError("--out FILE is required to write a calibration", "--out")
    if (args.image is None) == (args.source is None):
        raise CommandInputError("give either IMAGE or --source", "IMAGE")
    size = DEFAULT_FRAME_SIZE
    if args.size is not None:
        if args.source is None:
            raise CommandInputError("--size goes with --source (a photo has its own)", "--size")
        size = _frame_size(args.size)
    try:
        if args.image is not None:
            frame = read_image(Path(args.image))
        else:
            source = open_source(args.source, size)
            try:
                frame = source.read()
            finally:
                source.close()
    except CameraUnavailable as exc:
        raise CommandInputError(str(exc), "IMAGE" if args.image else "--source") from None
    try:
        calibration = calibrate(frame, geometry, args.max_error)
    except CalibrationError as exc:
        raise CommandInputError(str(exc), "IMAGE" if args.image else "--source") from None
    try:
        calibration.save(args.out)
    except OSError as exc:
        raise CommandInputError(f"cannot write the calibration: {exc}", "--out") from None
    emit_json(
        {
            "calibration": str(args.out),
            "reprojection_error_px": round(calibration.reprojection_error_px, 3),
            "image_size": list(calibration.image_size),
            "markers": len(geometry.marker_ids),
        }
    )
    return 0


def _geometry(args: argparse.Namespace) -> Any:
    """The table's geometry: from --geometry (JSON), --config (the table file) or the
    defaults (a 900 mm table, a Chinese set)."""
    from vision.geometry import TableGeometry

    if args.geometry is not None and args.config is not None:
        raise CommandInputError("give --geometry or --config, not both", "--geometry")
    if args.config is not None:
        from config.load import ConfigError, load_config
        from controller.table_geometry import table_geometry

        try:
            return table_geometry(load_config(args.config).camera)
        except ConfigError as exc:
            raise CommandInputError(str(exc), "--config") from None
    if args.geometry is not None:
        try:
            return TableGeometry.from_json(json.loads(args.geometry.read_text("utf-8")))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, TypeError, ValueError) as exc:
            raise CommandInputError(f"cannot use the geometry file: {exc}", "--geometry") from None
    return TableGeometry()


def _frame_size(text: str) -> tuple[int, int]:
    """``WxH``, within the bounds the table configuration sets camera.width and height."""
    from pydantic import ValidationError

    from config.schema import CameraSection

    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise CommandInputError(f"expected WIDTHxHEIGHT (e.g. 2304x1296), got {text!r}", "--size")
    try:
        camera = CameraSection(width=int(width), height=int(height))
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise CommandInputError(
            f"{problem['loc'][0]} {problem['msg'].lower()}, got {text!r}", "--size"
        ) from None
    return camera.width, camera.height
