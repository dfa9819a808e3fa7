"""The `mjtable` command line.

Start-up time matters (scripts call `mjtable score` and `mjtable card check` once per hand), so
this module imports nothing heavy: it reads the command name, imports only that command's
module from `controller.commands`, and lets the module build its own arguments.

A command module provides::

    HELP: str                                   one line for `mjtable --help`
    def add_arguments(parser) -> None           its options
    def run(args) -> int                        the exit code

Bad input is reported by raising :class:`CommandInputError`: the contract (contracts.md) wants
exit code 2 and one JSON object ``{"error": ..., "where": ...}`` on stdout, a human message on
stderr, and never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

# name -> (module under controller.commands, one-line help). Sub-groups use "group.verb".
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play", "bots play whole hands under the full engine"),
    "replay": ("replay", "rebuild a hand from its event log and check it"),
    "export": ("export", "the games a table kept, with every hand's scoresheet (JSON or CSV)"),
    "score": ("score", "score and settle one finished hand (JSON in, JSON out)"),
    "card": ("card", "American cards: `card check` a hand, `card lint` a card file"),
    "emulate": ("emulate", "run the emulated table microcontroller on a pty"),
    "simulate": ("simulate", "a whole simulated table: board, camera, engine, MQTT, store"),
    "run": ("run", "the table service (systemd)"),
    "status": ("status", "the status of a running table service"),
    "config": ("config", "`config check FILE`: validate a table's configuration"),
    "calibrate": ("calibrate", "camera calibration from the corner markers"),
    "web": ("web", "`web passwd FILE`: the referee's password for the table's page"),
    "vision": ("vision", "`vision enroll|classify|scan`: tile recognition"),
    "enroll": ("enroll", "enrol the table's own tiles at the table, guided, with a check"),
    "doctor": ("doctor", "check the table's camera, markers, board, LEDs, broker, store, tiles"),
    "hub": ("hub", "the club hub: tables from the club broker into the club database"),
}


class CommandInputError(Exception):
    """Bad input to a command: exit 2 with ``{"error": error, "where": where}``."""

    def __init__(self, error: str, where: str = "") -> None:
        self.error = error
        self.where = where
        super().__init__(f"{where}: {error}" if where else error)


def emit_json(obj: object) -> None:
    """One JSON document on one line of stdout."""
    sys.stdout.write(json.dumps(obj, separators=(", ", ": "), ensure_ascii=False) + "\n")


def fail(error: str, where: str = "", code: int = 2) -> int:
    emit_json({"error": error, "where": where})
    place = f" ({where})" if where else ""
    sys.stderr.write(f"mjtable: {error}{place}\n")
    return code


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: mjtable COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "`mjtable COMMAND --help` for a command's options."]
    return "\n".join(lines)


def _load(name: str) -> ModuleType | None:
    module_name, _ = COMMANDS[name]
    try:
        return importlib.import_module(f"controller.commands.{module_name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"controller.commands.{module_name}":
            return None
        raise


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if args else 64
    name = args[0]
    if name not in COMMANDS:
        return fail(f"unknown command {name!r}; see `mjtable --help`", "argv[1]")
    module = _load(name)
    if module is None:
        return fail(f"command {name!r} is not available in this build", "argv[1]", code=1)
    parser = _ArgumentParser(prog=f"mjtable {name}", description=module.HELP)
    module.add_arguments(parser)
    try:
        parsed = parser.parse_args(args[1:])
        code: int = module.run(parsed)
    except CommandInputError as exc:
        return fail(exc.error, exc.where)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors through the JSON error contract (exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise CommandInputError(message, "arguments")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
