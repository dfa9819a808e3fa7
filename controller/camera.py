"""The camera loop: frames -> vision's scanner -> its watcher -> observations for the service.

Runs on its own thread (OpenCV releases the GIL while it works) at the configured rate and
hands each observation to the service's thread-safe sink. A camera that is missing, unplugged
or refuses frames never stops the service: the loop says so in its status, and tries again
with a growing pause; the table plays on with its buttons and the referee meanwhile.
Vision (OpenCV, numpy, the model) is imported only when a camera is configured.

The watcher outlives the camera: when a camera that dropped out (a loose cable) comes back,
what still lies on the table is not reported again, and what changed meanwhile is reported
once seen. The scanner is made anew for each camera opened (calibrated anew from the markers
when there is no calibration file: the camera may have been moved). The watcher starts on a
table that may be in play (the service back after a power cut): what its first clear view
holds is known, not new (vision/observe.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from controller.crops import TileCrops
from controller.inputs import InputSink

log = logging.getLogger("mjtable.camera")


def _now_us() -> int:
    return time.monotonic_ns() // 1000


class CameraLoop:
    def __init__(
        self,
        source: str,
        sink: InputSink,
        *,
        calibration: str = "",
        model_dir: str = "",
        fps: float = 5.0,
        set_size: int = 144,
        stable_frames: int = 3,
        hidden_margin_mm: float = 40.0,
        frame_size: tuple[int, int] | None = None,
        geometry: Any = None,
        open_source: Callable[[str], Any] | None = None,
        showing: Callable[[], Mapping[str, int]] | None = None,
        passing: Callable[[], Collection[str]] | None = None,
        crops: TileCrops | None = None,
    ) -> None:
        self.source = source
        self.sink = sink
        self.calibration_path = calibration
        self.model_dir = model_dir
        self.period = 1.0 / fps
        self.set_size = set_size
        self.stable_frames = stable_frames
        self.hidden_margin_mm = hidden_margin_mm
        # What the camera is asked for (width, height); None: vision.capture's default.
        self.frame_size = frame_size
        # The table's vision.geometry.TableGeometry (markers, tile size); None: the defaults.
        self.geometry = geometry
        self._open = open_source
        # Which seats may be laying their hands out, and how many tiles each holds (the
        # table's say; vision/observe.py): without it only ten or more at once are a hand.
        self._showing = showing
        # Which seats owe a Charleston pass (the American table's say), counted from the
        # backs each lays before it.
        self._passing = passing
        # The crop of each doubtful tile, from the frame it was seen in, for the referee's
        # console (controller/crops.py).
        self.crops = crops
        self.state = "starting"
        self.detail = ""
        self.frames = 0
        self.observations = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watcher: Any = None  # vision's TableWatcher, made with the first frame

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def status(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "state": self.state,
            "detail": self.detail,
            "frames": self.frames,
            "observations": self.observations,
        }

    def _showing_now(self) -> Mapping[str, int] | None:
        """The table's word on who is showing a hand; without it (none given, or the table
        could not say this frame) the watcher goes by counts alone: never a lost camera."""
        if self._showing is None:
            return None
        try:
            return self._showing()
        except Exception:  # read across threads mid-change: the next frame asks again
            log.debug("camera %s: no word on hands shown this frame", self.source, exc_info=True)
            return None

    def _passing_now(self) -> Collection[str]:
        """The table's word on who owes a Charleston pass; none when it cannot say."""
        if self._passing is None:
            return ()
        try:
            return set(self._passing())
        except Exception:  # read across threads mid-change: the next frame asks again
            log.debug("camera %s: no word on passes this frame", self.source, exc_info=True)
            return ()

    def _keep_crop(self, observation: Any, tiles: list[Any], frame: Any,
                   calibration: Any) -> None:
        """Keep the observed tile's crop before the table hears of it (and may ask)."""
        if self.crops is None:
            return
        try:
            self.crops.keep(observation, tiles, frame, calibration)
        except Exception:  # a crop is a help to the referee: never worth the camera
            log.warning("camera %s: no crop of %s", self.source, observation.kind, exc_info=True)

    def _scanner(self, first_frame: Any) -> Any:
        """A scanner for the camera just opened: calibrated from its file, or else anew from
        the corner markers in this frame (the camera may have been moved or changed)."""
        from vision.calibration import Calibration, calibrate
        from vision.identify import DEFAULT_MODEL_DIR
        from vision.scan import load_scanner

        calibration = None
        if self.calibration_path and Path(self.calibration_path).exists():
            calibration = Calibration.load(Path(self.calibration_path))
            height, width = first_frame.shape[:2]
            if calibration.image_size != (width, height):
                # Made for another frame size (camera.width/height changed, another camera):
                # its pixels are not this camera's.
                log.warning(
                    "calibration %s is for %dx%d frames, the camera gives %dx%d: "
                    "calibrating anew from the corner markers",
                    self.calibration_path, *calibration.image_size, width, height,
                )
                calibration = None
        if calibration is None:  # the corner markers are on the table: calibrate from them
            calibration = calibrate(first_frame, self.geometry)
            if self.calibration_path:
                calibration.save(Path(self.calibration_path))
        model = Path(self.model_dir) if self.model_dir else DEFAULT_MODEL_DIR
        # The live-table cache (vision/scan_cache.py): a still table costs a frame comparison,
        # a new discard a look at that part. Simulated hands with it (seeds 1, 2, 5): no
        # violation, as uncached (docs/vision.md). OpenCV on the scan's own thread, as the
        # benchmarks measure it (vision/threads.py).
        return load_scanner(calibration, model, cache=True)

    def _table_watcher(self) -> Any:
        """The one watcher of this loop: it keeps what it knows of the table (in table
        millimetres, whatever the camera) across a camera that drops out and comes back."""
        if self._watcher is None:
            from vision.observe import TableWatcher

            self._watcher = TableWatcher(
                stable_frames=self.stable_frames,
                set_size=self.set_size,
                hidden_margin_mm=self.hidden_margin_mm,
                known_at_start=True,
            )
        return self._watcher

    def _run(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            frames = self.frames
            try:
                self._serve()
                return
            except Exception as exc:  # unplugged, no permission, no markers: report and retry
                if self.frames > frames:
                    backoff = 1.0  # it had come back: a new fault, not the same one
                self.state = "unavailable"
                self.detail = f"{type(exc).__name__}: {exc}"
                log.warning("camera %s: %s; retrying in %.0f s", self.source, exc, backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 30.0)

    def _serve(self) -> None:
        if self._open is None:
            from vision.capture import open_source

            size = self.frame_size
            self._open = open_source if size is None else partial(open_source, size=size)
        camera = self._open(self.source)
        scanner = None
        try:
            frame = camera.read()
            scanner = self._scanner(frame)
            watcher = self._table_watcher()
            self.state = "running"
            self.detail = ""
            while not self._stop.is_set():
                started = time.monotonic()
                self.frames += 1
                scan = scanner.scan(frame)
                seen = watcher.update(
                    scan, time_us=_now_us(), showing=self._showing_now(),
                    passing=self._passing_now(),
                )
                for observation in seen:
                    self.observations += 1
                    self._keep_crop(observation, scan.tiles, frame, scanner.calibration)
                    self.sink.observe(observation)
                self._stop.wait(max(0.0, self.period - (time.monotonic() - started)))
                if self._stop.is_set():
                    break
                frame = camera.read()
        finally:
            camera.close()
            if scanner is not None:
                scanner.close()  # its second thread, for the network
