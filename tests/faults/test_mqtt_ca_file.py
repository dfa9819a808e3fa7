"""`mqtt.ca_file`: a table reaches a broker over TLS that a local CA vouches for (the shipped
Mosquitto's, made by deploy/make-certs.sh, as a club's broker is), and trusts no other. The
real `mjtable run` against the broker exactly as deploy/ ships it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.faults.mqtt_probe import Probe
from tests.faults.shipped_broker import DEPLOY, ShippedBroker
from tests.faults.test_end_to_end import Service
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]


def _config(folder: Path, broker: ShippedBroker, mqtt: str) -> tuple[Path, Path]:
    (folder / "pw").write_text(broker.password("t1"))
    store = folder / "t.sqlite3"
    config = folder / "table.toml"
    config.write_text(
        '[table]\nid = "t1"\n[board]\nserial = "emulated"\n[camera]\nsource = "none"\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.tls_port}\nusername = "t1"\n'
        f'password_file = "{folder / "pw"}"\ntls = true\n{mqtt}'
        f'[store]\npath = "{store}"\n')
    return config, store


def _mqtt_status(store: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(Path(f"{store}.status.json").read_text())["mqtt"])
    except (OSError, ValueError, KeyError):
        return {}


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Any:
    broker = ShippedBroker(tmp_path_factory.mktemp("tls-broker"), tables=("t1",))
    broker.start()
    yield broker
    broker.stop()


def test_a_table_trusting_the_brokers_ca_connects_over_tls(
    tmp_path: Path, shipped: ShippedBroker
) -> None:
    config, store = _config(tmp_path, shipped, f'ca_file = "{shipped.ca}"\n')
    viewer = Probe("127.0.0.1", shipped.tls_port, "viewer-1", "viewer",
                   shipped.password("viewer"), shipped.ca)
    service = Service(config, store)
    service.start()
    try:
        assert wait_until(lambda: _mqtt_status(store).get("connected") is True, 15), \
            _mqtt_status(store)
        assert viewer.connect() == "Success"
        viewer.subscribe("mahjong/v1/t1/status")
        assert wait_until(lambda: bool(viewer.json_on("/status")), 5)
        assert viewer.json_on("/status")[-1]["state"] == "online"
    finally:
        service.stop()
        viewer.close()


@pytest.mark.parametrize("trusting", ["another table's CA", "the system CA store"])
def test_a_table_refuses_a_broker_its_ca_does_not_vouch_for(
    tmp_path: Path, shipped: ShippedBroker, trusting: str
) -> None:
    mqtt = ""
    if trusting == "another table's CA":
        other = tmp_path / "other-certs"
        subprocess.run([str(DEPLOY / "make-certs.sh"), str(other), "table"], check=True,
                       capture_output=True)
        mqtt = f'ca_file = "{other / "ca.crt"}"\n'
    config, store = _config(tmp_path, shipped, mqtt)
    service = Service(config, store)
    service.start()
    try:
        assert wait_until(lambda: "over TLS" in str(_mqtt_status(store).get("last_error")), 15)
        status = _mqtt_status(store)
        assert status["connected"] is False and status["delivered"] == 0
        assert (f"trusting {other / 'ca.crt'}" if mqtt else "the system CA store") in \
            status["last_error"]
    finally:
        service.stop()


@pytest.mark.parametrize(("mqtt", "error"), [
    ('tls = true\nca_file = "/nonexistent/ca.crt"\n',
     "cannot read /nonexistent/ca.crt: No such file or directory"),
    ('tls = true\nca_file = "{config}"\n', "holds no PEM certificate"),
])
def test_a_ca_file_that_is_no_ca_is_refused_by_config_check_and_run(
    tmp_path: Path, mqtt: str, error: str
) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t1"\n[board]\nserial = "emulated"\n'
                      '[camera]\nsource = "none"\n[mqtt]\n' + mqtt.format(config=config)
                      + f'[store]\npath = "{tmp_path / "t.sqlite3"}"\n')
    for command in (["config", "check", str(config)], ["run", "--config", str(config)]):
        done = subprocess.run(
            [sys.executable, "-c", "import sys\nfrom controller.cli import main\n"
             "sys.exit(main())", *command], cwd=REPO, capture_output=True, text=True,
            timeout=60)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        answer = json.loads(done.stdout.splitlines()[0])
        assert error in answer["error"] and answer["where"].endswith("mqtt.ca_file"), answer


def test_a_ca_file_without_tls_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t1"\n[mqtt]\nca_file = "/etc/ssl/ca.crt"\n')
    done = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom controller.cli import main\nsys.exit(main())",
         "config", "check", str(config)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["error"].startswith("ca_file: a CA is used only over TLS: set mqtt.tls")
