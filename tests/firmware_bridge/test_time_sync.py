"""Time sync after a handshake: several samples at once, so the offset does not rest on one
round trip taken while the host was busy (docs/protocol.md, section 8)."""

from __future__ import annotations

import asyncio
import itertools
import statistics
from pathlib import Path
from typing import Any

from firmware_bridge import wire
from firmware_bridge.emulator import EmulatedBoard
from firmware_bridge.host import LinkSettings
from firmware_bridge.link import BoardLink


def test_a_handshake_is_followed_by_a_burst_of_time_samples(tmp_path: Path) -> None:
    settings = LinkSettings()
    requests: list[int] = []

    async def scenario() -> tuple[int | None, int]:
        with EmulatedBoard(link_path=tmp_path / "mcu") as board:
            dispatch = board.protocol._dispatch

            def counting(body: bytes, now_us: int) -> Any:
                if body[0] == wire.TIME_REQ:
                    requests.append(now_us)
                return dispatch(body, now_us)

            board.protocol._dispatch = counting  # type: ignore[method-assign]
            async with BoardLink(board.path, settings=settings) as link:
                await link.wait_up(timeout=5)
                await asyncio.sleep(1.0)  # well inside time_sync_interval_s (5 s)
                offset = link.status().clock_offset_us
                return offset, board.board_epoch_us

    offset, epoch = asyncio.run(scenario())
    assert len(requests) == settings.first_sync_samples
    # The host spaces its requests out; the board's receipt times carry the scheduler's jitter
    # (one pair may arrive closer than it was sent), so the median spacing is what is checked.
    spacing = sorted(b - a for a, b in itertools.pairwise(requests))
    assert statistics.median(spacing) >= settings.first_sync_spacing_s * 1e6 * 0.9
    assert offset is not None and abs(offset + epoch) < 3000
