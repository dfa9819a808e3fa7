"""How long after its PUBACK the shipped Mosquitto still loses a message to kill -9: it
acknowledges first and saves after, even saving on every change (docs/reliability.md, "The
broker acknowledges before it saves").

A publisher sends one QoS 1 message; the moment its PUBACK arrives (plus a delay) the broker
is killed with -9 and restarted; an offline persistent subscriber (a club scorer away) counts,
at the end, which acknowledged messages it never gets. Each delay with and without messages
already queued for the subscriber (a save writes the whole database).

Run: `.venv/bin/python bench/faults/bench_kill_at_ack.py [--trials 30]`. Writes
bench/faults/results-kill-at-ack.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.faults.mqtt_probe import Probe  # noqa: E402
from tests.faults.shipped_broker import ShippedBroker  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

DELAYS_MS = (0, 2, 5, 20, 100)
TOPIC = "mahjong/v1/t1/events"


def _table(broker: ShippedBroker) -> Probe:
    probe = Probe("127.0.0.1", broker.plain_port, "t1", "t1", broker.password("t1"))
    assert probe.connect(timeout=10) == "Success"
    return probe


def _club(broker: ShippedBroker) -> Probe:
    probe = Probe("127.0.0.1", broker.plain_port, "club", "viewer", broker.password("viewer"),
                  persistent=True)
    assert probe.connect(timeout=10) == "Success"
    return probe


def run(delay_ms: int, queued: int, trials: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-ack-") as name:
        broker = ShippedBroker(Path(name), tables=("t1",))
        broker.start()
        club = _club(broker)
        club.subscribe(TOPIC)
        club.close()
        table = _table(broker)
        for n in range(queued):  # already waiting for the club when the trials begin
            assert table.publish(TOPIC, json.dumps({"seq": -1 - n}).encode()) == "Success"
        table.close()
        for seq in range(trials):
            table = _table(broker)
            acked = threading.Event()
            took = table.client.on_publish

            def kill(*args: object, acked: threading.Event = acked) -> None:
                time.sleep(delay_ms / 1000)
                broker.kill9()
                acked.set()

            table.client.on_publish = kill
            table.client.publish(TOPIC, json.dumps({"seq": seq}).encode(), qos=1)
            assert acked.wait(10), "no PUBACK"
            table.client.on_publish = took
            table.close()
            broker.start()
        club = _club(broker)
        wanted = set(range(trials))
        got = lambda: {e["seq"] for e in club.json_on("/events")} & wanted  # noqa: E731
        wait_until(lambda: got() == wanted, 5 + queued / 200)
        lost = len(wanted - got())
        club.close()
        broker.stop()
    return {"delay_ms": delay_ms, "queued": queued, "acknowledged": trials, "lost": lost}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    rows = []
    for queued in (0, 2000):
        for delay in DELAYS_MS:
            row = run(delay, queued, args.trials)
            print(json.dumps(row), flush=True)
            rows.append(row)
    Path(__file__).with_name("results-kill-at-ack.json").write_text(
        json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
