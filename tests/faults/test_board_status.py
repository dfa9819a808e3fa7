"""A board that goes down shows where the watchers look: the retained MQTT `status` topic and
the answer to `cmd/status` say the board's state and since when (docs/mqtt.md), beside the
contract's `"state": "online"`. The real `mjtable run`, the emulated board's cable pulled and
put back, a real Mosquitto."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from controller.broker import LocalMosquitto
from firmware_bridge.emulator import EmulatedBoard
from tests.faults.local_referee import LocalReferee
from tests.faults.test_end_to_end import Service
from tests.waiting import wait_until

TABLE = "b1"


def _last_status(referee: LocalReferee) -> dict[str, Any]:
    statuses = referee.on("/status")
    return statuses[-1] if statuses else {}


def _board_is(referee: LocalReferee, state: str) -> bool:
    return bool(_last_status(referee).get("board", {}).get("state") == state)


def test_the_boards_state_and_since_when_on_the_status_topic_and_cmd_status(
    tmp_path: Path, broker: LocalMosquitto
) -> None:
    store = tmp_path / "table.sqlite3"
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=9) as board:
        config = tmp_path / "table.toml"
        config.write_text(
            f'[table]\nid = "{TABLE}"\n[board]\nserial = "{board.path}"\n'
            f'[camera]\nsource = "none"\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
            f'[store]\npath = "{store}"\n')
        referee = LocalReferee(broker, TABLE)
        service = Service(config, store)
        service.start()
        try:
            assert wait_until(lambda: _board_is(referee, "up"), 10), referee.on("/status")
            up = _last_status(referee)
            assert up["state"] == "online"  # the contract's field, unchanged
            answer = referee.command("status", {})
            assert answer["ok"] and answer["board"]["state"] == "up"
            assert answer["seq"] >= 1 and "outbox" in answer  # the fields it had before

            board.unplug()
            assert wait_until(lambda: _board_is(referee, "down"), 10), referee.on("/status")
            down = _last_status(referee)
            assert down["state"] == "online" and down["board"]["detail"]
            assert (datetime.fromisoformat(down["board"]["since"])
                    > datetime.fromisoformat(up["board"]["since"]))
            answer = referee.command("status", {})
            assert answer["board"] == down["board"]

            board.replug()
            assert wait_until(lambda: _board_is(referee, "up"), 10), referee.on("/status")
            again = _last_status(referee)
            assert again["board"]["since"] > down["board"]["since"]  # ISO, UTC: sorts as time
        finally:
            service.stop()
            referee.close()
    # A watcher that subscribes later gets the last one, retained: the board as it was.
    late = LocalReferee(broker, TABLE)
    try:
        assert wait_until(lambda: bool(late.on("/status")), 5)
        assert late.on("/status")[-1]["state"] == "offline"  # the clean stop says so
    finally:
        late.close()
