"""The zero-setup broker for `mjtable simulate` on a machine without Mosquitto: amqtt, a pure
Python broker, in the service's own loop. It speaks MQTT 3.1.1 only, so the service's link
falls back to 3.1.1 when it uses it. Never for a real table: deploy Mosquitto there."""

from __future__ import annotations

from typing import Any

from controller.broker import BrokerUnavailable, free_port


class EmbeddedBroker:
    def __init__(self, port: int | None = None) -> None:
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self._broker: Any = None

    async def start(self) -> None:
        try:
            from amqtt.broker import Broker  # type: ignore[import-untyped]
        except ImportError:
            raise BrokerUnavailable(
                "neither Mosquitto (apt-get install mosquitto) nor amqtt (pip install amqtt) "
                "is installed"
            ) from None
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}
            },
        }
        self._broker = Broker(config)
        await self._broker.start()

    async def stop(self) -> None:
        if self._broker is not None:
            await self._broker.shutdown()
            self._broker = None
