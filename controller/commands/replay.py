"""`mjtable replay events.jsonl`: rebuild every hand of a log and check it (docs/engine.md).

Each hand is rebuilt from its events (the trusted fold), compared with the recorded final
view and digest, and its commands are re-applied through the checked engine, which must accept
every one and reach the same state. A malformed log exits 2 naming the line and the field.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from controller.cli import CommandInputError, emit_json

if TYPE_CHECKING:
    from config.cards import CompiledCard

HELP = "rebuild a hand from its event log and check it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="EVENTS.jsonl|STORE",
                        help="a log written by `mjtable play --log` ('-' for stdin), or a "
                        "table's store")
    parser.add_argument("--card", metavar="FILE", default="",
                        help="the American card the log was played on (default: the bundled "
                             "card)")


def run(args: argparse.Namespace) -> int:
    from engine.errors import MalformedInput
    from engine.players import replay

    if args.log != "-" and _is_store(args.log):
        from controller.commands.replay_store import replay_store

        report = replay_store(args.log)
        emit_json(report)
        return 0 if not report["mismatches"] else 1
    try:
        if args.log == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.log, encoding="utf-8") as f:
                lines = f.read().splitlines()
    except OSError as exc:
        raise CommandInputError(f"cannot read the log: {exc.strerror}", args.log) from None
    except UnicodeDecodeError:
        raise CommandInputError("the log is not UTF-8 text", args.log) from None
    try:
        report = replay(lines, card=lambda: _card(args.card))
    except MalformedInput as exc:
        raise CommandInputError(exc.message, exc.where) from None
    emit_json(report)
    return 0 if not report["mismatches"] else 1


def _is_store(path: str) -> bool:
    from controller.commands.export import SQLITE_MAGIC

    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False  # the log's own reading says what is wrong


def _card(path: str) -> CompiledCard:
    """The card a log of a family played from one was played on (`--card`, else bundled)."""
    from config.cards import CardError, card_at

    try:
        return card_at(path)
    except (CardError, OSError) as exc:
        raise CommandInputError(f"the American card does not load: {exc}", "--card") from None
