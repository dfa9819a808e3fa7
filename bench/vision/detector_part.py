"""Part 4 of the vision benchmark (bench_vision.py): the PyPI `mahjong-detector` 0.0.6 and our
scan on the same frames, scored on the 34 kinds it knows."""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from identity_parts import recognisers  # noqa: E402
from other_revision import OtherRevision  # noqa: E402
from scan_parts import frames, match_tile  # noqa: E402
from scan_worker import scan_once  # noqa: E402

from vision.calibration import calibrate  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Recogniser  # noqa: E402
from vision.labels import CHINESE_LABELS  # noqa: E402
from vision.scan import Scanner  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402

_DETECTOR_TO_TOKEN = {
    **{f"{r}m": f"{r}C" for r in range(1, 10)},
    **{f"{r}p": f"{r}D" for r in range(1, 10)},
    **{f"{r}s": f"{r}B" for r in range(1, 10)},
    "tou": "EW",
    "nan": "SW",
    "sha": "WW",
    "pe": "NW",
    "chun": "RD",
    "hatsu": "GD",
    "haku": "WD",
}


def _score_detections(
    found: list[tuple[Any, tuple[int, int]]], centres: np.ndarray, tiles: list[Any], names: Any
) -> int:
    """Detections (with their window offsets) that name a true tile within 15 px of it."""
    used: set[int] = set()
    for d, (ox, oy) in found:
        cx, cy = (d.x1 + d.x2) / 2 + ox, (d.y1 + d.y2) / 2 + oy
        dist = np.linalg.norm(centres - [cx, cy], axis=1)
        k = int(dist.argmin())
        token = _DETECTOR_TO_TOKEN.get(names[d.class_id])
        if dist[k] < 15 and k not in used and token == tiles[k].label:
            used.add(k)
    return len(used)


# What each of part 4's keys runs, as the README and bench/vision/README.md name it.
PEER_CONFIGURATIONS = {
    "detector": "the peer's whole pipeline: its own ONNX Runtime session, on both cores "
    "(the README's ratio)",
    "detector_1thread": "the peer's pipeline with its model on one thread",
    "detector_sahi": "the peer's pipeline on six 640-px windows, its own session",
    "ours_default": "our whole scan, bundled prototypes (set never enrolled)",
    "ours_enrolled": "our whole scan, the set enrolled: OpenCV on one thread, the network "
    "beside the finder on a second thread",
    "ours_enrolled_at_rev": "the same scan at the other revision, in its own process",
}


class _Peer:
    """The PyPI package's pipeline: its own ONNX Runtime session (every core), or the same
    model on one thread, as ours runs (its pipeline takes the session from a thread-local,
    swapped in for that)."""

    def __init__(self) -> None:
        import onnxruntime
        from mahjong_detector.predict import CLASS_NAMES, predict
        from mahjong_detector.preprocess import preprocess_image

        self.class_names = CLASS_NAMES
        self._predict = predict
        self._preprocess = preprocess_image
        # The module (the package's ``predict`` attribute is the function of that name).
        self._module = importlib.import_module("mahjong_detector.predict")
        self._own_session = self._module.get_inference_session()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        self._one_thread = onnxruntime.InferenceSession(str(self._module.model_path), options)

    def detect(self, image: np.ndarray, windowed: bool) -> list[tuple[Any, tuple[int, int]]]:
        """Detections with their window's offset: the package's own pipeline (grey,
        autocontrast, letterbox 640, ORT, NMS); or, given a fair chance, six 640-px windows
        (SAHI-style), tiles at native size."""
        from PIL import Image as PILImage

        pil = PILImage.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
        if not windowed:
            img, padding = self._preprocess(pil)
            return [(d, (0, 0)) for d in self._predict(img, padding)]
        found = []
        for x0 in (0, 640, 1280):
            for y0 in (0, 440):
                img, padding = self._preprocess(pil.crop((x0, y0, x0 + 640, y0 + 640)))
                found += [(d, (x0, y0)) for d in self._predict(img, padding)]
        return found

    def detect_on_one_thread(self, image: np.ndarray) -> list[tuple[Any, tuple[int, int]]]:
        self._module.threadlocal.session = self._one_thread
        try:
            return self.detect(image, False)
        finally:
            self._module.threadlocal.session = self._own_session


