"""BLAS on one thread for the small products of naming tiles.

A product of a few dozen crops' vectors with the prototypes is slower on several BLAS
threads than on one, and far slower when the cores are busy (16 ms against 0.1 ms beside
another job). The limit is the process's, and setting and restoring it costs about as much
as the product: so it is set on the first entry into :func:`one_blas_thread`, from any
thread, and restored on the last exit (a scan enters once around all its naming; each
product enters again for nothing).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

_LOCK = threading.Lock()
_CONTROLLER: list[ThreadpoolController] = []
_ENTERED: list[Any] = []  # the limiter of the outermost entry, once per entry still open


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread while any thread is inside."""
    with _LOCK:
        if not _ENTERED:
            if not _CONTROLLER:  # inspecting the libraries takes milliseconds: once
                _CONTROLLER.append(ThreadpoolController())
            _ENTERED.append(_CONTROLLER[0].limit(limits=1, user_api="blas"))
        else:
            _ENTERED.append(_ENTERED[0])
    try:
        yield
    finally:
        with _LOCK:
            limiter = _ENTERED.pop()
            if not _ENTERED:
                limiter.restore_original_limits()


def blas_threads() -> list[int]:
    """The BLAS libraries' thread counts now (for the tests)."""
    with _LOCK:
        if not _CONTROLLER:
            _CONTROLLER.append(ThreadpoolController())
        return [
            int(lib["num_threads"]) for lib in _CONTROLLER[0].info() if lib["user_api"] == "blas"
        ]
