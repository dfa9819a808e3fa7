"""Frames from a camera, a video device, image files or the renderer — one interface.

``open_source(spec, size)`` takes the table configuration's ``camera.source`` string and the
frame size it asks of a camera (``camera.width`` x ``camera.height``):

* ``picamera2`` — the Raspberry Pi camera (Raspberry Pi OS's picamera2 module);
* ``v4l2:<index>`` — a USB camera through ``cv2.VideoCapture``;
* ``file:<path>`` — an image file, a folder of images (in name order) or a video clip;
* ``render:<seed>`` — the synthetic table renderer (tests, benchmarks, `mjtable simulate`).

``read()`` returns a BGR frame, or raises :class:`CameraUnavailable` with the reason: the
service then reports the camera as missing and asks the table, it never stops.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.image import Image

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff", ".gif")
# What a camera is asked for unless the table says otherwise: every USB camera and Pi camera
# offers it. A larger frame puts more pixels on each tile (docs/vision.md, "Frame size").
DEFAULT_FRAME_SIZE = (1920, 1080)


class CameraUnavailable(RuntimeError):
    """No frame can be had now; the message says why."""


class FrameSource(Protocol):
    def read(self) -> Image: ...

    def close(self) -> None: ...


def read_image(path: Path) -> Image:
    """An image file as BGR, or CameraUnavailable naming the file."""
    if not path.is_file():
        raise CameraUnavailable(f"no image file at {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CameraUnavailable(f"{path} is not a readable image")
    return np.asarray(image, np.uint8)


class ImageFiles:
    """Image files in turn (a folder is read in name order); loops when ``loop``."""

    def __init__(self, paths: Sequence[Path], loop: bool = False) -> None:
        if not paths:
            raise CameraUnavailable("no images to read")
        self.paths = list(paths)
        self.loop = loop
        self.index = 0

    @classmethod
    def from_path(cls, path: Path, loop: bool = False) -> ImageFiles:
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            return cls(files, loop)
        return cls([path], loop)

    def read(self) -> Image:
        if self.index >= len(self.paths):
            if not self.loop:
                raise CameraUnavailable("no more images")
            self.index = 0
        path = self.paths[self.index]
        self.index += 1
        return read_image(path)

    def close(self) -> None:
        pass


class VideoCaptureSource:
    """A USB camera or a video file through OpenCV."""

    def __init__(
        self,
        device: int | str,
        width: int = DEFAULT_FRAME_SIZE[0],
        height: int = DEFAULT_FRAME_SIZE[1],
    ) -> None:
        self.device = device
        self.capture = cv2.VideoCapture(device)
        if not self.capture.isOpened():
            raise CameraUnavailable(f"cannot open video source {device!r}")
        if isinstance(device, int):
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def read(self) -> Image:
        ok, frame = self.capture.read()
        if not ok or frame is None:
            raise CameraUnavailable(
                f"video source {self.device!r} gave no frame (unplugged or ended)"
            )
        return np.asarray(frame, np.uint8)

    def close(self) -> None:
        self.capture.release()


class Picamera2Source:
    """The Raspberry Pi camera; only importable on Raspberry Pi OS."""

    def __init__(
        self, width: int = DEFAULT_FRAME_SIZE[0], height: int = DEFAULT_FRAME_SIZE[1]
    ) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraUnavailable(
                "picamera2 is not installed (Raspberry Pi OS: apt install python3-picamera2)"
            ) from exc
        try:
            self.camera: Any = Picamera2()
            config = self.camera.create_still_configuration(
                main={"size": (width, height), "format": "BGR888"}
            )
            self.camera.configure(config)
            self.camera.start()
        except Exception as exc:  # the library raises many kinds; all mean "no camera"
            raise CameraUnavailable(f"Pi camera failed to start: {exc}") from exc

    def read(self) -> Image:
        try:
            frame = self.camera.capture_array("main")
        except Exception as exc:
            raise CameraUnavailable(f"Pi camera gave no frame: {exc}") from exc
        return np.asarray(frame[:, :, :3], np.uint8)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a dead camera must not raise
            self.camera.stop()


def open_source(spec: str, size: tuple[int, int] = DEFAULT_FRAME_SIZE) -> FrameSource:
    """A frame source from a ``camera.source`` string (see the module docstring); a camera,
    and the renderer, give frames of ``size`` (width, height); files are what they are."""
    if spec == "picamera2":
        return Picamera2Source(*size)
    if spec.startswith("v4l2:"):
        try:
            index = int(spec.split(":", 1)[1])
        except ValueError:
            raise CameraUnavailable(f"bad device index in {spec!r}") from None
        return VideoCaptureSource(index, *size)
    if spec.startswith("file:"):
        path = Path(spec.split(":", 1)[1])
        if path.suffix.lower() in (".mp4", ".avi", ".mkv", ".mov"):
            return VideoCaptureSource(str(path))
        return ImageFiles.from_path(path)
    if spec.startswith("render:"):
        from vision.synth.source import RenderedSource  # the renderer only when asked for

        try:
            return RenderedSource(int(spec.split(":", 1)[1] or 0), size=size)
        except ValueError:
            raise CameraUnavailable(f"bad seed in {spec!r}") from None
    raise CameraUnavailable(
        f"unknown camera source {spec!r}; expected picamera2, v4l2:N, file:PATH or render:SEED"
    )
