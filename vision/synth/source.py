"""The synthetic table as a camera: every read renders the current scene afresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vision.capture import DEFAULT_FRAME_SIZE
from vision.geometry import TableGeometry
from vision.image import Image
from vision.labels import LABELS
from vision.synth.layout import random_layout
from vision.synth.render import CameraPose, Style, render


class RenderedSource:
    """The synthetic table: each read renders ``scene()`` (a layout and style) again, with
    fresh camera noise. The simulator changes what ``scene`` returns as play goes on."""

    def __init__(
        self,
        seed: int = 0,
        scene: Callable[[], Any] | None = None,
        size: tuple[int, int] = DEFAULT_FRAME_SIZE,
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.pose = CameraPose.overhead(self.rng, *size)
        self.scene = scene or self._default_scene
        self._default: Any = None

    def _default_scene(self) -> Any:
        if self._default is None:
            geometry = TableGeometry()
            self._default = (
                random_layout(self.rng, LABELS, geometry),
                Style.random(self.rng, "kde-traditional"),
                geometry,
            )
        return self._default

    def read(self) -> Image:
        layout, style, geometry = self.scene()
        return render(layout, style, self.rng, geometry, self.pose).image

    def close(self) -> None:
        pass
