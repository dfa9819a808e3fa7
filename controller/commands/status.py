"""`mjtable status --config FILE`: what a table service is doing, from its store and the
status file it rewrites every second (no network needed)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json

HELP = "the status of a running table service"
STALE_S = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="the table's TOML file")
    parser.add_argument("--store", metavar="PATH", help="the store (default: from the config)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run(args: argparse.Namespace) -> int:
    store = args.store
    if store is None:
        if args.config is None:
            raise CommandInputError("give --config FILE or --store PATH", "arguments")
        from config.load import ConfigError, load_config

        try:
            store = load_config(args.config).store.path
        except ConfigError as exc:
            first = exc.problems[0]
            raise CommandInputError(first.message, first.where) from None
    if not Path(store).exists():
        raise CommandInputError("no store here: the service has never run with it", store)
    from controller.commands.run import status_path
    from controller.store import EventStore, StoreError

    out: dict[str, Any] = {"store": store}
    try:
        db = EventStore(store)
    except StoreError as exc:
        raise CommandInputError(str(exc), store) from None
    try:
        out["seq"] = db.last_seq()
        out["outbox"] = db.outbox_size()
        snapshot = db.latest_snapshot()
        out["hand"] = snapshot[1]["hand"] if snapshot else 0
        out["totals"] = snapshot[1]["totals"] if snapshot else {}
    finally:
        db.close()
    live: dict[str, Any] = {}
    with contextlib.suppress(OSError, json.JSONDecodeError):  # not running, or never ran
        live = json.loads(Path(status_path(store)).read_text())
    age = time.time() - float(live.get("updated", 0)) if live else None
    running = bool(live) and age is not None and age < STALE_S and _alive(int(live["pid"]))
    out["running"] = running
    if live:
        out["service"] = live
        out["status_age_s"] = round(age or 0.0, 1)
    emit_json(out)
    return 0 if running else 3
