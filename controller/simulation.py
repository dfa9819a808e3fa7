"""`mjtable simulate`: a whole table without hardware, wired as on a real one.

- the board: the firmware bridge's emulator on a pty, opened by the service like the USB device;
- the players: the engine's bots, playing a full-information hand (``controller.world``);
  their calls are button clicks on the emulated board, so every claim crosses the serial link
  with the board's timestamp;
- the camera: observations of what the bots do, handed to the service as vision would;
- the broker: the ``--mqtt`` one, or a private Mosquitto, or (without Mosquitto) an embedded
  one; a watcher subscribes like a club's scorer and measures delivery;
- the service itself, unchanged: store, engine in mirror mode, call windows, LEDs, MQTT.

At the end of every hand the service's mirror is compared with the bots' real hand; any
difference, refused input or lost event is a violation.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from config.load import bundled_path, parse_config
from config.schema import TableConfig
from controller.broker import BrokerUnavailable, LocalMosquitto
from controller.families import simulation_for
from controller.inbox import CommandIn, ObserveIn
from controller.inputs import Observation
from controller.live_view import Progress
from controller.mqtt import BrokerSettings, Topics
from controller.scoresheet import Scorer, engine_scorer
from controller.service import Service, ServiceOptions, now_us
from controller.table import Outcome
from controller.world import Claims, Simulation

SEAT_INDEX = {"E": 0, "S": 1, "W": 2, "N": 3}
# What a camera above the table sees (the rest comes straight from the game: draws, the deal,
# concealed kongs).
CAMERA_KINDS = frozenset(
    {"dice", "discard", "exposure", "flower", "added_kong", "joker_exchange", "hand_shown",
     "pass"}
)


@dataclass
class SimulationSettings:
    ruleset: str = "code1924/mixed"
    hands: int = 4
    seed: int = 1
    table: str = "sim"
    store: str | None = None
    mqtt: tuple[str, int] | None = None  # None: start a broker of our own
    headless: bool = False
    pause_ms: int | None = None  # courtesy pause; default: 60 headless, 400 with the view
    step_s: float | None = None  # between table actions; default 0 headless, 0.03 with the view
    scorer: Scorer | None = engine_scorer
    doubt: float = 0.0  # share of observations the simulated camera is unsure of
    camera: bool = False  # render the table and see it through vision's pipeline
    names: tuple[str, ...] = ()  # the players in the first hand's seat order E, S, W, N
    web: tuple[str, int] | None = None  # serve the table's page here (port 0: a free one)
    game: bool = False  # play until the game ends (its book's rule), not ``hands`` hands
    linger_s: float = 0.0  # keep serving the page this long after the last hand
    stakes: dict[str, Any] | None = None  # the table's [stakes]: money beside the points


@dataclass
class Watcher:
    """A club-side subscriber: every event once, in order; delivery times for the benchmark."""

    host: str
    port: int
    topics: Topics
    seqs: list[int] = field(default_factory=list)
    claim_arrivals: list[tuple[int, str, int]] = field(default_factory=list)  # (ns, seat, t_us)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        # A persistent session, so the broker keeps what arrives while the watcher is cut off
        # (a broker restart); MQTT 3.1.1 so the embedded broker serves it too.
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"sim-watcher-{random.getrandbits(24)}",
            protocol=MQTTProtocolVersion.MQTTv311, clean_session=False,
        )
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        ready = threading.Event()
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(self.topics.events, qos=1)
        self.client.on_subscribe = lambda *a: ready.set()
        self.client.on_message = self._on_message
        self.client.connect(self.host, self.port, keepalive=30)
        self.client.loop_start()
        if not ready.wait(5):
            raise BrokerUnavailable(f"could not subscribe on {self.host}:{self.port}")

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        arrived = time.monotonic_ns()
        body = json.loads(msg.payload)
        with self.lock:
            self.seqs.append(int(body["seq"]))
            if body.get("type") in ("ClaimMade", "CallMade") and body.get("time_us") is not None:
                self.claim_arrivals.append((arrived, body["seat"], int(body["time_us"])))

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _percentiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "n": len(ordered),
        "p50": round(statistics.median(ordered), 2),
        "p99": round(p99, 2),
        "max": round(ordered[-1], 2),
    }


def _config(settings: SimulationSettings, store: str, board: str, broker: tuple[str, int] | None,
            pause_ms: int) -> TableConfig:
    path = bundled_path("simulate.toml")
    data: dict[str, Any] = tomllib.loads(path.read_text())
    data["table"]["id"] = settings.table
    data["table"]["ruleset"] = settings.ruleset
    data["adjudication"]["courtesy_pause_ms"] = pause_ms
    data["board"]["serial"] = board
    data["store"]["path"] = store
    if settings.names:
        data["seats"] = {seat: {"player": name} for seat, name in zip("ESWN", settings.names,
                                                                      strict=False)}
    if settings.web is not None:
        data["web"] = {"enabled": True, "host": settings.web[0], "port": settings.web[1]}
    if settings.stakes:
        data["stakes"] = dict(settings.stakes)
    if broker is None:
        data["mqtt"] = {"enabled": False}
    else:
        data["mqtt"].update({"host": broker[0], "port": broker[1]})
    return parse_config(data, str(path))


async def _wait(predicate: Callable[[], bool], timeout: float, poll: float = 0.002) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(poll)
    return predicate()


async def _simulate(settings: SimulationSettings, out: TextIO) -> dict[str, Any]:
    from firmware_bridge.emulator import EmulatedBoard

    headless = settings.headless
    pause_ms = settings.pause_ms if settings.pause_ms is not None else (60 if headless else 400)
    step_s = settings.step_s if settings.step_s is not None else (0.0 if headless else 0.03)
    tmp = tempfile.TemporaryDirectory(prefix="mjtable-sim-")
    store = settings.store or str(Path(tmp.name) / "table.sqlite3")
    problems: list[str] = []
    broker, broker_proc, embedded = await _start_broker(settings.mqtt)
    board = EmulatedBoard(link_path=Path(tmp.name) / "mahjong-mcu", seed=settings.seed)
    board.start()
    cfg = _config(settings, store, board.path, broker, pause_ms)
    topics = Topics(cfg.table.id, cfg.mqtt.topic_prefix)
    service = _service(cfg, settings, store, board.path, broker, embedded is not None)
    published: list[int] = []
    if service.mqtt is not None:
        service.mqtt.on_delivered = lambda seq: published.append(seq) if seq else None
    watcher = Watcher(broker[0], broker[1], topics) if broker else None
    if watcher is not None:
        await asyncio.to_thread(watcher.start)  # the embedded broker runs on this loop
    stop = asyncio.Event()
    ready = asyncio.Event()
    runner = asyncio.create_task(service.run(stop, on_ready=ready.set), name="service")
    progress = Progress(out, not headless)
    rng = random.Random(settings.seed)
    doubt = random.Random(settings.seed + 7)
    started = time.monotonic()
    first_seq = service.store.last_seq()
    camera: Any = None
    try:
        await asyncio.wait_for(ready.wait(), 10)
        assert service.board is not None  # the emulated board, opened by the service
        await service.board.wait_up(timeout=5)
        family = simulation_for(service.table)
        if settings.camera:
            from controller.sim_camera import RenderedCamera

            camera = RenderedCamera(service, settings.seed)
            await camera.start()
        if service.face is not None:
            out.write(json.dumps({"web": service.face.url}) + "\n")
            out.flush()
        table = _Table(service, board, cfg, camera, family, progress)
        for _ in _hands(settings, service):
            if not await _play_hand(table, rng, doubt, settings.doubt, step_s, pause_ms,
                                    problems):
                break
        problems.extend(await _delivery_problems(service, watcher, first_seq))
        if camera is not None:
            problems.extend(camera.fixes.unresolved)
        summary = _summary(service, settings, first_seq, published, problems, started)
        if camera is not None:
            from controller.sim_camera import summary as camera_summary

            summary["camera"] = camera_summary(camera)
        summary["latency_ms"] = _latencies(service, watcher)
        if service.face is not None and settings.linger_s:
            await asyncio.sleep(settings.linger_s)  # the page shows the end a while longer
        return summary
    finally:
        if camera is not None:
            await asyncio.to_thread(camera.stop)
        stop.set()
        try:
            await asyncio.wait_for(runner, 10)
        except Exception as exc:  # the summary must still be printed
            problems.append(f"service stopped with {exc!r}")
        if watcher is not None:
            watcher.stop()
        board.stop()
        if broker_proc is not None:
            broker_proc.close()
        if embedded is not None:
            await embedded.stop()
        if settings.store is None:
            tmp.cleanup()


def _hands(settings: SimulationSettings, service: Service) -> Iterator[int]:
    """``hands`` hands, or with ``game`` every hand until the game's final settlement."""
    n = 0
    while True:
        n += 1
        if not settings.game and n > settings.hands:
            return
        game = service.table.games.current
        if settings.game and game is not None and game.sheet.over:
            return
        yield n


