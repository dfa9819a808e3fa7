"""The club's deploy files: the hub's systemd unit lints clean and stays sandboxed, the
install scripts parse and refuse bad input. The broker's config and ACL run on a real
Mosquitto in test_club_broker.py."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNIT = DEPLOY / "club" / "mahjong-hub.service"
# `systemd-analyze security --offline=true` of the hub's unit (lower is safer): 1.4 as
# shipped. It may fall, never rise.
EXPOSURE_LIMIT = 1.4


def _lintable(tmp_path: Path) -> Path:
    # The real ExecStart and EnvironmentFile live on the hub machine: point them at files
    # that exist here, keep the rest as shipped.
    env = tmp_path / "hub.env"
    env.write_text("MJTABLE_HUB_DB=/tmp/club.db\nMJTABLE_HUB_ID=hub\nMJTABLE_HUB_WEB=0.0.0.0:8080\nMJTABLE_HUB_ORGANISER=/tmp/organiser.scrypt\n")
    text = re.sub(r"^ExecStart=\S+", "ExecStart=/bin/true", UNIT.read_text(), flags=re.M)
    text = text.replace("/etc/mahjong-hub/hub.env", str(env))
    unit = tmp_path / "mahjong-hub.service"
    unit.write_text(text)
    return unit


def test_the_hub_unit_runs_mjtable_hub_and_stops_it_with_sigterm() -> None:
    text = UNIT.read_text()
    assert re.search(r"^ExecStart=\S+/mjtable hub --mqtt 127\.0\.0\.1:1883 --db", text, re.M)
    assert "KillSignal=SIGTERM" in text and "User=mahjong-hub" in text
    # the club page is served by the same process, at the address install.sh writes
    # and the organiser's desk on it, signed in with the password install.sh hashes
    assert re.search(r"^ExecStart=.* --web \$\{MJTABLE_HUB_WEB\} "
                     r"--organiser-password-file \$\{MJTABLE_HUB_ORGANISER\}$", text, re.M)
    install = (DEPLOY / "club" / "install.sh").read_text()
    assert "MJTABLE_HUB_WEB=" in install and "MJTABLE_HUB_ORGANISER=" in install
    assert re.search(r"mjtable\" web passwd \S+ < \S+organiser\.password", install)


def test_the_hub_unit_passes_systemd_analyze(tmp_path: Path) -> None:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.skip("systemd-analyze not installed")
    unit = _lintable(tmp_path)
    done = subprocess.run([exe, "verify", "--man=no", str(unit)], capture_output=True,
                          text=True, timeout=60)
    problems = [line for line in done.stderr.splitlines()
                if "mahjong-hub.service" in line and "mosquitto.service" not in line
                and "postgresql.service" not in line and "User" not in line]
    assert problems == []
    done = subprocess.run([exe, "security", "--offline=true", "--no-pager", str(unit)],
                          capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for mahjong-hub.service: (\d+\.\d+)",
                      done.stdout)
    assert found, done.stdout + done.stderr
    assert float(found.group(1)) <= EXPOSURE_LIMIT


@pytest.mark.parametrize("script", ["club/install.sh", "club/club-accounts.sh", "install.sh",
                                    "mqtt-users.sh"])
def test_the_install_scripts_parse(script: str) -> None:
    assert subprocess.run(["bash", "-n", str(DEPLOY / script)], timeout=10).returncode == 0


def test_no_secret_is_an_argument_or_shown() -> None:
    # a secret on a command line is visible to every user in `ps`
    for script in ("club/install.sh", "club/club-accounts.sh", "install.sh", "mqtt-users.sh"):
        text = (DEPLOY / script).read_text()
        assert "mosquitto_passwd -b" not in text and "password $" not in text, script
        assert "PASSWORD=$" not in text, script


def test_club_accounts_refuse_a_table_named_like_a_role(tmp_path: Path) -> None:
    for bad in ("hub", "club", "bad/id"):
        done = subprocess.run([str(DEPLOY / "club" / "club-accounts.sh"), str(tmp_path / "s"),
                               str(tmp_path / "p"), "t1", bad], capture_output=True,
                              text=True, timeout=10)
        assert done.returncode == 64 and bad in done.stderr
    assert not (tmp_path / "p").exists()
