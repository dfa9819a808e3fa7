"""The fault tests' own broker: a private Mosquitto on a free port that keeps nothing on disk,
since these tests kill the service, not the broker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.broker import BrokerUnavailable, LocalMosquitto


@pytest.fixture
def broker() -> Iterator[LocalMosquitto]:
    try:
        mosq = LocalMosquitto(persistence=False)
    except BrokerUnavailable as exc:  # ./dev installs it; a skip here would hide the fault
        pytest.fail(str(exc))
    mosq.start()
    yield mosq
    mosq.close()
