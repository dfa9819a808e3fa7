"""Host side of the serial link to the table's microcontroller, its emulator and codec.

The service uses :class:`BoardLink` (asyncio) and, in tests and simulation,
:class:`EmulatedBoard`. The protocol is specified in docs/protocol.md. Importing this
package stays light: the link and the emulator are loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware_bridge.events import (
    Animation,
    BoardError,
    BoardErrorCode,
    BoardEvent,
    BoardInfo,
    ButtonEvent,
    ConfigKey,
    DiceAction,
    DiceKind,
    DiceResult,
    DiceSource,
    EventsDropped,
    LinkState,
    LinkStatus,
    SensorKind,
    SensorReading,
)
from firmware_bridge.host import LinkSettings

if TYPE_CHECKING:
    from firmware_bridge.emulator import EmulatedBoard, Faults
    from firmware_bridge.link import BoardLink, LinkError, LinkRefused, LinkTimeout

__all__ = [
    "Animation",
    "BoardError",
    "BoardErrorCode",
    "BoardEvent",
    "BoardInfo",
    "BoardLink",
    "ButtonEvent",
    "ConfigKey",
    "DiceAction",
    "DiceKind",
    "DiceResult",
    "DiceSource",
    "EmulatedBoard",
    "EventsDropped",
    "Faults",
    "LinkError",
    "LinkRefused",
    "LinkSettings",
    "LinkState",
    "LinkStatus",
    "LinkTimeout",
    "SensorKind",
    "SensorReading",
]

_LAZY = {
    "BoardLink": "firmware_bridge.link",
    "LinkError": "firmware_bridge.link",
    "LinkRefused": "firmware_bridge.link",
    "LinkTimeout": "firmware_bridge.link",
    "EmulatedBoard": "firmware_bridge.emulator",
    "Faults": "firmware_bridge.emulator",
}


def __getattr__(name: str) -> Any:
    # serial and serial_asyncio_fast load only when the link is actually used.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'firmware_bridge' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
