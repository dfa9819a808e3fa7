"""The broker exactly as deploy/ ships it, run as a real Mosquitto in a temporary folder.

deploy/make-certs.sh and deploy/mqtt-accounts.sh make the CA, the certificate and the accounts
as install.sh does; the shipped config and ACL are copied with only their paths and ports
changed (two tables on one broker, as at a club, plus the organiser)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from controller.broker import free_port, mosquitto_path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def lan_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        except OSError:
            return None
        address = str(sock.getsockname()[0])
    return None if address.startswith("127.") else address


class ShippedBroker:
    def __init__(self, folder: Path, tables: tuple[str, ...] = ("t1", "t2"),
                 replace: dict[str, str] | None = None) -> None:
        exe = mosquitto_path()
        assert exe is not None, "mosquitto is not installed (./dev setup installs it)"
        self.exe, self.dir = exe, folder
        self.lan = lan_address()
        self.certs = folder / "certs"
        subprocess.run([str(DEPLOY / "make-certs.sh"), str(self.certs), "table",
                        *([self.lan] if self.lan else [])], check=True, capture_output=True)
        self.secrets = folder / "secrets"
        self.passwd = folder / "passwd"
        self.account_output = ""
        for table in tables:
            done = subprocess.run(
                [str(DEPLOY / "mqtt-accounts.sh"), str(self.secrets), str(self.passwd), table,
                 "--organiser"], check=True, capture_output=True, text=True)
            self.account_output += done.stdout + done.stderr
        acl = folder / "acl"
        template = (DEPLOY / "mosquitto" / "mahjong-table.acl").read_text()
        acl.write_text("".join(template.replace("TABLE_ID", t) for t in tables)
                       + (DEPLOY / "mosquitto" / "organiser.acl").read_text())
        self.plain_port, self.tls_port = free_port(), free_port()
        conf = (DEPLOY / "mosquitto" / "mahjong-table.conf").read_text()
        for old, new in {
            "/etc/mosquitto/mahjong-table.passwd": str(self.passwd),
            "/etc/mosquitto/mahjong-table.acl": str(acl),
            "/etc/mosquitto/mahjong-table/": f"{self.certs}/",
            "listener 1883 127.0.0.1": f"listener {self.plain_port} 127.0.0.1",
            "listener 8883\n": f"listener {self.tls_port}\n",
            **(replace or {}),
        }.items():
            assert old in conf, f"the shipped config no longer has {old!r}"
            conf = conf.replace(old, new)
        # What Debian's own mosquitto.conf adds around conf.d (persistence on), and as root
        # (a test container) mosquitto must not drop to a user that cannot read this folder.
        conf += (f"persistence true\npersistence_location {folder}/\n"
                 f"log_dest file {folder}/mosquitto.log\nuser root\n")
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(conf)
        self.proc: subprocess.Popen[bytes] | None = None

    def password(self, user: str) -> str:
        return (self.secrets / f"{user}.password").read_text().strip()

    @property
    def ca(self) -> str:
        return str(self.certs / "ca.crt")

    def start(self) -> None:
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (self.dir / "mosquitto.log").read_text()
            try:
                with socket.create_connection(("127.0.0.1", self.plain_port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise AssertionError("mosquitto did not listen")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: no chance to save anything
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def rss_kib(self) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0


def running_as_root() -> bool:
    return os.getuid() == 0
