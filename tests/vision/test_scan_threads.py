"""Work the scan shares with its second thread gives what one thread gives: the table
flattened in two halves (or whole, when that thread is busy); and BLAS kept on one thread
while either thread names tiles."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from vision.blas import blas_threads, one_blas_thread
from vision.calibration import calibrate
from vision.finder import rectify

from .conftest import rendered_table


def test_the_table_flattened_in_two_halves_is_the_same_pixels() -> None:
    table = rendered_table(81, "kde-traditional")
    cal = calibrate(table.image, table.geometry)
    alone = rectify(table.image, cal)
    with ThreadPoolExecutor(1) as helper:
        assert np.array_equal(rectify(table.image, cal, helper=helper), alone)
        for box in ((200, 150, 520, 401), (0, 0, 900, 1), (10, 880, 900, 900)):
            x0, y0, x1, y1 = box
            part = rectify(table.image, cal, box, helper)
            assert np.array_equal(part, alone[y0:y1, x0:x1])


def test_the_table_is_flattened_whole_when_the_other_thread_never_begins() -> None:
    table = rendered_table(82, "xmj-real")
    cal = calibrate(table.image, table.geometry)
    alone = rectify(table.image, cal)
    release = threading.Event()
    with ThreadPoolExecutor(1) as busy:
        busy.submit(release.wait)  # the thread is taken until the flattening is done
        try:
            assert np.array_equal(rectify(table.image, cal, helper=busy), alone)
        finally:
            release.set()


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
