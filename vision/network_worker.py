"""The embedding network's own process (vision/embed_process.py): reads runs from its input,
runs the network on the crops in shared memory, writes the vectors beside them and answers.

    python -m vision.network_worker SHARED_MEMORY_NAME ONNX_PATH QUANTISED(0|1)

It ends when its input closes (the scanner's process gone, however) or asks it to.
"""

from __future__ import annotations

import os
import sys
import time
from multiprocessing import resource_tracker, shared_memory
from pathlib import Path

import cv2

from vision.embed_process import ANSWER, QUEUED, REQUEST, RUNNING, shared_arrays
from vision.finder.crops import cut_quad


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


def serve(memory_name: str, onnx_path: Path, quantised: bool) -> int:
    cv2.setNumThreads(1)
    from vision.embedder import Embedder

    memory = shared_memory.SharedMemory(name=memory_name)
    # The scanner's process made the memory and frees it; this one only uses it.
    resource_tracker.unregister(memory._name, "shared_memory")  # type: ignore[attr-defined]
    arrays = shared_arrays(memory.buf)
    crops, vectors, state = arrays["crops"], arrays["vectors"], arrays["state"]
    quads, frame, frame_size = arrays["quads"], arrays["frame"], arrays["frame_size"]
    embedder = Embedder(onnx_path, threads=1, runtime="onnxruntime", quantised=quantised)
    inp, out = sys.stdin.fileno(), sys.stdout.fileno()
    os.write(out, ANSWER.pack(0, os.getpid(), time.process_time()))
    while True:
        record = _read_exactly(inp, REQUEST.size)
        if not record:
            break
        seq, slot, n, cut = REQUEST.unpack(record)
        if seq == 0:
            break
        ran = 0
        if state[slot] == QUEUED:
            state[slot] = RUNNING
            try:
                if cut:
                    h, w = (int(v) for v in frame_size)
                    image = frame[: h * w * 3].reshape(h, w, 3)
                    for k in range(n):
                        crops[slot, k] = cut_quad(image, quads[slot, k])
                output = embedder.forward(embedder.blob(list(crops[slot, :n])))
                vectors[slot, :n] = embedder.vectors(output)
                ran = 1
            except Exception as exc:  # ONNX Runtime's run errors share no narrower base
                print(f"network run failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                ran = -1
        os.write(out, ANSWER.pack(seq, ran, time.process_time()))
    del crops, vectors, state, quads, frame, frame_size, arrays
    memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1], Path(sys.argv[2]), sys.argv[3] == "1"))
