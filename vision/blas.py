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
from functools import cache
from typing import Any

from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

_LOCK = threading.Lock()


@cache
def _controller() -> Any:
    """The process's thread pools (inspecting the libraries takes milliseconds: once)."""
    return ThreadpoolController()


class _Limit:
    """The one limiter open while any thread is inside, and how many entries are."""

    depth = 0
    limiter: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread while any thread is inside."""
    with _LOCK:
        if _Limit.depth == 0:
            _Limit.limiter = _controller().limit(limits=1, user_api="blas")
        _Limit.depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _Limit.depth -= 1
            if _Limit.depth == 0:
                _Limit.limiter.restore_original_limits()
                _Limit.limiter = None


def blas_threads() -> list[int]:
    """The BLAS libraries' thread counts now (for the tests)."""
    with _LOCK:
        return [
            int(lib["num_threads"]) for lib in _controller().info() if lib["user_api"] == "blas"
        ]
