"""Sheets to print at true scale: a PNG that carries its DPI, or a PDF whose page is the sheet.

A printer told "actual size" (100 %, no fitting) prints a PDF page at the size it states, and a
PNG at the DPI it carries; without a DPI a PNG's size on paper is whatever the viewer guesses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_sheet(image: Any, path: Path, dpi: int) -> None:
    """Write a grey or BGR image as .png (with its DPI) or .pdf (one page of its true size)."""
    import numpy as np
    from PIL import Image

    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ValueError(f"a marker sheet is .pdf or .png, not {path.suffix or 'no suffix'!r}")
    pixels = np.asarray(image)
    if pixels.ndim == 3:
        pixels = pixels[:, :, ::-1]  # OpenCV's BGR to RGB
    sheet = Image.fromarray(np.ascontiguousarray(pixels))
    if suffix == ".png":
        sheet.save(path, format="PNG", dpi=(dpi, dpi))
    else:
        sheet.save(path, format="PDF", resolution=float(dpi))
