"""The table's geometry from its configuration: what calibration and the scan assume about the
playing surface, the corner markers and the tiles (``[camera]`` in the table file)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from config.schema import CameraSection
    from vision.geometry import TableGeometry


def table_geometry(camera: CameraSection) -> TableGeometry:
    from vision.geometry import TableGeometry, default_zones

    tile_w, tile_h = camera.tile_size_mm()
    return TableGeometry(
        size_mm=camera.table_mm,
        marker_mm=camera.marker_mm,
        marker_inset_mm=camera.marker_inset_mm,
        tile_w_mm=tile_w,
        tile_h_mm=tile_h,
        zones=default_zones(camera.table_mm),
    )
