"""Shared set-up of the firmware bridge tests."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`slow` tests of this folder (soaks) run only with `-m slow`; CI runs the short ones."""
    if "slow" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "tests/firmware_bridge" in str(item.path) and item.get_closest_marker("slow"):
            item.add_marker(skip)
