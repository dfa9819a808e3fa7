"""A private PostgreSQL for the tests: Debian's server binaries, a cluster made in a temporary
folder, listening only on a Unix socket there; stopped and deleted afterwards. Never the
system's cluster."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    """PostgreSQL's server is not installed or would not start."""


def bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class LocalPostgres:
    """``with LocalPostgres() as pg:`` -> ``pg.url`` (SQLAlchemy, psycopg 3)."""

    def __init__(self) -> None:
        found = bin_dir()
        if found is None:
            raise PostgresUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = found
        self._tmp = tempfile.TemporaryDirectory(prefix="mjtable-pg-")
        self.dir = Path(self._tmp.name)
        self.data = self.dir / "data"
        self.port = 5432
        # The server refuses to run as root: as root, run it as Debian's `postgres` user.
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise PostgresUnavailable(f"{args[0]} failed: {done.stderr.strip()[-400:]}")

    def start(self) -> None:
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-U", "club", "--auth=trust",
                      "--encoding=UTF8", "--no-sync")
        options = (f"-k {self.dir} -p {self.port} -c listen_addresses='' -c fsync=off "
                   "-c max_connections=20 -c shared_buffers=16MB")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.dir / "server.log"), "-w", "-t", "30", "start")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://club@/postgres?host={self.dir}&port={self.port}"

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def __enter__(self) -> LocalPostgres:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
            self._tmp.cleanup()
