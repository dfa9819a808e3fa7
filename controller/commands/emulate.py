"""`mjtable emulate`: the emulated table board on a pty, scripted by JSON lines on stdin.

See docs/protocol.md, section 14, for the operations.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from controller.cli import CommandInputError, emit_json

if TYPE_CHECKING:
    from firmware_bridge.emulator import EmulatedBoard

HELP = "run the emulated table microcontroller on a pty"

_DICE = {"none": 0, "led": 1, "roller": 2, "sensed": 3}
_FAULTS = ("bit_flip", "drop_frame", "drop_byte", "truncate", "garbage")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--link", help="stable path for the port (a symlink to the pty)")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--buttons", type=int, default=4, help="buttons per seat")
    parser.add_argument(
        "--segments", default="18,18,18,18,24,72", help="LED count of each segment, comma-separated"
    )
    parser.add_argument("--dice", choices=sorted(_DICE), default="led")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--random-presses", type=float, default=0.0, metavar="RATE", help="random clicks per second"
    )
    parser.add_argument(
        "--random-sensors",
        type=float,
        default=0.0,
        metavar="RATE",
        help="random sensor readings per second",
    )
    for name in _FAULTS:
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=float,
            default=0.0,
            metavar="P",
            help=f"probability per frame of {name.replace('_', ' ')}",
        )
    parser.add_argument("--latency-ms", type=float, default=0.0, help="a slow board")
    parser.add_argument("--duration", type=float, default=None, help="stop after S seconds")


def _probability(value: float, where: str) -> float:
    if not 0.0 <= value <= 1.0:
        raise CommandInputError(f"{value} is not a probability in [0, 1]", where)
    return value


def _board(args: argparse.Namespace) -> EmulatedBoard:
    from firmware_bridge.board import BoardSpec
    from firmware_bridge.emulator import EmulatedBoard, Faults

    try:
        segments = [int(s) for s in args.segments.split(",") if s.strip()]
    except ValueError:
        raise CommandInputError(
            f"{args.segments!r} is not a comma-separated list of LED counts", "--segments"
        ) from None
    if not 1 <= len(segments) <= 32 or any(not 1 <= n <= 1000 for n in segments):
        raise CommandInputError("1 to 32 segments of 1 to 1000 LEDs each", "--segments")
    if not 1 <= args.seats <= 8:
        raise CommandInputError(f"{args.seats} seats: 1 to 8", "--seats")
    if not 1 <= args.buttons <= 8:
        raise CommandInputError(f"{args.buttons} buttons: 1 to 8 per seat", "--buttons")
    for option in ("random_presses", "random_sensors", "latency_ms", "duration"):
        value = getattr(args, option)
        if value is not None and not value >= 0:
            raise CommandInputError(f"{value} is negative", "--" + option.replace("_", "-"))
    faults = Faults()
    for name in _FAULTS:
        setattr(faults, name, _probability(getattr(args, name), f"--{name.replace('_', '-')}"))
    info = BoardSpec(
        seats=args.seats,
        buttons_per_seat=args.buttons,
        segments=segments,
        dice_kind=_DICE[args.dice],
        board_id=f"emulated-{os.getpid()}",
    )
    if args.link and not os.path.isdir(os.path.dirname(os.path.abspath(args.link))):
        raise CommandInputError(f"folder of {args.link!r} does not exist", "--link")
    board = EmulatedBoard(spec=info, link_path=args.link, faults=faults, seed=args.seed)
    board.latency_s = max(0.0, args.latency_ms / 1000)
    return board


def _int(cmd: dict[str, Any], key: str) -> int:
    value = cmd.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key!r} must be an integer, got {value!r}")
    return value


def handle(board: EmulatedBoard, cmd: object) -> dict[str, Any]:
    """One scripted operation; ValueError names what was wrong."""
    from firmware_bridge.emulator import Faults

    if not isinstance(cmd, dict):
        raise ValueError('each line must be a JSON object with an "op"')
    op = cmd.get("op")
    if op in ("press", "release", "click"):
        seat, button = _int(cmd, "seat"), _int(cmd, "button")
        getattr(board, op)(seat, button)
        return {"ok": True, "op": op}
    if op == "burst":
        count = _int(cmd, "count")
        rate = cmd.get("rate")
        if rate is not None and (not isinstance(rate, int | float) or rate <= 0):
            raise ValueError(f"'rate' must be a positive number, got {rate!r}")
        board.burst(count, rate)
        return {"ok": True, "op": op}
    if op == "sensor":
        board.sensor(_int(cmd, "kind"), _int(cmd, "zone"), _int(cmd, "value"))
        return {"ok": True, "op": op}
    if op == "dice":
        values = cmd.get("values")
        if not isinstance(values, list) or not all(
            isinstance(v, int) and 1 <= v <= 6 for v in values
        ):
            raise ValueError(f"'values' must be a list of dice values 1-6, got {values!r}")
        board.dice_result(values)
        return {"ok": True, "op": op}
    if op == "leds":
        segment = _int(cmd, "segment")
        return {
            "segment": segment,
            "pixels": [list(p) for p in board.leds(segment)],
            "animation": board.animation(segment),
        }
    if op == "dice_shown":
        return {"dice_shown": list(board.dice_shown)}
    if op in ("unplug", "replug", "stall", "resume", "reboot"):
        getattr(board, op)()
        return {"ok": True, "op": op, "link": board.path}
    if op == "faults":
        probs = {n: float(cmd.get(n, 0.0)) for n in _FAULTS}
        for name, p in probs.items():
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name!r} = {p} is not a probability in [0, 1]")
        faults = Faults()
        for name, p in probs.items():
            setattr(faults, name, p)
        board.faults = faults
        return {"ok": True, "op": op}
    if op == "stats":
        return board.stats()
    if op == "cpu":
        return {"cpu_s": round(time.process_time(), 4)}
    if op == "quit":
        return {"ok": True, "op": op}
    raise ValueError(f"unknown op {op!r}")


def run(args: argparse.Namespace) -> int:
    board = _board(args)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        board.start()
    except OSError as exc:
        raise CommandInputError(f"cannot create the port: {exc}", "--link") from None
    try:
        if args.random_presses > 0:
            board.random_presses(args.random_presses)
        if args.random_sensors > 0:
            board.random_sensors(args.random_sensors)
        emit_json(
            {
                "link": board.path,
                "pty": board.pty_name,
                "board_epoch_us": board.board_epoch_us,
                "pid": os.getpid(),
            }
        )
        sys.stdout.flush()
        reader = threading.Thread(target=_read_stdin, args=(board, stop), daemon=True)
        reader.start()
        deadline = None if args.duration is None else time.monotonic() + args.duration
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            stop.wait(0.1)
    finally:
        board.stop()
    return 0


def _read_stdin(board: EmulatedBoard, stop: threading.Event) -> None:
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        cmd: object = None
        try:
            try:
                cmd = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"not JSON: {exc}") from None
            reply = handle(board, cmd)
        except Exception as exc:  # a bad line is answered; the board keeps running
            reply = {"error": str(exc) or type(exc).__name__, "where": f"stdin line {number}"}
        emit_json(reply)
        sys.stdout.flush()
        if isinstance(cmd, dict) and cmd.get("op") == "quit" and "error" not in reply:
            stop.set()
            return
