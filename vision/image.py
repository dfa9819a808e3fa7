"""The one image type of vision: an 8-bit array, BGR (height x width x 3) or grey."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
