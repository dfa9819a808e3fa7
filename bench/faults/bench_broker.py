"""What saving the broker's database on every change costs, against the 30 s interval it
replaces, and what each loses to kill -9 (docs/reliability.md).

The shipped Mosquitto config (tests/faults/shipped_broker.py renders it) with an offline
persistent subscriber (a club scorer that went home): the table publishes event-sized QoS 1
messages, 100 in flight as its outbox does; each block of 500 is timed as the subscriber's
queue grows (a save writes the whole database, so its cost grows with the queue). Then the
broker is killed with -9 and restarted, and the subscriber counts what it gets.

Run: `.venv/bin/python bench/faults/bench_broker.py [--messages 4000]`. Writes
bench/faults/results-broker.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.faults.mqtt_probe import Probe  # noqa: E402
from tests.faults.shipped_broker import ShippedBroker  # noqa: E402

SHIPPED = "autosave_on_changes true\nautosave_interval 1"
MODES = {"every change (shipped)": None,
         "every 100 changes": "autosave_on_changes true\nautosave_interval 100",
         "every 30 s (before)": "autosave_interval 30"}
BLOCK = 500


def publish_block(table: Probe, first: int, count: int, window: int = 100) -> None:
    payload = {"type": "discard", "hand": 3, "seat": "E", "tile": "5C", "pad": "x" * 200}
    mids = []
    for seq in range(first, first + count):
        info = table.client.publish("mahjong/v1/t1/events",
                                    json.dumps({"seq": seq, **payload}).encode(), qos=1)
        mids.append(info.mid)
        while len(mids) - len(table.acks) > window:
            time.sleep(0.0005)
    while not all(m in table.acks for m in mids):
        time.sleep(0.001)
    table.acks.clear()


def run(mode: str, replace: str | None, messages: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-broker-") as name:
        broker = ShippedBroker(Path(name), tables=("t1",),
                               replace={SHIPPED: replace} if replace else None)
        broker.start()
        club = Probe("127.0.0.1", broker.tls_port, "club", "viewer", broker.password("viewer"),
                     broker.ca, persistent=True)
        reason = club.connect(timeout=30)
        assert reason == "Success", reason
        club.subscribe("mahjong/v1/t1/events")
        club.close()
        table = Probe("127.0.0.1", broker.plain_port, "table", "t1", broker.password("t1"))
        reason = table.connect(timeout=30)
        assert reason == "Success", reason
        rates = []
        for first in range(1, messages + 1, BLOCK):
            began = time.perf_counter()
            publish_block(table, first, BLOCK)
            rates.append(round(BLOCK / (time.perf_counter() - began)))
        table.client.loop_stop()
        db = Path(name) / "mosquitto.db"
        db_kib = db.stat().st_size // 1024 if db.exists() else 0
        broker.kill9()
        broker.start()
        club = Probe("127.0.0.1", broker.tls_port, "club", "viewer", broker.password("viewer"),
                     broker.ca, persistent=True)
        reason = club.connect(timeout=30)
        assert reason == "Success", reason
        club.wait_for(lambda: len(club.messages) >= messages, timeout=30)
        kept = len(club.messages)
        club.close()
        broker.stop()
    return {"mode": mode, "messages": messages, "msgs_per_s_by_block_of_500": rates,
            "db_kib_at_kill": db_kib, "kept_after_kill9": kept, "lost": messages - kept}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=4000)
    parser.add_argument("--out", default=str(Path(__file__).with_name("results-broker.json")))
    args = parser.parse_args()
    results = []
    for mode, replace in MODES.items():
        result = run(mode, replace, args.messages)
        results.append(result)
        print(json.dumps(result), flush=True)
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
