"""A referee's tablet on a local broker, for the fault tests that drive `mjtable run`: it sends
``cmd/<verb>`` and waits for the answer, and hears the table's adjudications."""

from __future__ import annotations

import json
from typing import Any

from controller.broker import LocalMosquitto
from tests.faults.mqtt_probe import Probe
from tests.waiting import wait_until


class LocalReferee:
    def __init__(self, broker: LocalMosquitto, table: str) -> None:
        self.base = f"mahjong/v1/{table}"
        self.probe = Probe(broker.host, broker.port, "referee")
        assert self.probe.connect() == "Success"
        self.probe.subscribe(f"{self.base}/cmd/+/result")
        self.probe.subscribe(f"{self.base}/adjudications")
        self.probe.subscribe(f"{self.base}/status")

    def send(self, verb: str, body: dict[str, Any]) -> int:
        """Send until the broker takes it (the table may be connecting); the answers so far."""
        mark = len(self.answers(verb))
        topic = f"{self.base}/cmd/{verb}"
        assert wait_until(lambda: self.probe.publish(
            topic, json.dumps(body).encode()) == "Success", 20), f"{verb} not taken"
        return mark

    def command(self, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        mark = self.send(verb, body)
        assert wait_until(lambda: len(self.answers(verb)) > mark, 20), f"no answer to {body}"
        return dict(self.answers(verb)[mark])

    def answers(self, verb: str) -> list[dict[str, Any]]:
        return list(self.probe.json_on(f"/cmd/{verb}/result"))

    def on(self, suffix: str) -> list[dict[str, Any]]:
        return list(self.probe.json_on(suffix))

    def close(self) -> None:
        self.probe.close()
