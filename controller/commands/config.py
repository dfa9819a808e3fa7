"""`mjtable config check FILE`: validate a table's configuration."""

from __future__ import annotations

import argparse
import sys

from controller.cli import CommandInputError, emit_json

HELP = "`config check FILE`: validate a table's configuration"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    check = sub.add_parser("check", help="validate a table file and print its summary")
    check.add_argument("file", help="the table's TOML file")


def run(args: argparse.Namespace) -> int:
    from config.load import ConfigError, check_files, load_config

    try:
        cfg = load_config(args.file)
        problems = check_files(cfg, args.file)
        if problems:
            raise ConfigError(problems)
    except ConfigError as exc:
        # Every problem on stderr; the first one is the contract's error object.
        for problem in exc.problems[1:]:
            sys.stderr.write(f"mjtable: {problem}\n")
        first = exc.problems[0]
        more = f" (and {len(exc.problems) - 1} more, listed on stderr)" if exc.problems[1:] else ""
        raise CommandInputError(first.message + more, first.where) from None
    check_card(cfg.table.ruleset, cfg.table.card, args.file)
    emit_json(
        {
            "ok": True,
            "file": args.file,
            "table": cfg.table.id,
            "ruleset": cfg.table.ruleset,
            "input": "gpio" if cfg.gpio.enabled else f"board {cfg.board.serial}",
            "camera": cfg.camera.source,
            "mqtt": f"{cfg.mqtt.host}:{cfg.mqtt.port}" if cfg.mqtt.enabled else None,
            "store": cfg.store.path,
        }
    )
    return 0


def check_card(ruleset: str, path: str, config_file: str) -> None:
    """A table played from a card adjudicates against it: one that does not load (its
    ``table.card``, else the bundled card) stops the table here, naming the file's key."""
    from config.cards import CardError, card_for

    try:
        card_for(ruleset, path)
    except (CardError, OSError) as exc:
        raise CommandInputError(f"the American card does not load: {exc}",
                                f"{config_file}: table.card") from None