def _runs_of_frame(
    peer: _Peer,
    image: np.ndarray,
    scanners: tuple[Scanner, Scanner],
    with_other_first: bool | None,
) -> list[tuple[str, Any]]:
    """What part 4 times on one frame, in order; ``with_other_first`` None: no other
    revision, else its scan comes before ours (True) or after all (False)."""
    runs: list[tuple[str, Any]] = [
        ("detector", lambda: peer.detect(image, False)),
        ("detector_1thread", lambda: peer.detect_on_one_thread(image)),
        ("detector_sahi", lambda: peer.detect(image, True)),
        # Ours: the whole scan, with the bundled prototypes (this set never enrolled,
        # never trained) and with this set enrolled (3 crops per kind); with --against,
        # the other revision's scan too, alternately first and last of the three.
        ("ours_default", scanners[0]),
        ("ours_enrolled", scanners[1]),
    ]
    if with_other_first is not None:
        runs.insert(3 if with_other_first else len(runs), ("ours_enrolled_at_rev", None))
    return runs


def _ours_right(seen: Any, truth_xy: np.ndarray, tiles: list[Any]) -> int:
    """Our scan's tiles that name a true tile at its place, each true tile once."""
    used: set[int] = set()
    for x, y, tile, *_ in seen:
        k = match_tile(truth_xy, x, y)
        if k is not None and k not in used and tile == tiles[k].label:
            used.add(k)
    return len(used)


def _summary(
    art: str,
    count: int,
    total: int,
    correct: dict[str, int],
    times: dict[str, list[float]],
    cpu: dict[str, list[float]],
) -> dict[str, Any]:
    out: dict[str, Any] = {"art": art, "frames": count, "tiles_34_kinds": total}
    out["configurations"] = {k: v for k, v in PEER_CONFIGURATIONS.items() if k in correct}
    for key in correct:
        out[key] = {
            "accuracy": correct[key] / total,
            "median_s": statistics.median(times[key]),
            # Process CPU time (all its threads): the work, whatever else the machine runs.
            "median_cpu_s": statistics.median(cpu[key]),
        }
    ours = out["ours_enrolled"]
    for key in ("detector", "detector_1thread", "detector_sahi", "ours_enrolled_at_rev"):
        if key in out:
            out[f"{key}_s_over_ours_enrolled_s"] = out[key]["median_s"] / ours["median_s"]
            out[f"{key}_cpu_over_ours_enrolled_cpu"] = (
                out[key]["median_cpu_s"] / ours["median_cpu_s"]
            )
    return out


def detector_bench(
    embedder: Embedder,
    art: str,
    count: int,
    seed: int,
    other: OtherRevision | None = None,
    repeat: int = 1,
) -> dict[str, Any]:
    """mahjong-detector and our scan on the same frames, scored on its 34 kinds."""
    try:
        peer = _Peer()
    except ImportError as exc:
        return {"error": f"mahjong-detector not importable: {exc}"}
    known = set(CHINESE_LABELS[:34])
    keys = ["detector", "detector_1thread", "detector_sahi", "ours_default", "ours_enrolled"]
    if other is not None:
        keys.append("ours_enrolled_at_rev")
    correct = dict.fromkeys(keys, 0)
    times: dict[str, list[float]] = {k: [] for k in correct}
    cpu: dict[str, list[float]] = {k: [] for k in correct}
    total = 0
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    rng = np.random.default_rng(seed)
    faces = load_set(art)
    enrolled = recognisers(
        embedder, [(lab, synthetic_crop(f, rng)) for lab, f in faces.items() for _ in range(3)]
    )["new"]
    model = None
    if other is not None:
        enrolled, model = other.shared_model(enrolled)
    for i, r in enumerate(frames(count, art, seed)):
        cal = calibrate(r.image, r.geometry)
        tiles = [t for t in r.layout.tiles if t.label in known]
        total += len(tiles)
        centres = cal.to_frame(np.array([[t.x, t.y] for t in tiles]))
        truth_xy = np.array([[t.x, t.y] for t in tiles])
        image = r.image
        scanners = (Scanner(cal, default), Scanner(cal, enrolled))
        other_first = None if other is None else bool(i % 2)
        for key, run in _runs_of_frame(peer, image, scanners, other_first):
            for rep in range(repeat):
                if key == "ours_enrolled_at_rev":
                    assert other is not None and model is not None
                    reply = other.scan(image, cal, model)
                    elapsed, spent, seen = reply["s"], reply["cpu_s"], reply["tiles"]
                elif key.startswith("ours"):
                    elapsed, spent, seen = scan_once(run, image)
                else:
                    start, spent = time.perf_counter(), time.process_time()
                    seen = run()
                    elapsed = time.perf_counter() - start
                    spent = time.process_time() - spent
                times[key].append(elapsed)
                cpu[key].append(spent)
                if rep > 0:
                    continue
                if key.startswith("detector"):
                    correct[key] += _score_detections(seen, centres, tiles, peer.class_names)
                else:
                    correct[key] += _ours_right(seen, truth_xy, tiles)
    out = _summary(art, count, total, correct, times, cpu)
    if other is not None:
        out["ours_enrolled_at_rev"]["rev"] = other.rev
    return out
