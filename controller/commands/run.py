"""`mjtable run --config FILE`: the table service, as systemd runs it.

Type=notify: READY=1 once the store is recovered and the links are opening; STATUS= lines for
`systemctl status`; WATCHDOG=1 from the main loop at half the interval systemd asks for
(WATCHDOG_USEC), so a stuck loop gets the service restarted. SIGTERM stops it cleanly:
the outbox gets a moment to drain and the status topic says offline.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli import CommandInputError
from controller.commands.config import check_card

if TYPE_CHECKING:
    from config.schema import TableConfig
    from controller.mqtt import BrokerSettings
    from controller.service import Service

HELP = "the table service (systemd)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    parser.add_argument("--store", metavar="PATH", help="override [store] path")
    parser.add_argument("--board", metavar="URL", help="override [board] serial ('' for none)")
    parser.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING")


class Notifier:
    """sd_notify through `sdnotify`; silent without NOTIFY_SOCKET (a terminal, a test)."""

    def __init__(self) -> None:
        import sdnotify  # type: ignore[import-untyped]

        self._n = sdnotify.SystemdNotifier()
        usec = int(os.environ.get("WATCHDOG_USEC", "0") or 0)
        self.interval = usec / 2e6 if usec else 0.0
        self._next = 0.0

    def send(self, text: str) -> None:
        self._n.notify(text)

    def tick(self) -> None:
        if self.interval and time.monotonic() >= self._next:
            self._n.notify("WATCHDOG=1")
            self._next = time.monotonic() + self.interval


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(levelname)s %(name)s: %(message)s",
    )
    cfg = _config(args.config)
    store = args.store or cfg.store.path
    if not store:
        raise CommandInputError("no store path: set [store] path or --store", "store.path")
    broker = _broker(cfg, args.config)
    board = cfg.board.serial if args.board is None else args.board
    emulated = None
    if board == "emulated":  # the bridge's emulator on a pty, as `mjtable simulate` uses
        from firmware_bridge.emulator import EmulatedBoard

        emulated = EmulatedBoard(link_path=Path(store).with_name("mahjong-mcu"))
        board = emulated.start()
    try:
        _serve(_service(cfg, store, board, broker), args.config)
    finally:
        if emulated is not None:
            emulated.stop()
    return 0


def _config(path: str) -> TableConfig:
    """The table's configuration, its card loaded if it is played from one."""
    from config.load import ConfigError, load_config

    try:
        cfg = load_config(path)
    except ConfigError as exc:
        first = exc.problems[0]
        raise CommandInputError(first.message, first.where) from None
    check_card(cfg.table.ruleset, cfg.table.card, path)
    return cfg


def _broker(cfg: TableConfig, path: str) -> BrokerSettings | None:
    from controller.service import broker_of

    try:
        broker = broker_of(cfg)
    except OSError as exc:
        raise CommandInputError(f"cannot read: {exc.strerror}", "mqtt.password_file") from None
    if broker is not None and broker.ca_file:
        from config.load import ca_file_problem

        if problem := ca_file_problem(broker.ca_file):
            raise CommandInputError(problem, f"{path}: mqtt.ca_file")
    return broker


def _service(cfg: TableConfig, store: str, board: str, broker: BrokerSettings | None) -> Service:
    from controller.scoresheet import engine_scorer
    from controller.service import Service, ServiceOptions
    from controller.store import StoreError

    try:
        return Service(
            cfg,
            ServiceOptions(
                store_path=store,
                board_url=board or None,
                broker=broker,
                client_id=cfg.table.id,
                scorer=engine_scorer,
                status_file=status_path(store),
            ),
        )
    except StoreError as exc:
        raise CommandInputError(str(exc), "store.path") from None


def _serve(service: Service, path: str) -> None:
    """Run the service until SIGTERM or SIGINT, telling systemd how it goes."""
    from controller.service import ServiceStartError

    notifier = Notifier()
    table_id = service.cfg.table.id

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)

        def ready() -> None:
            notifier.send("READY=1")
            notifier.send(f"STATUS=table {table_id}: seq {service.table.seq}, "
                          f"hand {service.table.hand_no}")

        await service.run(stop, on_ready=ready, on_tick=notifier.tick)
        notifier.send("STOPPING=1")

    try:
        asyncio.run(main())
    except ServiceStartError as exc:
        raise CommandInputError(str(exc), f"{path}: {exc.key}") from None


def status_path(store: str) -> str:
    return str(Path(store).with_name(Path(store).name + ".status.json"))
