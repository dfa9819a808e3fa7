"""Camera calibration: four ArUco markers at the table's corners give a homography from table
millimetres to camera pixels.

The camera is fixed above the table, so one calibration serves every frame: each tile is then
cut out of the frame at a known size in millimetres, whatever the camera's distance, which
removes the scale sensitivity that breaks detectors trained at one tile size.

A calibration is refused, with the reason, when a marker is missing or seen twice, or when
the homography does not reproduce the markers' corners within ``MAX_REPROJECTION_PX``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import TableGeometry
from vision.image import Image

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
MAX_REPROJECTION_PX = 2.0
FORMAT_VERSION = 1

Homography = NDArray[np.float64]


class CalibrationError(ValueError):
    """A calibration that cannot be made or read; the message says why."""


@dataclass
class Calibration:
    homography: Homography  # table mm -> frame px
    image_size: tuple[int, int]  # width, height of the frames it applies to
    reprojection_error_px: float
    geometry: TableGeometry
    felt_lab: tuple[float, float, float] | None = None  # the cloth's colour, for segmentation

    @property
    def inverse(self) -> Homography:
        return np.asarray(np.linalg.inv(self.homography))

    def to_frame(self, points_mm: NDArray[np.float64]) -> NDArray[np.float64]:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2))

    def to_table(self, points_px: NDArray[np.float64]) -> NDArray[np.float64]:
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, self.inverse).reshape(-1, 2))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "homography_mm_to_px": self.homography.tolist(),
            "image_size": list(self.image_size),
            "reprojection_error_px": round(self.reprojection_error_px, 4),
            "felt_lab": list(self.felt_lab) if self.felt_lab else None,
            "geometry": self.geometry.to_json(),
        }

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CalibrationError(
                f"no calibration file at {path}; run `mjtable calibrate`"
            ) from None
        except (OSError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            raise CalibrationError(
                f"calibration file {path} is not readable JSON: {exc!s:.200}"
            ) from None
        try:
            if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
                found = data.get("version") if isinstance(data, dict) else type(data).__name__
                raise CalibrationError(
                    f"calibration format {found!r:.40} is not {FORMAT_VERSION}; calibrate again"
                )
            homography = np.array(data["homography_mm_to_px"], np.float64)
            if homography.shape != (3, 3) or not np.isfinite(homography).all():
                raise CalibrationError("homography_mm_to_px must be a finite 3x3 matrix")
            width, height = (int(v) for v in data["image_size"])
            felt = data.get("felt_lab")
            felt_lab = (float(felt[0]), float(felt[1]), float(felt[2])) if felt else None
            return cls(
                homography,
                (width, height),
                float(data["reprojection_error_px"]),
                TableGeometry.from_json(data.get("geometry", {})),
                felt_lab,
            )
        except CalibrationError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
            raise CalibrationError(f"calibration file {path} is malformed: {exc!r:.200}") from None


def detect_markers(image: Image) -> dict[int, NDArray[np.float64]]:
    """Marker id -> its 4 corners in pixels. Ids seen more than once are dropped."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, NDArray[np.float64]] = {}
    seen: set[int] = set()
    if ids is None:
        return found
    for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
        key = int(marker_id)
        if key in seen:
            found.pop(key, None)
            continue
        seen.add(key)
        found[key] = np.asarray(marker_corners, np.float64).reshape(4, 2)
    return found


def calibrate(
    image: Image, geometry: TableGeometry | None = None, max_error_px: float = MAX_REPROJECTION_PX
) -> Calibration:
    """A calibration from one frame of the empty (or not) table; raises CalibrationError."""
    geometry = geometry or TableGeometry()
    markers = detect_markers(image)
    expected = geometry.marker_corners()
    missing = [m for m in expected if m not in markers]
    if missing:
        raise CalibrationError(
            f"corner marker(s) {missing} not found (found {sorted(markers)}); every corner "
            "marker must be visible and flat: print them with `mjtable calibrate --print-markers`"
        )
    table = np.array([p for m in expected for p in expected[m]], np.float64)
    pixels = np.array([p for m in expected for p in markers[m]], np.float64)
    homography, _ = cv2.findHomography(table, pixels, 0)
    if homography is None or not np.isfinite(homography).all():
        raise CalibrationError("the markers do not define a homography (are they in a line?)")
    projected = cv2.perspectiveTransform(table.reshape(-1, 1, 2), homography).reshape(-1, 2)
    errors = np.linalg.norm(projected - pixels, axis=1)
    error = float(errors.mean())
    if error > max_error_px:
        worst = list(expected)[int(errors.argmax()) // 4]
        raise CalibrationError(
            f"reprojection error {error:.2f} px exceeds {max_error_px} px (worst: marker "
            f"{worst}); a marker has moved, is not flat, or the table size in the "
            "geometry is wrong"
        )
    # Orientation: the top-left marker must map near the frame's top-left of the others.
    h, w = image.shape[:2]
    calibration = Calibration(np.asarray(homography, np.float64), (w, h), error, geometry)
    calibration.felt_lab = felt_colour(image, calibration)
    return calibration


def felt_colour(image: Image, calibration: Calibration) -> tuple[float, float, float]:
    """The cloth's colour in Lab: the median of a ring just inside the markers, where tiles
    rarely lie (between the racks' corners)."""
    g = calibration.geometry
    m = g.marker_inset_mm + g.marker_mm + 10
    samples = []
    for x, y in (
        (m, m + 40),
        (g.size_mm - m, m + 40),
        (m, g.size_mm - m - 40),
        (g.size_mm - m - 40, g.size_mm - m),
    ):
        px = calibration.to_frame(np.array([[x, y]]))[0]
        xi, yi = int(px[0]), int(px[1])
        patch = image[max(0, yi - 6) : yi + 6, max(0, xi - 6) : xi + 6]
        if patch.size:
            samples.append(patch.reshape(-1, 3))
    lab = cv2.cvtColor(np.concatenate(samples).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
    med = np.median(lab.reshape(-1, 3), axis=0)
    return (float(med[0]), float(med[1]), float(med[2]))


def marker_sheet(geometry: TableGeometry | None = None, dpi: int = 150) -> Image:
    """A printable A4 sheet with the four corner markers at their true size, labelled."""
    geometry = geometry or TableGeometry()
    px_per_mm = dpi / 25.4
    sheet = np.full((round(297 * px_per_mm), round(210 * px_per_mm)), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    size = round(geometry.marker_mm * px_per_mm)
    names = (
        "top-left (West/North corner)",
        "top-right (West/South)",
        "bottom-right (East/South)",
        "bottom-left (East/North)",
    )
    for i, marker_id in enumerate(geometry.marker_ids):
        col, row = i % 2, i // 2
        x = round((25 + col * 95) * px_per_mm)
        y = round((30 + row * 130) * px_per_mm)
        sheet[y : y + size, x : x + size] = cv2.aruco.generateImageMarker(
            dictionary, marker_id, size
        )
        cv2.putText(
            sheet,
            f"id {marker_id}: {names[i]}",
            (x, y + size + round(8 * px_per_mm)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            0,
            1,
            cv2.LINE_AA,
        )
    cv2.putText(
        sheet,
        f"mahjong-table corner markers, {geometry.marker_mm:.0f} mm; print at 100%",
        (round(20 * px_per_mm), round(285 * px_per_mm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.5,
        0,
        1,
        cv2.LINE_AA,
    )
    return sheet
