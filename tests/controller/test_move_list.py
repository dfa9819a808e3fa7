"""`cmd/moves` lists the hand's moves with the `at` a correction takes, in every family, and
`cmd/correct` with `was` refuses a pick from a list out of date."""

from __future__ import annotations

import json
from pathlib import Path

from controller.inputs import Observation, ObservationKind

from .test_simulate_american import _east_discarded


def test_an_american_move_picked_from_the_list_is_amended_and_a_stale_pick_refused(
        tmp_path: Path) -> None:
    table = _east_discarded(tmp_path, "RD")  # E's 5B, read as a red dragon
    table.tick(1_000 + 200_000)
    assert table.observe(Observation(ObservationKind.DRAW, "S"), 300_000).accepted
    listed = table.command("moves", b"{}", 300_001)
    assert listed["ok"] and listed["hand"] == table.hand_no
    discard = next(m for m in listed["moves"] if m["type"] == "american/Discard")
    assert discard["seat"] == "E" and discard["command"]["tile"] == "RD"
    assert discard["at"] == max(r["seq"] for r in table.store.events_of_hand(table.hand_no)
                                if r["type"] == "Discarded")
    # nothing concealed: a Charleston pass or a draw lists no tile
    private = {r["seq"] for r in table.store.events_of_hand(table.hand_no) if r.get("private")}
    for move in listed["moves"]:
        if move["at"] in private:
            assert not {"tile", "tiles"} & move["command"].keys(), move
    body = {"at": discard["at"], "command": {**discard["command"], "tile": "5B"},
            "was": discard["command"], "reason": "the camera misread it"}
    assert table.command("correct", json.dumps(body).encode(), 400_000)["ok"]
    assert table.public_state()["seats"]["E"]["discards"] == ["5B"]
    relisted = table.command("moves", b"{}", 400_001)["moves"]
    assert next(m for m in relisted if m["at"] == discard["at"])["command"]["tile"] == "5B"
    before = table.store.last_seq()
    stale = table.command("correct", json.dumps(
        {**body, "command": {**discard["command"], "tile": "6B"}}).encode(), 400_002)
    assert stale["ok"] is False and stale["where"] == "was"
    assert table.store.last_seq() == before
    assert table.public_state()["seats"]["E"]["discards"] == ["5B"]
    # a pick of a move the hand no longer has is refused as gone
    gone = {"at": 10_000, "command": None, "was": discard["command"], "reason": "x"}
    out = table.command("correct", json.dumps(gone).encode(), 400_003)
    assert out["ok"] is False and out["where"] == "at" and "no move 10000" in out["error"]


def test_a_was_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    table = _east_discarded(tmp_path, "RD")
    out = table.command("correct", b'{"at": 3, "command": null, "reason": "x", "was": 7}', 5_000)
    assert out == {"ok": False, "error": "the move as picked, a JSON object (cmd/moves)",
                   "where": "was"}
