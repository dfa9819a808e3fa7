"""The embedding network in a process of its own (vision/embed_process.py): the same vectors
and the same scan as on the scan's own threads; it starts with the scanner and ends with it,
or with the process that made it; killed, it is started again and the scan still answers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from tests.waiting import wait_until
from vision.calibration import calibrate
from vision.embed_process import NetworkProcess
from vision.embedder import Embedder
from vision.finder import find, tile_crops, tile_quads
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.scan import Scanner, load_scanner
from vision.synth.render import Rendered
from vision.threads import SCAN_THREADS, ScanThreads

from .conftest import rendered_table

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    """Whether the process has exited (a zombie not yet reaped counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


@pytest.fixture(scope="module")
def table() -> Rendered:
    return rendered_table(520, "kde-traditional")


@pytest.fixture(scope="module")
def default() -> Recogniser:
    return Recogniser.load(DEFAULT_MODEL_DIR)


def test_the_process_gives_the_vectors_the_scans_own_threads_give(table: Rendered) -> None:
    cal = calibrate(table.image, table.geometry)
    crops = tile_crops(table.image, cal, [f for f in find(table.image, cal) if f.kind == "tile"])
    embedder = Embedder()
    process = NetworkProcess(embedder.path, embedder.quantised)
    try:
        assert process.ready(60)
        assert process.begin()
        batches = [crops[k : k + 8] for k in range(0, len(crops), 8)]
        runs = [process.submit(batch) for batch in batches]
        assert process.submit(crops[:33]) is None  # more than a slot holds: not taken
        for batch, run in zip(batches, runs, strict=True):
            assert run is not None
            assert np.array_equal(run.vectors(), embedder.embed(batch, shared=True))
        process.end()
        # The tiles cut by the process from the shared frame: the crops cut here, to the bit.
        tiles = [f for f in find(table.image, cal) if f.kind == "tile"][:20]
        with ThreadPoolExecutor(1) as helper:
            assert process.begin()
            assert process.share_frame(table.image, helper)
            run = process.submit_quads(tile_quads(cal, tiles))
            assert run is not None
            cut, vectors = run.result()
            process.end()
        here = tile_crops(table.image, cal, tiles)
        assert all(np.array_equal(a, b) for a, b in zip(cut, here, strict=True))
        assert np.array_equal(vectors, embedder.embed(here, shared=True))
        assert process.cpu_s() > 0
    finally:
        process.close()
    assert process.pid is not None and _gone(process.pid)


def test_a_scan_with_the_network_in_its_process_names_every_tile_alike(
    table: Rendered, default: Recogniser
) -> None:
    busy = rendered_table(512, "kde-traditional", discards=60, hand=1.0)
    for rendered in (table, busy):
        cal = calibrate(rendered.image, rendered.geometry)
        scanner = Scanner(cal, default, away=True)
        assert scanner.wait_ready(60)
        before = scanner.network_cpu_s()
        seen = scanner.scan(rendered.image)
        assert scanner.network_cpu_s() > before  # the process ran some of the tiles
        alone = Scanner(cal, default, away=False).scan(rendered.image)
        assert seen.to_json() == alone.to_json()
        assert len(seen.tiles) > 40
        # The live cache's scans put half their crops there.
        with Scanner(cal, default, cache=True, away=True) as cached:
            assert cached.scan(rendered.image).to_json() == alone.to_json()


def test_a_process_killed_during_a_scan_is_started_again_and_the_scan_answers(
    table: Rendered, default: Recogniser, monkeypatch: pytest.MonkeyPatch
) -> None:
    cal = calibrate(table.image, table.geometry)
    expected = Scanner(cal, default, away=False).scan(table.image).to_json()
    scanner = Scanner(cal, default, away=True)
    assert scanner.wait_ready(60)
    process = default.embedder.network_process()
    assert process is not None
    first_pid, restarts = process.pid, process.restarts
    assert first_pid is not None
    submit = process.submit

    def submit_then_die(crops: list[np.ndarray]) -> object:
        run = submit(crops)
        os.kill(first_pid, signal.SIGKILL)  # after the first run is sent
        return run

    monkeypatch.setattr(process, "submit", submit_then_die)
    assert scanner.scan(table.image).to_json() == expected
    monkeypatch.undo()
    assert process.restarts == restarts + 1
    assert wait_until(lambda: process.ready(), timeout=60)
    assert process.pid != first_pid and wait_until(lambda: _gone(first_pid), timeout=10)
    assert scanner.scan(table.image).to_json() == expected  # the new process serves


def test_a_process_that_cannot_load_its_model_is_given_up_and_its_memory_freed(
    tmp_path: Path,
) -> None:
    process = NetworkProcess(tmp_path / "missing.onnx", quantised=True)
    memory = Path("/dev/shm") / process._memory.name
    assert wait_until(lambda: not process.ready(0.5) and process.closed, timeout=60)
    assert process.restarts == 2  # three starts in all
    assert not process.begin()
    assert not memory.exists()


def test_closing_the_services_scanner_ends_its_network_process(table: Rendered) -> None:
    cal = calibrate(table.image, table.geometry)
    scanner = load_scanner(cal, DEFAULT_MODEL_DIR, threads=ScanThreads(network_process=True))
    assert scanner.wait_ready(60)
    process = scanner.recogniser.embedder.network_process()
    assert process is not None and process.pid is not None
    pid = process.pid
    memory = Path("/dev/shm") / process._memory.name
    assert memory.exists()
    scanner.scan(table.image)
    scanner.close()
    assert _gone(pid)  # closed and waited for
    assert not memory.exists()  # the shared memory freed


def test_the_network_process_is_off_unless_asked_for() -> None:
    """On two shared cores it was no sooner and cost more CPU: the default is the thread."""
    assert not SCAN_THREADS.network_process or os.environ.get("MJTABLE_NETWORK_PROCESS") == "1"
    script = "from vision.threads import SCAN_THREADS; print(SCAN_THREADS.network_process)"
    for value, expected in (("1", "True"), ("0", "False"), ("", "False")):
        env = dict(os.environ, MJTABLE_NETWORK_PROCESS=value)
        out = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert out.stdout.strip() == expected


def test_the_network_process_ends_when_the_scanners_process_is_killed() -> None:
    script = textwrap.dedent(
        """
        import sys, time
        from vision.embedder import Embedder
        process = Embedder().network_process()
        assert process.ready(60)
        print(process.pid, flush=True)
        time.sleep(60)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert not _gone(pid)
        parent.send_signal(signal.SIGKILL)  # no clean-up of any kind
        parent.wait(10)
        assert wait_until(lambda: _gone(pid), timeout=10)
    finally:
        parent.kill()
        parent.wait(10)
