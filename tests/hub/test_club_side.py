"""`mjtable hub --web`: the hub process also runs the organiser's desk and serves the club
page, and stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.request
from pathlib import Path

from controller.broker import LocalMosquitto, free_port
from tests.faults.mqtt_probe import Probe
from tests.hub.club_rig import MJTABLE
from tests.waiting import wait_until


def test_the_hub_runs_the_desk_and_serves_the_club_page(tmp_path: Path) -> None:
    port = free_port()
    with LocalMosquitto() as broker:
        hub = subprocess.Popen([MJTABLE, "hub", "--mqtt", f"127.0.0.1:{broker.port}", "--db",
                                str(tmp_path / "club.db"), "--web", f"127.0.0.1:{port}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        organiser = Probe(broker.host, broker.port, "organiser")
        try:
            def page() -> bytes | None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/club",
                                                timeout=2) as r:
                        return bytes(r.read())
                except OSError:
                    return None

            assert wait_until(lambda: page() is not None, 30)
            assert json.loads(page() or b"{}") == {"tables": {}, "events": {}}
            assert organiser.connect() == "Success"
            organiser.subscribe("mahjong/v1/club/#")
            create = json.dumps({"action": "create", "event": "night", "tables": ["t1"],
                                 "players": ["Ann", "Bob", "Cy", "Dee"]}).encode()

            def answered() -> bool:
                return any(t == "mahjong/v1/club/cmd/event/result"
                           for t, _ in organiser.messages)

            # the desk subscribes just after the hub: ask until it answers
            assert wait_until(lambda: organiser.publish("mahjong/v1/club/cmd/event", create)
                              in ("Success", "No matching subscribers") and
                              wait_until(answered, 1), 30)
            answer = next(json.loads(b) for t, b in organiser.messages
                          if t == "mahjong/v1/club/cmd/event/result")
            assert answer["ok"] and answer["event"] == "night"
            # the page shows the event from the club broker's retained topics
            assert wait_until(lambda: "night" in json.loads(page() or b"{}")["events"], 10)
            hub.send_signal(signal.SIGTERM)
            assert hub.wait(30) == 0
        finally:
            organiser.close()
            if hub.poll() is None:
                hub.kill()


def test_the_hub_offers_the_organisers_desk_with_a_password_file(tmp_path: Path) -> None:
    import http.cookiejar

    password_file = tmp_path / "organiser.password"
    made = subprocess.run([MJTABLE, "web", "passwd", str(password_file)],
                          input="east wind rises\n", text=True, capture_output=True)
    assert made.returncode == 0, made.stderr
    plain = tmp_path / "plain.password"
    plain.write_text("east wind rises\n")  # the password itself, not its hash
    # bad uses refused before anything starts, naming the option
    for extra, error in (([], "give --web too"), (["--web", "127.0.0.1:0"],
                                                  "not a password hash")):
        bad = subprocess.run([MJTABLE, "hub", "--mqtt", "127.0.0.1:1", "--db",
                              str(tmp_path / "never.db"), *extra,
                              "--organiser-password-file",
                              str(password_file if not extra else plain)],
                             capture_output=True, text=True, timeout=30)
        assert bad.returncode == 2 and error in bad.stdout and \
            '"where": "--organiser-password-file"' in bad.stdout
    assert not (tmp_path / "never.db").exists()

    port = free_port()
    base = f"http://127.0.0.1:{port}/api/desk/"
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def post(path: str, body: dict[str, object]) -> dict[str, object] | None:
        try:
            with opener.open(urllib.request.Request(base + path, json.dumps(body).encode(),
                                                    method="POST"), timeout=5) as r:
                return dict(json.loads(r.read()))
        except OSError:
            return None

    with LocalMosquitto() as broker:
        hub = subprocess.Popen([MJTABLE, "hub", "--mqtt", f"127.0.0.1:{broker.port}", "--db",
                                str(tmp_path / "club.db"), "--web", f"127.0.0.1:{port}",
                                "--organiser-password-file", str(password_file)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert wait_until(lambda: post("login", {"password": "east wind rises"}), 30)
            answer = post("event", {"action": "create", "event": "night", "tables": ["t1"],
                                    "players": ["Ann", "Bob", "Cy", "Dee"]})
            assert answer is not None and answer["ok"] and answer["event"] == "night"
            hub.send_signal(signal.SIGTERM)
            assert hub.wait(30) == 0
        finally:
            if hub.poll() is None:
                hub.kill()
