"""A private Mosquitto for `mjtable simulate` and the tests: started on a free port, stopped
with the process that started it. Never the system's broker service."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class BrokerUnavailable(RuntimeError):
    """Mosquitto is not installed or would not start."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def mosquitto_path() -> str | None:
    return shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
    )


class LocalMosquitto:
    """``with LocalMosquitto() as broker:`` -> ``broker.host``, ``broker.port``.

    ``persistence=True`` keeps sessions and retained messages across :meth:`restart`, as the
    deployed broker does (deploy/mosquitto/mahjong-table.conf). ``extra`` is appended to the
    generated config (authentication, ACLs).
    """

    def __init__(
        self,
        port: int | None = None,
        persistence: bool = True,
        extra: str = "",
        workdir: str | Path | None = None,
    ) -> None:
        exe = mosquitto_path()
        if exe is None:
            raise BrokerUnavailable("mosquitto is not installed (apt-get install mosquitto)")
        self.exe = exe
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self._tmp = None if workdir else tempfile.TemporaryDirectory(prefix="mjtable-mosq-")
        self.dir = Path(workdir) if workdir else Path(self._tmp.name)  # type: ignore[union-attr]
        self.dir.mkdir(parents=True, exist_ok=True)
        self.conf = self.dir / "mosquitto.conf"
        lines = [
            f"listener {self.port} {self.host}",
            "allow_anonymous true" if "allow_anonymous" not in extra else "",
            f"persistence {'true' if persistence else 'false'}",
            f"persistence_location {self.dir}/",
            "autosave_interval 1",
            # As root mosquitto drops to user `mosquitto`, which could not write our temp dir.
            "user root",
            f"log_dest file {self.dir}/mosquitto.log",
            extra,
        ]
        self.conf.write_text("\n".join(line for line in lines if line) + "\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 5.0) -> None:
        self.proc = subprocess.Popen(
            [self.exe, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrokerUnavailable(
                    f"mosquitto exited with {self.proc.returncode}; see {self.dir}/mosquitto.log"
                )
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.01)
        self.stop()
        raise BrokerUnavailable(f"mosquitto did not listen on port {self.port} in {timeout} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> LocalMosquitto:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
