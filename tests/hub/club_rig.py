"""A club on loopback ports: a club Mosquitto, tables each with their own Mosquitto bridged to
it by the shipped bridge config (deploy/mosquitto/club-bridge.conf), `mjtable simulate`
playing at each table, and `mjtable hub` as a process."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from controller.broker import LocalMosquitto

ROOT = Path(__file__).resolve().parents[2]
MJTABLE = str(Path(sys.executable).with_name("mjtable"))
BRIDGE = ROOT / "deploy" / "mosquitto" / "club-bridge.conf"
# What the table's deployed broker adds to the bridge (deploy/mosquitto/mahjong-table.conf).
TABLE_BROKER = "autosave_on_changes true\nmax_queued_messages 10000\n"


def bridge_config(table: str, club_port: int) -> str:
    """The shipped bridge, as install.sh writes it for a club broker on loopback."""
    return (BRIDGE.read_text().replace("TABLE_ID", table).replace("CLUB_HOST", "127.0.0.1")
            .replace("CLUB_PORT", str(club_port)))


def store_seq(path: Path) -> int:
    """The last seq a table's store holds (0 before its first event)."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


@dataclass
class Table:
    id: str
    names: str
    args: list[str]
    broker: LocalMosquitto
    store: Path
    proc: subprocess.Popen[str] | None = None

    def play(self, log: IO[str]) -> None:
        self.proc = subprocess.Popen(
            [MJTABLE, "simulate", "--headless", "--mqtt", f"127.0.0.1:{self.broker.port}",
             "--table", self.id, "--names", self.names, "--store", str(self.store),
             *self.args], stdout=subprocess.PIPE, stderr=log, text=True)

    def summary(self, timeout: float) -> dict[str, Any]:
        assert self.proc is not None
        out, _ = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, f"table {self.id} exited {self.proc.returncode}"
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return result

    def export(self) -> list[dict[str, Any]]:
        done = subprocess.run([MJTABLE, "export", "--store", str(self.store), "--format",
                               "json"], capture_output=True, text=True, check=True, timeout=60)
        games: list[dict[str, Any]] = json.loads(done.stdout)["games"]
        return games


@dataclass
class Club:
    dir: Path
    club: LocalMosquitto = field(init=False)
    db: Path = field(init=False)
    tables: list[Table] = field(default_factory=list)
    hub: subprocess.Popen[bytes] | None = None
    hub_id: str = "club-test"

    def __post_init__(self) -> None:
        self.db = self.dir / "club.db"
        self.club = LocalMosquitto(workdir=self.dir / "club-broker",
                                   extra="autosave_on_changes true\nmax_queued_messages 50000")

    def add_table(self, table: str, names: str, *args: str) -> Table:
        broker = LocalMosquitto(workdir=self.dir / f"broker-{table}",
                                extra=TABLE_BROKER + bridge_config(table, self.club.port))
        broker.start()
        entry = Table(table, names, list(args), broker, self.dir / f"{table}.db")
        self.tables.append(entry)
        return entry

    def start_hub(self) -> None:
        log = (self.dir / "hub.log").open("a")
        self.hub = subprocess.Popen(
            [MJTABLE, "hub", "--mqtt", f"127.0.0.1:{self.club.port}", "--db", str(self.db),
             "--id", self.hub_id], stdout=log, stderr=log)

    def kill_hub(self) -> None:
        assert self.hub is not None
        os.kill(self.hub.pid, signal.SIGKILL)
        self.hub.wait(10)

    def stop_hub(self) -> int:
        assert self.hub is not None
        self.hub.send_signal(signal.SIGTERM)
        return self.hub.wait(20)

    def close(self) -> None:
        for table in self.tables:
            if table.proc is not None and table.proc.poll() is None:
                table.proc.kill()
                table.proc.wait()
            table.broker.close()
        if self.hub is not None and self.hub.poll() is None:
            self.hub.kill()
            self.hub.wait()
        self.club.close()
