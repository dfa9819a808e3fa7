"""The SQLite event store: gap-free sequence numbers, atomic appends, snapshots, the outbox."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from controller.store import SENT_KEPT_S, EventStore, StoreError


def _event(seq: int, kind: str = "discard") -> dict[str, object]:
    return {"seq": seq, "hand": 1, "type": kind, "tile": "5C"}


def test_append_and_read_back_in_order(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([_event(1), _event(2)], [("t/events", b"1", 1), ("t/events", b"2", 2)])
    store.append([_event(3, "draw")])
    assert [e["seq"] for e in store.events()] == [1, 2, 3]
    assert [e["type"] for e in store.events(after=2)] == ["draw"]
    assert store.last_seq() == 3
    assert [m.payload for m in store.pending()] == [b"1", b"2"]


def test_gap_or_repeat_in_seq_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([_event(1)])
    with pytest.raises(StoreError, match="seq 3 out of order, expected 4"):
        store.append([_event(2), _event(3), _event(3)], [("t/events", b"x", None)])
    # The whole append was rolled back: no event 2, no outbox row.
    assert store.last_seq() == 1 and store.outbox_size() == 0
    with pytest.raises(StoreError, match="expected 2"):
        store.append([_event(1)])


def test_outbox_rows_leave_only_when_delivered(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([_event(1), _event(2)], [("a", b"1", 1), ("a", b"2", 2)])
    first, second = store.pending()
    store.delivered(first.id)
    assert [m.id for m in store.pending()] == [second.id]
    assert store.pending(after_id=second.id) == []


def test_events_the_broker_acknowledged_go_again_after_a_reconnect_in_their_places(
    tmp_path: Path,
) -> None:
    """The broker acknowledges before it saves: the events acknowledged within SENT_KEPT_S of
    the last acknowledgement go back to the outbox, in their places; older ones and
    messages that are not events do not."""
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([_event(1), _event(2), _event(3)],
                 [("t/events", b"1", 1), ("t/events", b"2", 2), ("t/result", b"ok", None),
                  ("t/events", b"3", 3)])
    ids = [m.id for m in store.pending()]
    store.delivered(ids[0], at=1000.0)  # long before the last acknowledgement
    for message_id in ids[1:]:
        store.delivered(message_id, at=1000.0 + SENT_KEPT_S + 1)
    store.append([_event(4)], [("t/events", b"4", 4)])
    assert store.resend_recent() == 2
    assert [m.payload for m in store.pending()] == [b"2", b"3", b"4"]  # seq order kept
    assert store.resend_recent() == 0  # each is put back once per acknowledgement


def test_retained_topics_keep_only_the_latest_version(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([_event(1)], retained={"t/state": b"s1"})
    store.append([_event(2)], retained={"t/state": b"s2", "t/scores": b"x"})
    pending = {m.topic: (m.payload, m.version) for m in store.retained_pending()}
    assert pending == {"t/state": (b"s2", 2), "t/scores": (b"x", 1)}
    store.retained_delivered("t/state", 1)  # an older version's ack does not clear the newer
    assert {m.topic for m in store.retained_pending()} == {"t/state", "t/scores"}
    store.retained_delivered("t/state", 2)
    assert {m.topic for m in store.retained_pending()} == {"t/scores"}


def test_snapshot_is_written_with_its_event(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    assert store.latest_snapshot() is None
    store.append([_event(1)], snapshot=(1, {"hand": 1, "scores": {"E": 0}}))
    store.append([_event(2)])
    assert store.latest_snapshot() == (1, {"hand": 1, "scores": {"E": 0}})


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable table store"):
        EventStore(path)


def test_kill_9_mid_stream_leaves_a_gap_free_log(tmp_path: Path) -> None:
    """A writer killed with SIGKILL while appending: the log ends at a whole append, with the
    outbox row of every event that made it (one transaction for both)."""
    path = tmp_path / "t.sqlite3"
    script = textwrap.dedent(
        f"""
        import sys
        from controller.store import EventStore
        store = EventStore({str(path)!r})
        seq = 0
        while True:
            seq += 1
            store.append([{{"seq": seq, "hand": 1, "type": "draw"}}], [("t/events", b"x", seq)])
            if seq == 50:
                print("ready", flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = EventStore(path)
    seqs = [e["seq"] for e in store.events()]
    assert len(seqs) >= 50 and seqs == list(range(1, len(seqs) + 1))
    assert [m.seq for m in store.pending(limit=100_000)] == seqs


def test_events_of_one_hand(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([{"seq": 1, "hand": 1, "type": "a"}, {"seq": 2, "hand": 2, "type": "b"}])
    store.append([{"seq": 3, "hand": 2, "type": "c"}])
    assert [e["type"] for e in store.events_of_hand(2)] == ["b", "c"]
    assert store.events_of_hand(3) == []


def test_the_board_key_is_stored_with_the_events_of_its_press_or_not_at_all(
    tmp_path: Path,
) -> None:
    store = EventStore(tmp_path / "t.sqlite3")
    assert store.board_key() is None
    store.append([_event(1)], board_key=(7, 41))
    assert store.board_key() == (7, 41)
    assert store.board_event_applied((7, 41)) and store.board_event_applied((7, 3))
    assert not store.board_event_applied((7, 42))
    assert not store.board_event_applied((8, 1))  # a restarted board numbers from 1 again
    with pytest.raises(StoreError, match="out of order"):
        store.append([_event(5)], board_key=(7, 42))
    assert store.board_key() == (7, 41)  # rolled back with the events
    store.set_board_key((8, 1))  # a press that caused nothing else to store
    store.close()
    assert EventStore(tmp_path / "t.sqlite3").board_key() == (8, 1)  # durable
