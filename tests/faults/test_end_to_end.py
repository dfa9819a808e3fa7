"""The end-to-end promise (docs/reliability.md) through the shipped broker: `mjtable run`
against the emulated board plays a hand commanded by its referee over TLS, while the broker
and the service are each killed with -9 at random moments. A club scorer that was away the
whole time (a persistent session) then gets every event exactly once after dedupe by `seq`,
in order, and nothing the table never accepted."""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.families import world_for
from controller.store import EventStore
from controller.world import Claims
from engine.seats import Seat
from firmware_bridge.emulator import EmulatedBoard
from tests.faults.mqtt_probe import Probe
from tests.faults.shipped_broker import ShippedBroker
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]


def _wait(predicate: Callable[[], bool], timeout: float = 15.0) -> bool:
    return wait_until(predicate, timeout, interval=0.05)


class Service:
    """`mjtable run` in a process of its own, as systemd runs it. ``start(prelude)`` runs
    Python code in the process first (a fault test's kill at a chosen point)."""

    def __init__(self, config: Path, store: Path) -> None:
        self.config, self.status = config, Path(f"{store}.status.json")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, prelude: str = "") -> None:
        run = ["run", "--config", str(self.config), "--log-level", "WARNING"]
        main = "import sys\nfrom controller.cli import main\nsys.exit(main())\n"
        command = ([sys.executable, "-c", prelude + "\n" + main, *run] if prelude
                   else [sys.executable, "-m", "controller.cli", *run])
        self.proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        pid = self.proc.pid

        def up() -> bool:
            with contextlib.suppress(OSError, ValueError, KeyError):
                return bool(json.loads(self.status.read_text())["pid"] == pid)
            return False

        assert _wait(up, 20), "the service did not come up"

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


def _events(store: Path) -> list[dict[str, Any]]:
    db = EventStore(store)
    try:
        return list(db.events())
    finally:
        db.close()


class Referee:
    def __init__(self, broker: ShippedBroker) -> None:
        self.probe = Probe("127.0.0.1", broker.tls_port, "referee-t1", "referee-t1",
                           broker.password("referee-t1"), broker.ca)
        assert self.probe.connect() == "Success"
        self.probe.subscribe("mahjong/v1/t1/cmd/+/result")

    def command(self, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        results = lambda: self.probe.json_on(f"/cmd/{verb}/result")  # noqa: E731
        mark = len(results())
        # "No matching subscribers": the table is not connected yet (a broker restarted a
        # moment ago); a referee's tablet sends again, as here.
        assert _wait(lambda: self.probe.publish(
            f"mahjong/v1/t1/cmd/{verb}", json.dumps(body).encode()) == "Success", 20)
        assert _wait(lambda: len(results()) > mark, 20), f"no answer to {verb} {body}"
        return dict(results()[mark])


@contextlib.contextmanager
def running_table(folder: Path, seed: int) -> Iterator[tuple[ShippedBroker, Service, Path]]:
    """The shipped broker, a club scorer's persistent session, and `mjtable run` on the
    emulated board."""
    broker = ShippedBroker(folder / "broker", tables=("t1",))
    broker.start()
    # The club's scorer subscribes before the table starts, then is away all evening; its
    # persistent session stays.
    club = Probe("127.0.0.1", broker.tls_port, "club", "viewer", broker.password("viewer"),
                 broker.ca, persistent=True)
    assert club.connect(timeout=30) == "Success"
    club.subscribe("mahjong/v1/t1/events")
    club.close()
    store = folder / "t.sqlite3"
    (folder / "pw").write_text(broker.password("t1"))
    with EmulatedBoard(link_path=folder / "mahjong-mcu", seed=seed) as board:
        # A courtesy pause long enough for the referee to enter every call of one discard
        # (each a round trip through the broker) before the window closes.
        config = folder / "table.toml"
        config.write_text(
            f'[table]\nid = "t1"\n[adjudication]\ncourtesy_pause_ms = 1000\n'
            f'[board]\nserial = "{board.path}"\n[camera]\nsource = "none"\n'
            f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.plain_port}\nusername = "t1"\n'
            f'password_file = "{folder / "pw"}"\n[store]\npath = "{store}"\n')
        service = Service(config, store)
        service.start()
        try:
            yield broker, service, store
        finally:
            service.stop()
            broker.stop()


def play_with_kills(folder: Path, seed: int, kills: int,
                    faults: dict[int, str] | None = None) -> dict[str, int]:
    """One simulated hand commanded by the referee, the broker and the service each killed
    with -9 ``kills`` times at random steps (or at ``faults``: step -> "broker" or
    "service"); then the club scorer's stream is checked (every event once after dedupe, in
    order, each the logged one). Returns the counts."""
    with running_table(folder, seed) as (broker, service, store):
        referee = Referee(broker)
        rng = random.Random(seed)
        steps = list(world_for("code1924/mixed", random.Random(seed), prevailing=Seat.E,
                              hand=1).steps())
        # Not between a discard and the calls made on it: here the referee enters the calls
        # (cmd/claim, timed when they arrive), and a restart outlasts the courtesy pause.
        # Board presses in flight at a kill: tests/faults/test_kill_mid_window.py.
        allowed = [i for i in range(5, len(steps) - 1) if not isinstance(steps[i + 1], Claims)]
        if faults is None:  # else: the steps after which to kill, as a failed run had them
            points = rng.sample(allowed, 2 * kills)
            faults = {at: ("broker", "service")[n % 2] for n, at in enumerate(points)}
        for i, step in enumerate(steps):
            if isinstance(step, Claims):
                for seat, kind in step.presses:
                    answer = referee.command("claim", {"seat": seat, "kind": kind})
                    assert answer["ok"], (i, step, answer, sorted(faults.items()))
                time.sleep(1.2)  # the window closes after the courtesy pause
            else:
                answer = referee.command("observe", step.to_json())
                assert answer["ok"], (step, answer)
            if faults.get(i) == "broker":
                broker.kill9()
                broker.start()
            elif faults.get(i) == "service":
                service.kill9()
                service.start()
        last = _events(store)[-1]["seq"]
        club = Probe("127.0.0.1", broker.tls_port, "club", "viewer",
                     broker.password("viewer"), broker.ca, persistent=True)
        assert club.connect(timeout=30) == "Success"
        club.wait_for(lambda: {e["seq"] for e in club.json_on("/events")} >= set(
            range(1, last + 1)), 30)
        received = club.json_on("/events")
        club.close()
    got = {e["seq"] for e in received}
    assert got >= set(range(1, last + 1)), (
        f"missing {sorted(set(range(1, last + 1)) - got)} of {last}; faults at {faults}")
    seen: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    for event in received:
        if event["seq"] in seen:
            assert seen[event["seq"]] == event, "a redelivery with other content"
            continue
        seen[event["seq"]] = event
        order.append(event["seq"])
    assert order == list(range(1, last + 1)), "a gap or a reordering"
    logged = {e["seq"]: e for e in _events(store)}
    assert all(seen[s]["type"] == logged[s]["type"] for s in order)
    done = [what for at, what in faults.items() if at < len(steps)]
    return {"events": last, "broker_kills": done.count("broker"),
            "service_kills": done.count("service"),
            "redelivered": len(received) - len(order), "lost": 0}


def test_kill_9_of_broker_and_service_loses_no_event(tmp_path: Path) -> None:
    result = play_with_kills(tmp_path, seed=30, kills=2)
    assert result["events"] > 40
