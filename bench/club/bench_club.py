"""A club's load: 100 tables' real event streams through one club Mosquitto into `mjtable hub`.

1. Records real simulated hands: `mjtable simulate --headless --hands N` on a broker
   (every topic the table publishes: events, state, scores, adjudications, status).
2. Starts the hub (`mjtable hub`, one process, or two on a shared subscription), creates a club
   event of 400 players at 100 tables through the organiser's desk and starts round 1.
3. Replays, for each table, a recorded game's first HANDS hands as its seated players (names
   and table id rewritten, seq renumbered), then the `GameEnded` a table publishes when the
   organiser ends its game at round time. Play speed is a hand in HAND_MINUTES minutes (a club
   game of 16 hands in two hours); ten times that is the replay speed. Tables start staggered
   over the first hand.
4. Measures: events offered and stored per second (the database's count, sampled each
   second: the hub held the rate if it stays level with the offer), standings latency (a
   table's `GameEnded` published -> the event's retained standings counting that game), the
   hub's CPU (per cent of one core) and peak resident memory, the broker's CPU.

    .venv/bin/python bench/club/bench_club.py                # 100 tables, 1 hub then 2 hubs
    .venv/bin/python bench/club/bench_club.py --tables 20 --hands 2   # a quick look

Writes bench/club/results.json.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from controller.broker import LocalMosquitto  # noqa: E402

MJTABLE = [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())"]
RECORDED = ("Alpha", "Bravo", "Charlie", "Delta")  # names no payload holds by chance
HAND_MINUTES = 7.5
SPEED = 10.0
TICK = 1.0


def client(host: str, port: int, client_id: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                    protocol=MQTTProtocolVersion.MQTTv5)
    c.max_queued_messages_set(0)
    c.max_inflight_messages_set(100)
    c.connect(host, port, keepalive=60)
    c.loop_start()
    return c


# -- 1. recording real simulated games --------------------------------------------------------

def record(broker: LocalMosquitto, seeds: list[int], hands: int
           ) -> list[list[tuple[str, str, bool]]]:
    """Each seed's whole game as published: (leaf topic, payload, retained), in order."""
    got: dict[str, list[tuple[str, str, bool]]] = {f"rec{s}": [] for s in seeds}
    lock = threading.Lock()

    def on_message(_c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        table, leaf = msg.topic.split("/")[2], "/".join(msg.topic.split("/")[3:])
        with lock:
            got[table].append((leaf, msg.payload.decode(), bool(msg.retain)))

    rec = client(broker.host, broker.port, "bench-recorder")
    rec.on_message = on_message
    rec.subscribe("mahjong/v1/+/#", qos=1)
    time.sleep(0.5)
    sims = [subprocess.Popen([*MJTABLE, "simulate", "--headless", "--hands", str(hands),
                              "--seed", str(s),
                              "--mqtt", f"{broker.host}:{broker.port}", "--table", f"rec{s}",
                              "--names", ",".join(RECORDED)], cwd=ROOT,
                             stdout=subprocess.DEVNULL) for s in seeds]
    for p in sims:
        p.wait(600)
    time.sleep(2)
    rec.disconnect()
    rec.loop_stop()
    return [got[f"rec{s}"] for s in seeds]


def slice_game(stream: list[tuple[str, str, bool]], hands: int) -> list[tuple[str, dict[str, Any],
                                                                         bool]]:
    """The stream from its first hand to the end of hand ``hands`` (commands, answers and
    retained copies from before the first hand left out)."""
    out: list[tuple[str, dict[str, Any], bool]] = []
    started = False
    for leaf, raw, retained in stream:
        if leaf.startswith("cmd") or leaf == "status":
            continue
        body = json.loads(raw)
        if leaf == "events" and body.get("type") == "HandStarted":
            started = True
        if not started:
            continue
        if leaf == "events" and body.get("type") == "HandStarted" and body.get("hand", 0) > hands:
            break
        out.append((leaf, body, retained))
    return out


# -- 2. the tables' replay --------------------------------------------------------------------

@dataclass
class Table:
    id: str
    players: list[str]
    script: list[tuple[float, str, bytes, bool]] = field(default_factory=list)
    ended_at: float | None = None


def build_script(table: Table, game: list[tuple[str, dict[str, Any], bool]], start: float,
                 hand_s: float) -> None:
    """Renamed, renumbered, and paced: each hand's messages spread evenly over ``hand_s``."""
    by_hand: dict[int, list[tuple[str, dict[str, Any], bool]]] = {}
    hand = 0
    for leaf, body, retained in game:
        if leaf == "events" and body.get("type") == "HandStarted":
            hand = int(body.get("hand", hand + 1))
        by_hand.setdefault(max(hand, 1), []).append((leaf, body, retained))
    # The round's start: the desk sent the table `cmd/game start` with its players, and the
    # table opened the game with this event before its first hand.
    seq = 1
    last_game = 1
    opened = {"seq": 1, "hand": 1, "ts": "", "type": "GameStarted", "game": 1,
              "ruleset": "code1924/mixed", "players": table.players}
    table.script.append((start, "events", json.dumps(opened).encode(), False))
    t = start + 0.5
    for number in sorted(by_hand):
        messages = by_hand[number]
        step = hand_s / max(1, len(messages))
        for leaf, body, retained in messages:
            if leaf == "events":
                seq += 1
                body = {**body, "seq": seq}
            elif "seq" in body:
                body = {**body, "seq": seq}
            text = json.dumps(body)
            for old, new in zip(RECORDED, table.players, strict=True):
                text = text.replace(f'"{old}"', json.dumps(new))
            text = text.replace('"table": "rec', f'"table": "{table.id}-rec')
            table.script.append((t, leaf, text.encode(), retained))
            t += step
    seq += 1
    ended = {"seq": seq, "hand": len(by_hand), "ts": "", "type": "GameEnded", "game": last_game,
             "reason": "round time (the organiser ended the game)"}
    table.script.append((t, "events", json.dumps(ended).encode(), False))


def replay(tables: list[Table], host: str, port: int, published: list[float],
           per_client: int = 10) -> dict[str, Any]:
    """Publish every table's script on time (each event's wall time into ``published``);
    returns the offer counts."""
    clients = [client(host, port, f"bench-tables-{i}")
               for i in range(0, len(tables), per_client)]
    queue = sorted((t0, i, j) for i, table in enumerate(tables)
                   for j, (t0, *_rest) in enumerate(table.script))
    zero = time.monotonic()
    events = messages = 0
    late: list[float] = []
    for t0, i, j in queue:
        wait = zero + t0 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        else:
            late.append(-wait)
        table = tables[i]
        _t, leaf, payload, retained = table.script[j]
        clients[i // per_client].publish(f"mahjong/v1/{table.id}/{leaf}", payload, qos=1,
                                         retain=retained)
        messages += 1
        if leaf == "events":
            events += 1
            published.append(time.time())
            if j == len(table.script) - 1:
                table.ended_at = time.time()
    for c in clients:
        c.disconnect()
        c.loop_stop()
    return {"events": events, "messages": messages, "seconds": time.monotonic() - zero,
            "late_p99_s": sorted(late)[int(0.99 * (len(late) - 1))] if late else 0.0}


# -- 3. watching: the database, the standings, the processes ----------------------------------

class Sampler(threading.Thread):
    """Each second: events stored, and the CPU and memory of the hub(s) and the broker."""

    def __init__(self, db: Path, hubs: list[int], broker: int) -> None:
        super().__init__(daemon=True)
        self.db, self.hubs, self.broker = db, hubs, broker
        self.rows: list[dict[str, Any]] = []
        self.stop = threading.Event()

    @staticmethod
    def cpu(pid: int) -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def rss_mb(pid: int) -> float:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stored(self) -> int:
        try:
            with sqlite3.connect(self.db, timeout=5) as conn:
                return int(conn.execute("SELECT count(*) FROM club_events").fetchone()[0])
        except sqlite3.Error:
            return -1

    def run(self) -> None:
        while not self.stop.wait(TICK):
            with contextlib.suppress(OSError, IndexError):  # a process gone at the end
                self.rows.append({"t": time.time(), "stored": self.stored(),
                                  "hub_cpu": [self.cpu(p) for p in self.hubs],
                                  "hub_rss": [self.rss_mb(p) for p in self.hubs],
                                  "broker_cpu": self.cpu(self.broker)})


class StandingsWatch:
    def __init__(self, host: str, port: int, event: str) -> None:
        self.seen: list[tuple[float, dict[str, int]]] = []
        self.c = client(host, port, "bench-standings")
        self.c.on_message = self._on_message
        self.c.subscribe(f"mahjong/v1/club/events/{event}/standings", qos=1)

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        body = json.loads(msg.payload)
        self.seen.append((time.time(), {p["name"]: p["games"] for p in body["players"]}))

    def latency(self, table: Table) -> float | None:
        if table.ended_at is None:
            return None
        for t, games in self.seen:
            if t >= table.ended_at and all(games.get(p, 0) >= 1 for p in table.players):
                return t - table.ended_at
        return None


def command(host: str, port: int, verb: str, body: dict[str, Any]) -> dict[str, Any]:
    """One organiser's command; sent again every few seconds until a desk has subscribed
    (a hub still starting) and answers."""
    answers: list[dict[str, Any]] = []
    c = client(host, port, f"bench-organiser-{verb}")
    c.on_message = lambda _c, _u, m: answers.append(json.loads(m.payload))
    c.subscribe(f"mahjong/v1/club/cmd/{verb}/result", qos=1)
    time.sleep(0.3)
    for _ in range(30):
        c.publish(f"mahjong/v1/club/cmd/{verb}", json.dumps(body), qos=1)
        deadline = time.monotonic() + 3
        while not answers and time.monotonic() < deadline:
            time.sleep(0.05)
        if answers:
            break
    c.disconnect()
    c.loop_stop()
    assert answers, f"no answer to {verb}"
    return answers[0]


# -- one run ----------------------------------------------------------------------------------

def run(games: list[list[tuple[str, dict[str, Any], bool]]], n_tables: int, hubs: int,
        hand_s: float) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="bench-club-"))
    broker = LocalMosquitto(persistence=True, extra="max_queued_messages 100000")
    broker.start()
    db = work / "club.db"
    procs = []
    for i in range(hubs):
        args = [*MJTABLE, "hub", "--mqtt", f"{broker.host}:{broker.port}", "--db", str(db),
                "--id", f"hub{i}"]
        if hubs > 1:
            args += ["--share", "bench"]
        with (work / f"hub{i}.log").open("w") as log:
            procs.append(subprocess.Popen(args, cwd=ROOT, stderr=log))
    time.sleep(4)
    players = [f"Player {i:03d}" for i in range(4 * n_tables)]
    table_ids = [f"t{i:03d}" for i in range(n_tables)]
    created = command(broker.host, broker.port, "event", {
        "action": "create", "event": "bench", "players": players, "tables": table_ids,
        "rounds": 1, "scheme": "raw", "round_minutes": 120})
    assert created["ok"], created
    started = command(broker.host, broker.port, "round", {"event": "bench", "action": "start"})
    assert started["ok"], started
    tables = [Table(t, started["tables"][t]) for t in table_ids]
    for i, table in enumerate(tables):
        build_script(table, games[i % len(games)], start=hand_s * i / len(tables),
                     hand_s=hand_s)
    watch = StandingsWatch(broker.host, broker.port, "bench")
    assert broker.proc is not None
    sampler = Sampler(db, [p.pid for p in procs], broker.proc.pid)
    sampler.start()
    published: list[float] = []
    offer = replay(tables, broker.host, broker.port, published)
    # drain: until every event is stored (or a minute passes)
    deadline = time.monotonic() + 60
    while sampler.stored() < offer["events"] and time.monotonic() < deadline:
        time.sleep(0.5)
    drained_at = time.time()
    time.sleep(5)
    sampler.stop.set()
    sampler.join()
    stored = sampler.stored()
    latencies = [x for x in (watch.latency(t) for t in tables) if x is not None]
    rows = sampler.rows
    cpu_s = [sum(rows[-1]["hub_cpu"]) - sum(rows[0]["hub_cpu"])]
    span = rows[-1]["t"] - rows[0]["t"]
    lag = [offered_by(published, r["t"]) - r["stored"] for r in rows if r["stored"] >= 0]
    for p in procs:
        p.terminate()
        p.wait(30)
    watch.c.disconnect()
    broker.close()
    last_end = max(t.ended_at or 0 for t in tables)
    return {
        "tables": n_tables, "hubs": hubs, "hand_seconds": hand_s,
        "events_offered": offer["events"], "messages_offered": offer["messages"],
        "events_stored": stored, "lost": offer["events"] - stored,
        "offer_seconds": round(offer["seconds"], 1),
        "events_per_s_offered": round(offer["events"] / offer["seconds"], 1),
        "messages_per_s_offered": round(offer["messages"] / offer["seconds"], 1),
        "events_per_s_stored": round(stored / max(1e-9, drained_at - rows[0]["t"]), 1),
        "drain_after_last_s": round(max(0.0, drained_at - last_end), 2),
        "lag_events_p50": statistics.median(lag) if lag else None,
        "lag_events_max": max(lag) if lag else None,
        "standings_latency_s": {
            "n": len(latencies),
            "p50": round(statistics.median(latencies), 3) if latencies else None,
            "p99": round(sorted(latencies)[int(0.99 * (len(latencies) - 1))], 3)
            if latencies else None},
        "hub_cpu_percent_of_core": round(100 * cpu_s[0] / span, 1),
        "hub_rss_mb_peak": [round(max(r["hub_rss"][i] for r in rows), 1)
                            for i in range(hubs)],
        "broker_cpu_percent_of_core": round(
            100 * (rows[-1]["broker_cpu"] - rows[0]["broker_cpu"]) / span, 1),
        "replay_late_p99_s": round(offer["late_p99_s"], 3),
    }


def offered_by(published: list[float], t: float) -> int:
    """Events published by wall time t."""
    return bisect.bisect_right(published, t)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--seeds", default="3,7")
    parser.add_argument("--hubs", default="1,2", help="hub counts to run, side by side")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results.json"))
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    hand_s = HAND_MINUTES * 60 / SPEED
    rec_broker = LocalMosquitto(persistence=False)
    rec_broker.start()
    t0 = time.monotonic()
    streams = record(rec_broker, seeds, args.hands)
    rec_broker.close()
    games = [slice_game(s, args.hands) for s in streams]
    print(f"recorded {len(seeds)} games in {time.monotonic() - t0:.0f} s: "
          f"{[sum(1 for g in game if g[0] == 'events') for game in games]} events "
          f"in their first {args.hands} hands", flush=True)
    results = {"setup": {"hand_minutes_at_play_speed": HAND_MINUTES, "speed": SPEED,
                         "hands_per_table": args.hands, "seeds": seeds,
                         "cpus": os.cpu_count()}, "runs": []}
    for hubs in (int(h) for h in args.hubs.split(",")):
        result = run(games, args.tables, hubs, hand_s)
        print(json.dumps(result), flush=True)
        results["runs"].append(result)  # type: ignore[attr-defined]
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
