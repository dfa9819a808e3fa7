"""The service's peak memory under the largest command the shipped broker lets through.

`mjtable run` against the emulated board and the shipped Mosquitto config (tests/faults/
shipped_broker.py); the referee sends the commands that cost the service most per byte, each
just under `message_size_limit` (256 KiB): a list of 87,000 small ints (a Python int and a
list slot each), the same nested as deep as the broker allows, and one long string. The
service's peak resident memory (VmHWM) is read before and after, against the unit's
MemoryMax (300 MB). Then a 50 MB command: the broker closes the sender's connection and the
service never sees it.

Run: `.venv/bin/python bench/faults/bench_command_memory.py`. Writes
bench/faults/results-command-memory.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from firmware_bridge.emulator import EmulatedBoard  # noqa: E402
from tests.faults.mqtt_probe import Probe  # noqa: E402
from tests.faults.shipped_broker import ShippedBroker  # noqa: E402

LIMIT = 1_048_000


def vm(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def commands() -> dict[str, bytes]:
    ints = b'{"pending": [' + b",".join([b"1"] * 520_000) + b"]}"
    nested = b'{"pending": ' + b"[1," * 30 + b"[" + b",".join([b"1"] * 515_000) + b"]" * 31 + b"}"
    text = b'{"pending": "' + b"x" * (LIMIT - 200) + b'"}'
    return {"520,000 ints": ints, "ints under 31 levels": nested, "one 1 MB string": text}


def main() -> None:
    results: dict[str, object] = {"memory_max_mb": 300}
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-mem-") as name:
        folder = Path(name)
        broker = ShippedBroker(folder / "broker", tables=("t1",))
        broker.start()
        (folder / "pw").write_text(broker.password("t1"))
        with EmulatedBoard(link_path=folder / "mahjong-mcu", seed=1) as board:
            config = folder / "table.toml"
            config.write_text(
                f'[table]\nid = "t1"\n[board]\nserial = "{board.path}"\n[camera]\n'
                f'source = "none"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.plain_port}\n'
                f'username = "t1"\npassword_file = "{folder / "pw"}"\n'
                f'[store]\npath = "{folder / "t.sqlite3"}"\n')
            service = subprocess.Popen([sys.executable, "-m", "controller.cli", "run",
                                        "--config", str(config), "--log-level", "WARNING"],
                                       cwd=ROOT, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            referee = Probe("127.0.0.1", broker.tls_port, "referee", "referee-t1",
                            broker.password("referee-t1"), broker.ca)
            try:
                assert referee.connect() == "Success"
                referee.subscribe("mahjong/v1/t1/cmd/+/result")
                time.sleep(3)  # the service connects and settles
                results["idle_rss_mb"] = round(vm(service.pid, "VmRSS") / 1024, 1)
                runs = {}
                for label, payload in commands().items():
                    assert len(payload) <= LIMIT, (label, len(payload))
                    before = len(referee.messages)
                    began = time.perf_counter()
                    reason = referee.publish("mahjong/v1/t1/cmd/confirm", payload)
                    answered = referee.wait_for(lambda b=before: len(referee.messages) > b, 30)
                    answer = referee.messages[-1][1] if answered else b""
                    runs[label] = {"bytes": len(payload), "puback": reason,
                                   "answered": answered,
                                   "answer_bytes": len(answer),
                                   "seconds": round(time.perf_counter() - began, 2),
                                   "peak_rss_mb": round(vm(service.pid, "VmHWM") / 1024, 1)}
                    print(label, runs[label], flush=True)
                results["commands"] = runs
                huge = Probe("127.0.0.1", broker.tls_port, "huge", "referee-t1",
                             broker.password("referee-t1"), broker.ca)
                assert huge.connect() == "Success"
                results["50MB_puback"] = huge.publish("mahjong/v1/t1/cmd/confirm",
                                                      b"x" * 50_000_000, 10)
                huge.close()
                time.sleep(1)
                results["peak_rss_mb_after_50MB"] = round(vm(service.pid, "VmHWM") / 1024, 1)
                results["broker_peak_rss_mb"] = round(broker.rss_kib() / 1024, 1)
            finally:
                referee.close()
                service.terminate()
                service.wait(timeout=20)
                broker.stop()
    print(json.dumps(results, indent=1))
    Path(__file__).with_name("results-command-memory.json").write_text(
        json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
