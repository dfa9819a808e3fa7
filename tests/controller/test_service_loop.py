"""The service's loop: typed messages dispatched to the table, background tasks in one group,
and a task that fails logged and reported on ``status``, never swallowed."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from config.load import bundled_config
from controller.inbox import CommandIn, ObserveIn
from controller.inputs import Observation, ObservationKind
from controller.service import Service, ServiceOptions


def _service() -> Service:
    cfg = bundled_config("simulate.toml")
    cfg = cfg.model_copy(update={"mqtt": cfg.mqtt.model_copy(update={"enabled": False}),
                                 "camera": cfg.camera.model_copy(update={"source": "none"})})
    return Service(cfg, ServiceOptions(store_path=":memory:"))


async def _running(service: Service, body: object) -> None:
    stop = asyncio.Event()
    ready = asyncio.Event()
    runner = asyncio.create_task(service.run(stop, on_ready=ready.set))
    await asyncio.wait_for(ready.wait(), 5)
    try:
        await body  # type: ignore[misc]
    finally:
        stop.set()
        await asyncio.wait_for(runner, 5)


def test_a_failing_task_is_logged_and_listed_on_status(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = _service()
    status: dict[str, object] = {}

    async def broken() -> None:
        raise OSError("the LED dice are unplugged")

    async def body() -> None:
        service._spawn(broken(), "show-dice")
        for _ in range(100):
            if service.failed_tasks:
                break
            await asyncio.sleep(0.01)
        status.update(service.status())
        answer = await service.submit(CommandIn("status", b""))
        status["answered"] = answer["ok"]  # the service goes on

    with caplog.at_level(logging.ERROR, logger="mjtable.service"):
        asyncio.run(_running(service, body()))
    assert status["failed_tasks"] == [{"task": "show-dice", "at": status["failed_tasks"][0]["at"],
                                       "error": "OSError: the LED dice are unplugged"}]
    assert status["answered"] is True
    assert "task show-dice failed" in caplog.text


def test_a_long_task_is_cancelled_when_the_service_stops() -> None:
    service = _service()
    cancelled = asyncio.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            cancelled.set()

    async def body() -> None:
        service._spawn(forever(), "forever")
        await asyncio.sleep(0.01)

    asyncio.run(_running(service, body()))
    assert cancelled.is_set() and list(service.failed_tasks) == []


def test_typed_messages_reach_the_table_and_each_command_is_answered_once() -> None:
    service = _service()
    answers: list[object] = []

    async def body() -> None:
        dice = Observation(ObservationKind.DICE, "E", dice=(3, 4), source="test")
        outcome = await service.submit(ObserveIn(dice))
        answers.append(outcome.accepted)
        answers.append(await service.submit(CommandIn("confirm", b'{"pending": true}')))
        answers.append(await service.submit(CommandIn("status", b"")))

    asyncio.run(_running(service, body()))
    assert answers[0] is True
    assert answers[1] == {"ok": False, "error": "expected a whole number, not true",
                          "where": "pending"}
    assert isinstance(answers[2], dict) and answers[2]["ok"] is True
    assert json.loads(json.dumps(answers[2]))["seq"] == service.table.seq
