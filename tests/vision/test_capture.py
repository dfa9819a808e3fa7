"""Frame sources: files, folders, the renderer, and clear failures for missing cameras."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.capture import CameraUnavailable, ImageFiles, open_source


def test_folder_of_images_in_name_order(tmp_path: Path) -> None:
    for i, value in enumerate([10, 20, 30]):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), value, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(f"file:{tmp_path}")
    assert [int(source.read()[0, 0, 0]) for _ in range(3)] == [10, 20, 30]
    with pytest.raises(CameraUnavailable, match="no more images"):
        source.read()


def test_unreadable_and_missing_files_say_which(tmp_path: Path) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(CameraUnavailable, match="not a readable image"):
        ImageFiles([bad]).read()
    with pytest.raises(CameraUnavailable, match="no image file"):
        ImageFiles([tmp_path / "gone.png"]).read()


@pytest.mark.parametrize("spec", ["v4l2:97", "v4l2:x", "webcam", "render:abc"])
def test_unavailable_cameras_raise_not_crash(spec: str) -> None:
    with pytest.raises(CameraUnavailable):
        open_source(spec).read()


def test_picamera2_missing_is_reported() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraUnavailable, match="picamera2"):
            open_source("picamera2")
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 present")


def test_rendered_camera_gives_full_hd_frames() -> None:
    frame = open_source("render:5").read()
    assert frame.shape == (1080, 1920, 3)


def test_a_camera_gives_the_frame_size_asked_of_it() -> None:
    """``camera.width`` x ``camera.height`` reach the source (here the renderer, whose table
    fills the frame's height as a camera's would)."""
    frame = open_source("render:5", size=(2304, 1296)).read()
    assert frame.shape == (1296, 2304, 3)
