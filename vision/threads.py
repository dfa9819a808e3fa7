"""The threads a scan runs on, set in one place for the service, the commands and the benchmarks.

A scan is two threads of its own (vision/scan.py): the finder's, mostly Python, and the one
that runs the network beside it (vision/embed_ahead.py, ONNX Runtime on one intra-op thread).
OpenCV's own pool, left at its default, starts a thread per core for each large call (the
flattening, the colour conversions) and takes the cores the network's runs need: on the two
cores of a Pi the three fight. So OpenCV runs on the calling thread alone
(``cv2.setNumThreads(1)``), as every benchmark in bench/vision/ has measured it.

The setting is the process's. The network's sessions take their intra-op threads from
OpenCV's setting when they are loaded (vision/embedder.py: one knob sets both), so it is set
before a recogniser is loaded (:func:`vision.scan.load_scanner`) and again by every
:class:`vision.scan.Scanner`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import cv2


@dataclass(frozen=True)
class ScanThreads:
    """``opencv``: the threads of OpenCV's pool (1: the calling thread alone).
    ``switch_interval_s``: how long a Python thread holds the interpreter while another
    waits for it (``sys.setswitchinterval``); None leaves the interpreter's own (5 ms).
    ``network_process``: the network runs in a process of its own (vision/embed_process.py)
    rather than on the scan's second thread. Off by default: on two shared cores it cost
    3-5 % more CPU and was no sooner (bench/vision/README.md, seventeenth round); where a
    core is free for it (a Pi's four), ``MJTABLE_NETWORK_PROCESS=1`` turns it on for the
    service, the commands and the benchmarks."""

    opencv: int = 1
    switch_interval_s: float | None = None
    network_process: bool = False

    def apply(self) -> None:
        if cv2.getNumThreads() != self.opencv:
            cv2.setNumThreads(self.opencv)
        if self.switch_interval_s is not None:
            sys.setswitchinterval(self.switch_interval_s)

    def applied(self) -> bool:
        """Whether the process runs with these settings now."""
        switch = self.switch_interval_s
        return cv2.getNumThreads() == self.opencv and (
            switch is None or sys.getswitchinterval() == switch
        )


# What the service, `mjtable vision scan`, the simulated camera and the benchmarks run.
SCAN_THREADS = ScanThreads(network_process=os.environ.get("MJTABLE_NETWORK_PROCESS") == "1")