def _service(cfg: TableConfig, settings: SimulationSettings, store: str, board: str,
             broker: tuple[str, int] | None, embedded: bool) -> Service:
    """The table service as `mjtable run` makes it, on the emulated board."""
    return Service(
        cfg,
        ServiceOptions(
            store_path=store,
            board_url=board,
            # The embedded broker speaks MQTT 3.1.1 only.
            broker=BrokerSettings(broker[0], broker[1], protocol="3.1.1" if embedded else "5")
            if broker
            else None,
            client_id=f"mjtable-{cfg.table.id}",
            scorer=settings.scorer,
            status_file=f"{store}.status.json",
        ),
    )


async def _start_broker(
    asked: tuple[str, int] | None,
) -> tuple[tuple[str, int] | None, LocalMosquitto | None, Any]:
    """The broker to publish to: the one asked, else a Mosquitto of our own, else the embedded
    one; ``(address, mosquitto, embedded)``, the address None when there is none at all."""
    if asked is not None:
        return asked, None, None
    try:
        broker_proc = LocalMosquitto(persistence=False)
        broker_proc.start()
        return (broker_proc.host, broker_proc.port), broker_proc, None
    except BrokerUnavailable:
        from controller.embedded_broker import EmbeddedBroker

        try:
            embedded = EmbeddedBroker()
            await embedded.start()
            return (embedded.host, embedded.port), None, embedded
        except BrokerUnavailable as exc:
            sys.stderr.write(f"mjtable simulate: no broker, nothing is published: {exc}\n")
            return None, None, None


