"""The embedding network in a process of its own, the crops handed over in shared memory.

On a thread beside the finder, each network run waited for the interpreter twice: to begin,
and to hand its result back, while the finder (mostly Python) held it; on two cores the runs
took about twice their CPU time on the clock. In a process of its own the network never
waits for the scan's interpreter: the scan copies a batch's crops (9 kB each) into a slot of
shared memory, sends the slot's number down a pipe, and goes on; the process reads the
crops, runs the network (the same 8-bit model, on one thread, as the thread ran it: the same
vectors to the bit) and writes the unit vectors into the slot's place beside them.

The process (``python -m vision.network_worker``, a plain program: nothing of the caller's
main module is imported again) starts with the scanner and loads its model in the
background; until it is ready, runs go to the scan's second thread as before. It ends with
:meth:`NetworkProcess.close`, when its owner is collected or the caller's process exits, and
of itself when its input closes (its parent gone, however). A run the process has not
begun can be taken back (:meth:`Run.take_back`) and done by the caller. A process that dies
or hangs is killed and started again; the runs it held are done by the caller, so the scan
gets the same answer.

Memory: the shared slots are 19 MB (crops 9.4, a frame up to 2304x1296 9.0); the process holds
its own numpy, OpenCV and ONNX Runtime (120-130 MB resident, measured on x86).
"""

from __future__ import annotations

import logging
import os
import select
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from multiprocessing import shared_memory
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.crops import CROP_H, CROP_W
from vision.image import Image

log = logging.getLogger(__name__)

SLOTS = 32  # runs in flight in one scan (a table's ~70 tiles are ~9 runs)
SLOT_CROPS = 32  # crops a run holds at most
DIM = 64  # the embedding's length
FRAME_BYTES = 2304 * 1296 * 3  # the largest frame whose tiles the process cuts itself
RUN_TIMEOUT_S = 5.0  # a run of 32 crops takes ~5 ms: a process this late is hung
# Processes that end before they are ready, in a row, before none is started again (the
# runs stay on the scan's second thread).
MAX_FAILED_STARTS = 3

# A slot's state, in the shared memory: which side does its run. The process marks a slot it
# begins; the caller marks one it takes back. Both may see it queued at the same instant:
# then both run it, to the same vectors, and the caller keeps its own.
FREE, QUEUED, RUNNING, TAKEN = 0, 1, 2, 3

# The pipes' records: to the process a run (number, slot, crops, and 1 when it cuts them
# from the shared frame at the slot's corners; number 0 ends it), from it an answer (number,
# 1 ran / 0 not / -1 failed, its CPU seconds so far); number 0 answers "ready" with its
# process id.
REQUEST = struct.Struct("<iiii")
ANSWER = struct.Struct("<iid")

Vectors = NDArray[np.float32]


class WorkerGone(RuntimeError):
    """The network's process died, hung or failed a run: the caller does the run itself."""


def layout() -> dict[str, tuple[int, tuple[int, ...], Any]]:
    """The shared memory's arrays: name -> (offset, shape, dtype)."""
    crops = (SLOTS, SLOT_CROPS, CROP_H, CROP_W, 3)
    vectors_at = SLOTS * SLOT_CROPS * CROP_H * CROP_W * 3
    quads_at = vectors_at + SLOTS * SLOT_CROPS * DIM * 4
    size_at = quads_at + SLOTS * SLOT_CROPS * 8 * 4
    frame_at = size_at + 2 * 4
    state_at = frame_at + FRAME_BYTES
    return {
        "crops": (0, crops, np.uint8),
        "vectors": (vectors_at, (SLOTS, SLOT_CROPS, DIM), np.float32),
        "quads": (quads_at, (SLOTS, SLOT_CROPS, 4, 2), np.float32),
        "frame_size": (size_at, (2,), np.int32),  # the shared frame's height and width
        "frame": (frame_at, (FRAME_BYTES,), np.uint8),
        "state": (state_at, (SLOTS,), np.int8),
    }


def shared_arrays(buffer: Any) -> dict[str, NDArray[Any]]:
    """The arrays of :func:`layout` over ``buffer``."""
    return {
        name: np.ndarray(shape, dtype, buffer=buffer, offset=offset)
        for name, (offset, shape, dtype) in layout().items()
    }


def _size() -> int:
    offset, shape, _ = layout()["state"]
    return offset + shape[0]


