"""`mjtable doctor --config FILE`: checks each part of a table the build guide sets up.

    mjtable doctor --config /etc/mahjong-table/table.toml
    mjtable doctor --config table.toml --check board --check leds

Prints one JSON line per check, in the guide's order: ``{"check": "camera", "status": "ok",
"message": "...", ...}`` with status ``ok``, ``warn``, ``fail`` or ``skipped``: camera,
markers (and the tile's width in camera pixels), board (firmware version), leds (each segment
lit in turn), broker, store, enrolled (the table's own tile set). Exits 1 if any check failed,
0 otherwise; 2 with ``{"error", "where"}`` for a table file it cannot use. Stop the service
first (`systemctl stop mahjong-table`): the board and the camera take one user at a time.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from controller.cli import CommandInputError, emit_json

HELP = "check the table's camera, markers, board, LEDs, broker, store and enrolled tiles"
CHECKS = ("camera", "markers", "board", "leds", "broker", "store", "enrolled")
DEFAULT_CONFIG = "/etc/mahjong-table/table.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default=DEFAULT_CONFIG, metavar="FILE",
                        help=f"the table's TOML file (default {DEFAULT_CONFIG})")
    parser.add_argument("--check", action="append", choices=CHECKS, metavar="NAME",
                        help=f"only these checks (repeatable): {', '.join(CHECKS)}")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="S",
                        help="how long to wait for the board and the broker (default 5 s)")
    parser.add_argument("--led-step", type=float, default=0.4, metavar="S",
                        help="how long each LED segment stays lit (default 0.4 s)")


def run(args: argparse.Namespace) -> int:
    from config.load import ConfigError, load_config
    from controller import doctor_checks as checks

    if not 0 < args.timeout <= 60:
        raise CommandInputError("0 to 60 seconds", "--timeout")
    if not 0 <= args.led_step <= 10:
        raise CommandInputError("0 to 10 seconds", "--led-step")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        first = exc.problems[0]
        raise CommandInputError(first.message, first.where) from None
    ctx = checks.Context(cfg, timeout_s=args.timeout, led_step_s=args.led_step)
    wanted = set(args.check or CHECKS)
    steps: list[tuple[set[str], Callable[[checks.Context], object]]] = [
        ({"camera", "markers"}, checks.check_camera),
        ({"markers"}, checks.check_markers),
        ({"board", "leds"}, checks.check_board_and_leds),
        ({"broker"}, checks.check_broker),
        ({"store"}, checks.check_store),
        ({"enrolled"}, checks.check_enrolled),
    ]
    failed = False
    for needs, step in steps:
        if not needs & wanted:
            continue
        answer = step(ctx)
        for finding in answer if isinstance(answer, list) else [answer]:
            assert isinstance(finding, checks.Finding)
            if finding.check not in wanted:
                continue  # run for a later check (the frame for the markers)
            failed |= finding.status == "fail"
            emit_json(finding.as_json())
    return 1 if failed else 0