@dataclass
class _Table:
    """The simulated table's parts a hand is played through."""

    service: Service
    board: Any
    cfg: TableConfig
    camera: Any
    family: Simulation
    progress: Progress


async def _play_hand(table: _Table, rng: random.Random, doubt: random.Random, share: float,
                     step_s: float, pause_ms: int, problems: list[str]) -> bool:
    """One hand, step by step, then the mirror checked against the game; False if the table
    did not end the hand (the simulation stops there)."""
    service, camera, family = table.service, table.camera, table.family
    hand_no = service.table.hand_no
    world = family.world(service.table, rng)
    for step in world.steps():
        if step_s:
            await asyncio.sleep(step_s)
        if isinstance(step, Claims):
            await _press(service, table.board, table.cfg, step, problems)
        elif camera is not None and step.kind in CAMERA_KINDS:
            await camera.see(step, world.state)
        else:
            await _observe(service, step, doubt, share, problems)
        table.progress.show(service.store)
    # The last discard of a drawn hand closes on the pause; then the next hand opens.
    if not await _wait(lambda: service.table.hand_no > hand_no, pause_ms / 1000 + 3):
        problems.append(f"hand {hand_no}: the mirror did not end the hand")
        return False
    if camera is not None:
        await camera.clear()
    a, b = family.views(service.table, world, hand_no)
    if a != b:
        diff = sorted(k for k in a if a[k] != b.get(k))
        problems.append(f"hand {hand_no}: the mirror differs from the game in {diff}")
    problems.extend(await asyncio.to_thread(family.check_score, service.table, world, hand_no))
    table.progress.show(service.store)
    return True


async def _delivery_problems(service: Service, watcher: Watcher | None,
                             first_seq: int) -> list[str]:
    """Every event published once, in order, to a subscriber like a club's."""
    problems = []
    # The broker may be away (that is what the outbox is for): give it time to return.
    if service.mqtt is not None and not await asyncio.to_thread(service.mqtt.wait_idle, 45):
        problems.append("the outbox did not drain within 45 s")
    if watcher is None:
        return problems
    last = service.store.last_seq()
    if not await _wait(lambda: len(set(watcher.seqs)) >= last - first_seq, 10, 0.02):
        got = len(set(watcher.seqs))
        problems.append(f"the watcher got {got} of {last - first_seq} events")
    expected = list(range(first_seq + 1, last + 1))
    # Deduped as docs/mqtt.md tells a subscriber to: keep what is above the highest seen (a
    # reconnect sends the last events again, docs/reliability.md).
    highest, kept = first_seq, []
    for seq in watcher.seqs:
        if seq > highest:
            highest = seq
            kept.append(seq)
    if kept != expected:
        pairs = zip(kept, expected, strict=False)
        at = next((i for i, (k, e) in enumerate(pairs) if k != e), min(len(kept), len(expected)))
        came = kept[at] if at < len(kept) else "nothing"
        wanted = expected[at] if at < len(expected) else "nothing"
        problems.append(f"events reached the watcher out of order or with a gap: after "
                        f"{kept[at - 1] if at else first_seq} came {came}, not {wanted} "
                        f"({len(watcher.seqs)} messages for {len(expected)} events)")
    return problems


