"""Work the scan shares with its second thread gives what one thread gives: a part of the
table flattened is that part of the whole (the second thread flattens some parts:
test_scan_fast_paths.py); and BLAS kept on one thread while either thread names tiles.
The service's scanner runs on the threads the benchmarks measure."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from vision.blas import blas_threads, one_blas_thread
from vision.calibration import calibrate
from vision.finder import rectify
from vision.threads import SCAN_THREADS, ScanThreads

from .conftest import rendered_table


def test_a_part_of_the_table_flattened_is_the_same_pixels_as_the_whole() -> None:
    table = rendered_table(81, "kde-traditional")
    cal = calibrate(table.image, table.geometry)
    alone = rectify(table.image, cal)
    for box in ((200, 150, 520, 401), (0, 0, 900, 1), (10, 880, 900, 900)):
        x0, y0, x1, y1 = box
        assert np.array_equal(rectify(table.image, cal, box), alone[y0:y1, x0:x1])


def _enter_and_leave() -> None:
    with one_blas_thread():
        pass


def test_blas_stays_on_one_thread_until_the_last_exit_from_any_thread() -> None:
    # The libraries' counts are read on this thread (OpenBLAS reports its own elsewhere).
    with ThreadpoolController().limit(limits=2, user_api="blas"):  # as on a two-core machine
        before = blas_threads()
        assert before == [2] * len(before) and before
        with one_blas_thread():
            assert all(n == 1 for n in blas_threads())
            with ThreadPoolExecutor(1) as other:
                other.submit(_enter_and_leave).result()
            assert all(n == 1 for n in blas_threads())  # this entry is still open
        assert blas_threads() == before


def test_the_services_scanner_runs_opencv_and_the_network_on_one_thread_each() -> None:
    """The camera loop's scanner (what the service runs) sets OpenCV to the scan's threads
    before its network is loaded, whatever the process had: the network's sessions then run
    on one thread too, as bench/vision/ measures them."""
    from controller.camera import CameraLoop
    from controller.inputs import RecordedInputs

    table = rendered_table(83, "kde-traditional")
    before = cv2.getNumThreads()
    cv2.setNumThreads(4)  # OpenCV's default on a four-core Pi
    try:
        loop = CameraLoop("render:3", RecordedInputs(), geometry=table.geometry)
        scanner = loop._scanner(table.image)
        assert scanner.threads == SCAN_THREADS and SCAN_THREADS.applied()
        assert cv2.getNumThreads() == SCAN_THREADS.opencv == 1
        assert scanner.recogniser.embedder._threads == 1
        assert scanner.scan(table.image).tiles  # and it scans
        scanner.close()
        ScanThreads(opencv=3).apply()
        assert not SCAN_THREADS.applied()
    finally:
        cv2.setNumThreads(before)