class NetworkProcess:
    """One process running the embedding network at ``onnx_path`` (its 8-bit copy when
    ``quantised``) for one caller at a time (:meth:`begin` / :meth:`end`)."""

    def __init__(self, onnx_path: Path, quantised: bool) -> None:
        self.onnx_path = onnx_path
        self.quantised = quantised
        self._memory = shared_memory.SharedMemory(create=True, size=_size())
        arrays = shared_arrays(self._memory.buf)
        self._crops, self._vectors, self._state = (
            arrays["crops"],
            arrays["vectors"],
            arrays["state"],
        )
        self._quads, self._frame = arrays["quads"], arrays["frame"]
        self._frame_size = arrays["frame_size"]
        self._frame_copied: Future[None] | None = None
        self._user = threading.Lock()  # one scan at a time
        self._child: subprocess.Popen[bytes] | None = None
        self._ready = False
        self._closed = False
        self._seq = 0
        self._next_slot = 0
        self._pending: dict[int, int] = {}  # run number -> slot, sent and not answered
        self._answers: dict[int, bool] = {}  # run number -> whether the process ran it
        self._cpu_before = 0.0  # CPU seconds of the processes before this one
        self._cpu_now = 0.0
        self._unread = b""
        self.restarts = 0
        self._failed_starts = 0
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._start()

    # The process's life.

    def _start(self) -> None:
        root = str(Path(__file__).resolve().parents[1])
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
        )
        command = [sys.executable, "-m", "vision.network_worker", self._memory.name]
        command += [str(self.onnx_path), "1" if self.quantised else "0"]
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self._child, self._ready, self._unread = child, False, b""
        self._pending.clear()
        self._answers.clear()
        self._state[:] = FREE
        if self._finalizer is not None:
            self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _stop, child, self._memory)

    @property
    def pid(self) -> int | None:
        return None if self._child is None else self._child.pid

    def ready(self, wait_s: float = 0.0) -> bool:
        """Whether the process has loaded its model (waiting up to ``wait_s`` for it)."""
        if self._ready or self._closed or self._child is None:
            return self._ready
        try:
            answer = self._read(wait_s)
        except EOFError:
            self._failed_starts += 1
            log.warning("the network's process failed to start (exit %s)", self._child.wait())
            self._restart()
            return False
        if answer is not None:
            self._ready = answer[0] == 0 and answer[1] == self._child.pid
            self._failed_starts = 0 if self._ready else self._failed_starts
        return self._ready

    def cpu_s(self) -> float:
        """CPU seconds the network's processes have spent so far (at their last answer)."""
        return self._cpu_before + self._cpu_now

    def close(self) -> None:
        """End the process (it finishes the run in hand), wait for it, free the memory."""
        self._closed = True
        if self._finalizer is not None:
            self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether the process was ended for good (closed, or failing to start)."""
        return self._closed

    def _restart(self) -> None:
        """Kill the process (dead or hung) and start another; its runs are the caller's.
        One that keeps failing to start is not started again."""
        assert self._child is not None and self._finalizer is not None
        self._cpu_before += self._cpu_now
        self._cpu_now = 0.0
        if self._closed or self._failed_starts >= MAX_FAILED_STARTS:
            if not self._closed:
                log.error("the network's process fails to start: the scan's thread runs it")
            self.close()  # the process ended, the memory freed
            return
        self._finalizer.detach()
        _end(self._child)
        self.restarts += 1
        log.warning("the network's process stopped; starting another")
        self._start()

    # One scan's runs.

    def begin(self) -> bool:
        """Take the process for one scan; False when it is not ready or another has it."""
        if self._child is not None and self._child.poll() is not None and not self._closed:
            self._pending.clear()
            self._restart()  # it died between scans
        if not self.ready() or not self._user.acquire(blocking=False):
            return False
        try:
            while self._pending:  # every run sent answered: no slot is read when reused
                self._receive()
        except WorkerGone:
            self._user.release()
            return False
        self._next_slot = 0
        self._frame_copied = None
        return True

    def end(self) -> None:
        """Give the process back (runs not gathered are answered before the next scan)."""
        self._user.release()

    def share_frame(self, frame: Image, helper: Executor) -> bool:
        """Copy ``frame`` into the shared memory on ``helper`` (numpy lets go of the
        interpreter meanwhile), for :meth:`submit_quads`; False when it does not fit."""
        if frame.nbytes > FRAME_BYTES or frame.dtype != np.uint8 or not frame.flags.c_contiguous:
            return False
        h, w = frame.shape[:2]
        self._frame_size[:] = (h, w)
        target = self._frame[: frame.nbytes].reshape(frame.shape)
        self._frame_copied = helper.submit(np.copyto, target, frame)
        return True

    def submit_quads(self, quads: NDArray[np.float32]) -> Run | None:
        """A run of the network on the tiles at ``quads`` (N x 4 x 2, frame pixels) of the
        frame shared (:meth:`share_frame`): the process cuts their crops, into the slot,
        as :func:`vision.finder.cut_quad` does here. None as for :meth:`submit`."""
        n = len(quads)
        copied = self._frame_copied
        if copied is None or not self._can_take(n):
            return None
        copied.result()
        self._quads[self._next_slot, :n] = quads
        return self._send(n, True)

    def _can_take(self, n: int) -> bool:
        return 0 < n <= SLOT_CROPS and self._next_slot < SLOTS and self._ready

    def submit(self, crops: Sequence[Image]) -> Run | None:
        """A run of the network on ``crops`` (each CROP_H x CROP_W x 3), begun in the
        process; None when it cannot take it (no slot left, too many crops, not ready)."""
        n = len(crops)
        if not self._can_take(n):
            return None
        for k, crop in enumerate(crops):
            self._crops[self._next_slot, k] = crop
        return self._send(n, False)

    def _send(self, n: int, cut: bool) -> Run | None:
        assert self._child is not None and self._child.stdin is not None
        slot = self._next_slot
        self._seq += 1
        self._state[slot] = QUEUED
        try:
            self._child.stdin.write(REQUEST.pack(self._seq, slot, n, int(cut)))
            self._child.stdin.flush()
        except (OSError, ValueError):  # it died: this run and the rest go elsewhere
            self._pending.clear()
            self._restart()
            return None
        self._next_slot += 1
        self._pending[self._seq] = slot
        return Run(self, self._seq, slot, n)

    def _take_back(self, slot: int) -> bool:
        if self._state[slot] != QUEUED:
            return False
        self._state[slot] = TAKEN
        return True

    def _wait(self, seq: int, slot: int, n: int) -> tuple[list[Image], Vectors]:
        while seq in self._pending:
            self._receive()
        if not self._answers.pop(seq, False):
            raise WorkerGone("the network's process did not run the crops")
        return list(self._crops[slot, :n].copy()), self._vectors[slot, :n].copy()

    def _read(self, wait_s: float) -> tuple[int, int, float] | None:
        """One answer, if one comes within ``wait_s``; EOFError when the pipe is closed."""
        assert self._child is not None and self._child.stdout is not None
        fd = self._child.stdout.fileno()
        deadline = time.monotonic() + wait_s
        while len(self._unread) < ANSWER.size:
            left = deadline - time.monotonic()
            if not select.select([fd], [], [], max(0.0, left))[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise EOFError
            self._unread += chunk
        answer = ANSWER.unpack_from(self._unread)
        self._unread = self._unread[ANSWER.size :]
        return answer

    def _receive(self) -> None:
        """One answer from the process, or :class:`WorkerGone` (the process restarted)."""
        try:
            answer = self._read(RUN_TIMEOUT_S)
            if answer is None:
                raise EOFError  # hung
        except (EOFError, OSError) as exc:
            self._pending.clear()
            self._restart()
            raise WorkerGone("the network's process died or hung") from exc
        seq, ran, cpu = answer
        self._pending.pop(seq, None)
        self._answers[seq] = ran == 1
        self._cpu_now = cpu
        if ran < 0:
            log.warning("the network's process failed a run (its message is on its stderr)")


class Run:
    """One run of the network in the process, on ``n`` crops in ``slot``."""

    def __init__(self, owner: NetworkProcess, seq: int, slot: int, n: int) -> None:
        self._owner, self._seq, self._slot, self._n = owner, seq, slot, n
        self.taken_back = False

    def take_back(self) -> bool:
        """Whether the run was not begun, and is now the caller's to do."""
        self.taken_back = self._owner._take_back(self._slot)
        return self.taken_back

    def vectors(self) -> Vectors:
        """The crops' unit vectors, once the process has run them; :class:`WorkerGone`
        when it could not."""
        return self.result()[1]

    def result(self) -> tuple[list[Image], Vectors]:
        """The crops (cut by the process, or as given) and their unit vectors."""
        return self._owner._wait(self._seq, self._slot, self._n)


def _end(child: subprocess.Popen[bytes]) -> None:
    """End the process: its input closed (it exits after the run in hand), then killed."""
    try:
        assert child.stdin is not None
        child.stdin.close()
    except OSError:
        pass
    try:
        child.wait(0.25)  # a run takes milliseconds; one still loading is killed at once
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(1.0)
    if child.stdout is not None:
        child.stdout.close()


def _stop(child: subprocess.Popen[bytes], memory: shared_memory.SharedMemory) -> None:
    _end(child)
    memory.close()
    memory.unlink()