async def _press(
    service: Service,
    board: Any,
    cfg: TableConfig,
    claims: Claims,
    problems: list[str],
) -> None:
    before, refused = service.presses_handled, service.table.presses_refused
    window = service.table.window
    opened_us = window.deadline_us - window.pause_us if window.deadline_us else None
    for seat, kind in claims.presses:
        button = [str(b) for b in cfg.board.buttons].index(kind)
        board.click(seat=SEAT_INDEX[seat], button=button)
    n = len(claims.presses)
    if not await _wait(lambda: service.presses_handled >= before + n, 3):
        problems.append(f"{n} press(es) sent, {service.presses_handled - before} arrived")
    elif service.table.presses_refused > refused:
        # The bots call only what the game allowed: a refusal means the table judged the
        # press otherwise (too late for its window, say); its reason is on `adjudications`.
        late = ""
        if opened_us is not None:  # a busy host can deliver a press past pause and latency
            late = (f" (handled {(now_us() - opened_us) / 1000:.0f} ms after the window "
                    f"opened; pause {window.pause_us // 1000} ms, press latency "
                    f"{window.latency_us // 1000} ms)")
        problems.append(f"the table refused a call of {claims.presses}{late}")
    # The players wait for the LEDs: the window closes on the courtesy pause.
    if not await _wait(lambda: service.table.window.deadline_us is None, 3):
        problems.append("the call window did not close")


async def _observe(
    service: Service, obs: Observation, doubt: random.Random, share: float, problems: list[str]
) -> None:
    obs = replace(
        obs,
        confidence=0.6 if share and doubt.random() < share else 0.99,
        time_us=time.monotonic_ns() // 1000,
        source="simulated",
    )
    outcome: Outcome = await service.submit(ObserveIn(obs))
    if outcome.asked is not None and obs.confidence < 0.9:
        # The simulated referee looks at the table and confirms what the camera doubted.
        result = await service.submit(
            CommandIn("confirm", json.dumps({"pending": outcome.asked}).encode())
        )
        if not result.get("ok"):
            problems.append(f"referee could not confirm #{outcome.asked}: {result.get('error')}")
    elif not outcome.accepted:
        problems.append(f"refused {obs.to_json()}: {outcome.error} ({outcome.rule})")


def _summary(
    service: Service,
    settings: SimulationSettings,
    first_seq: int,
    published: list[int],
    problems: list[str],
    started: float,
) -> dict[str, Any]:
    table = service.table
    hands_done = len(table.sheet)
    results = [h.get("result") for h in table.sheet]
    return {
        "hands": hands_done,
        "events": service.store.last_seq() - first_seq,
        "published": len(set(published)),
        "violations": len(problems),
        "ruleset": settings.ruleset,
        "table": settings.table,
        "wins": results.count("mahjong"),
        "draws": results.count("drawn") + results.count("wall"),
        "totals": table.totals,
        "refused_inputs": table.refused,
        "seconds": round(time.monotonic() - started, 2),
        "problems": problems[:20],
    }


def _latencies(service: Service, watcher: Watcher | None) -> dict[str, Any]:
    """Button edge (the board's clock, mapped to the Pi's) to the LED answer for that seat,
    and to the claim's event arriving at a club-side subscriber."""
    to_mqtt: list[float] = []
    if watcher is not None:
        with watcher.lock:
            to_mqtt = [(ns // 1000 - t_us) / 1000 for ns, _, t_us in watcher.claim_arrivals]
    return {
        "press_to_led": _percentiles(list(service.press_to_led_ms)),
        "window_close_to_led": _percentiles(list(service.table.window.close_to_led_ms)),
        "press_to_mqtt": _percentiles(to_mqtt),
    }


def simulate(settings: SimulationSettings, out: TextIO = sys.stdout) -> dict[str, Any]:
    return asyncio.run(_simulate(settings, out))
