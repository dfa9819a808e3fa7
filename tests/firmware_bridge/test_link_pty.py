"""The asyncio link against the emulated board over a real pty, with faults at the byte level."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from firmware_bridge import wire
from firmware_bridge.board import BoardSpec
from firmware_bridge.emulator import EmulatedBoard, Faults, burst_edge
from firmware_bridge.events import (
    Animation,
    BoardEvent,
    ButtonEvent,
    DiceResult,
    DiceSource,
    LinkState,
    SensorKind,
    SensorReading,
)
from firmware_bridge.host import LinkSettings
from firmware_bridge.link import BoardLink, LinkRefused

T = TypeVar("T")


def run(coro: Callable[[], Awaitable[T]], timeout: float = 30.0) -> T:
    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coro()

    return asyncio.run(bounded())


async def collect_buttons(link: BoardLink, count: int, timeout: float) -> list[ButtonEvent]:
    got: list[ButtonEvent] = []
    async with asyncio.timeout(timeout):
        async for event in link.events():
            if isinstance(event, ButtonEvent):
                got.append(event)
                if len(got) == count:
                    return got
    return got


def assert_burst(events: list[ButtonEvent], count: int, info: BoardSpec) -> None:
    """Every edge of the burst exactly once, in order, with the right content."""
    assert len(events) == count
    seqs = [e.seq for e in events]
    assert seqs == sorted(set(seqs)), "events duplicated or out of order"
    expected = [burst_edge(i, info.seats, info.buttons_per_seat) for i in range(count)]
    assert [(e.seat, e.button, e.pressed) for e in events] == expected


@pytest.fixture
def link_path(tmp_path: Path) -> Path:
    return tmp_path / "mahjong-mcu"


def test_handshake_reports_the_boards_capabilities(link_path: Path) -> None:
    info = BoardSpec(seats=4, buttons_per_seat=4, segments=[18, 24], board_id="pico-e661")

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path) as board:
            async with BoardLink(board.path) as link:
                got = await link.wait_up(timeout=5)
                assert (got.board_id, got.seats, got.buttons_per_seat) == ("pico-e661", 4, 4)
                assert got.segments == (18, 24)
                assert got.protocol == (wire.PROTOCOL_MAJOR, wire.PROTOCOL_MINOR)
                assert link.status().state is LinkState.UP

    run(scenario)


def test_ten_thousand_events_exactly_once_in_order_under_bit_errors_and_dropped_frames(
    link_path: Path,
) -> None:
    faults = Faults(bit_flip=0.01, drop_frame=0.01)  # per frame, both directions
    info = BoardSpec()

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path, faults=faults, seed=11) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                board.burst(10_000)
                events = await collect_buttons(link, 10_000, timeout=60)
                assert_burst(events, 10_000, info)
                status = link.status()
                stats = board.stats()
        # The faults really happened, and were recovered from.
        assert stats["faults_to_host"]["bit_flip"] > 20
        assert stats["faults_to_host"]["drop_frame"] > 20
        assert stats["faults_to_board"]["drop_frame"] > 0
        assert status.corrupt_frames > 20
        assert stats["retransmissions"] > 0
        assert status.state is LinkState.UP

    run(scenario, timeout=90)


def test_unplug_and_replug_in_the_middle_of_a_burst_loses_nothing(link_path: Path) -> None:
    info = BoardSpec()
    states: list[LinkState] = []

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path) as board:
            async with BoardLink(
                board.path, on_state_change=lambda s, _detail: states.append(s)
            ) as link:
                await link.wait_up(timeout=5)
                board.burst(2000, rate_per_s=2500)  # 0.8 s of presses
                collecting = asyncio.create_task(collect_buttons(link, 2000, timeout=20))
                await asyncio.sleep(0.25)
                board.unplug()
                assert not link_path.exists()
                await asyncio.sleep(0.3)
                board.replug()
                events = await collecting
                assert_burst(events, 2000, info)
                assert link.status().reconnects >= 1

    run(scenario)
    assert LinkState.DOWN in states
    assert states[-1] is LinkState.CLOSED and states[-2] is LinkState.UP


def test_a_stalled_board_is_detected_within_the_heartbeat_timeout(link_path: Path) -> None:
    settings = LinkSettings(heartbeat_timeout_s=0.3, ping_interval_s=0.05)

    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            async with BoardLink(board.path, settings=settings) as link:
                await link.wait_up(timeout=5)
                await asyncio.sleep(0.2)
                board.stall()
                stalled_at = time.monotonic()
                await link.wait_state(LinkState.DOWN, timeout=2)
                detected_after = time.monotonic() - stalled_at
                assert "stalled" in link.status().detail
                # Silence is measured from the last frame, which came at most one ping
                # before the stall; the tick adds at most a few milliseconds.
                assert detected_after <= 0.3 + 0.1
                assert detected_after >= 0.3 - 0.05 - 0.01
                board.resume()
                await link.wait_up(timeout=5)
                board.click(3, 1)
                event = await link.next_event(timeout=2)
                assert isinstance(event, ButtonEvent) and (event.seat, event.button) == (3, 1)

    run(scenario)


def test_commands_arrive_in_order_exactly_once_under_faults(link_path: Path) -> None:
    faults = Faults(bit_flip=0.03, drop_frame=0.03, truncate=0.01, garbage=0.01)

    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path, faults=faults, seed=5) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                for i in range(100):  # the last of many updates is what shows
                    await link.set_pixels(0, [(i, 0, 255 - i)] * 18)
                await link.animate(5, Animation.POINTER, (0, 255, 0), position=17)
                await link.roll_dice(2)
                await link.drain(timeout=10)
                assert board.leds(0) == [(99, 0, 156)] * 18
                leds5 = board.leds(5)
                assert leds5[17] == (0, 255, 0)
                assert sum(1 for p in leds5 if p != (0, 0, 0)) == 1
                rolls = [h for h in board.hardware.history if h[0] == "dice"]
                assert len(rolls) == 1, "a resent roll must not roll twice"
                pixels = [h[1][2][0] for h in board.hardware.history if h[0] == "pixels"]
                assert pixels == list(range(100)), "applied once each, in order"
                dice = await link.next_event(timeout=5)
                assert isinstance(dice, DiceResult) and dice.source is DiceSource.LED
                assert dice.values == board.dice_shown

    run(scenario)


def test_an_incompatible_board_is_refused_naming_both_versions(link_path: Path) -> None:
    async def scenario() -> None:
        with EmulatedBoard(spec=BoardSpec(protocol=(2, 1)), link_path=link_path) as board:
            async with BoardLink(board.path) as link:
                with pytest.raises(LinkRefused) as refused:
                    await link.wait_up(timeout=5)
                assert "board speaks protocol 2.1, this host speaks 1.0" in str(refused.value)
                assert link.status().state is LinkState.REFUSED

    run(scenario)


def test_garbage_truncated_frames_and_lost_bytes_are_counted_and_survived(
    link_path: Path,
) -> None:
    faults = Faults(garbage=0.05, truncate=0.03, drop_byte=0.03)
    info = BoardSpec()

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path, faults=faults, seed=3) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=10)
                board.burst(2000)
                assert_burst(await collect_buttons(link, 2000, timeout=30), 2000, info)
                assert link.status().corrupt_frames > 50

    run(scenario, timeout=60)


def test_an_unknown_frame_type_is_reported_once_and_skipped(
    link_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                with caplog.at_level(logging.WARNING, logger="firmware_bridge"):
                    for _ in range(3):
                        board.inject(wire.frame(bytes([0x7E, 1, 2, 3])))
                    board.inject(b"\x13\x37 random noise \x00\x00")
                    board.click(0, 3)
                    event = await link.next_event(timeout=2)
                assert isinstance(event, ButtonEvent) and event.button == 3
                status = link.status()
                assert status.unknown_types == 3
                assert status.unknown_type_codes == [0x7E]
                assert status.state is LinkState.UP

    run(scenario)
    warnings = [r for r in caplog.records if "unknown type 0x7E" in r.getMessage()]
    assert len(warnings) == 1


def test_a_service_that_stops_reading_gets_backpressure_not_unbounded_memory(
    link_path: Path,
) -> None:
    settings = LinkSettings(max_pending_events=50)
    info = BoardSpec(ring_capacity=1024)

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path) as board:
            async with BoardLink(board.path, settings=settings) as link:
                await link.wait_up(timeout=5)
                board.burst(600)
                await asyncio.sleep(0.5)  # the service is busy elsewhere
                assert link.status().events_pending == 50
                assert board.stats()["events_unacked"] >= 500  # kept by the board
                assert_burst(await collect_buttons(link, 600, timeout=20), 600, info)

    run(scenario)


def test_time_sync_maps_board_time_onto_the_host_clock(link_path: Path) -> None:
    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                await asyncio.sleep(0.1)
                offset = link.status().clock_offset_us
                assert offset is not None
                # The emulated board's clock is the host clock minus its epoch.
                assert abs(offset + board.board_epoch_us) < 3000
                pressed_at = time.monotonic_ns() // 1000
                board.press(1, 0)
                event: BoardEvent = await link.next_event(timeout=2)
                host_us = link.board_to_host_us(event.board_us)
                assert host_us is not None and abs(host_us - pressed_at) < 5000

    run(scenario)


def test_a_rebooted_board_is_found_again_and_reported(link_path: Path) -> None:
    settings = LinkSettings(heartbeat_timeout_s=0.2)
    details: list[str] = []

    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            async with BoardLink(
                board.path, settings=settings, on_state_change=lambda _s, d: details.append(d)
            ) as link:
                first = await link.wait_up(timeout=5)
                board.click(0, 0)
                assert (await link.next_event(timeout=2)).seq == 1
                await link.next_event(timeout=2)
                board.reboot(boot_id=first.boot_id + 1)
                board.click(2, 2)  # seq 1 again, in the new boot
                await link.wait_state(LinkState.DOWN, timeout=2)
                await link.wait_up(timeout=5)
                event = await link.next_event(timeout=2)
                assert isinstance(event, ButtonEvent) and (event.seq, event.seat) == (1, 2)
                assert link.board is not None and link.board.boot_id == first.boot_id + 1
                await asyncio.sleep(0.05)
                offset = link.status().clock_offset_us  # the new boot's clock, not the old
                assert offset is not None and abs(offset + board.board_epoch_us) < 3000

    run(scenario)
    assert "board restarted" in details


def test_a_slow_board_still_delivers_everything_in_order(link_path: Path) -> None:
    info = BoardSpec()

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path) as board:
            board.latency_s = 0.08  # every frame from the board arrives 80 ms late
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                board.burst(300, rate_per_s=1000)
                assert_burst(await collect_buttons(link, 300, timeout=10), 300, info)
                await link.fill(0, (1, 1, 1))
                await link.drain(timeout=5)
                assert link.status().state is LinkState.UP

    run(scenario)


def test_the_link_waits_for_a_board_that_is_not_there_yet(link_path: Path) -> None:
    async def scenario() -> None:
        async with BoardLink(str(link_path)) as link:
            await asyncio.sleep(0.2)
            status = link.status()
            assert status.state is LinkState.CONNECTING
            assert f"cannot open {link_path}" in status.detail
            with EmulatedBoard(link_path=link_path) as board:
                await link.wait_up(timeout=5)
                board.click(0, 1)
                assert isinstance(await link.next_event(timeout=2), ButtonEvent)

    run(scenario)


def test_random_presses_and_sensor_readings_arrive_as_a_gapless_stream(link_path: Path) -> None:
    spec = BoardSpec(sensors=wire.SENSE_PRESENCE | wire.SENSE_WEIGHT)

    async def scenario() -> None:
        with EmulatedBoard(spec=spec, link_path=link_path, seed=4) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                board.random_presses(300)
                board.random_sensors(200)
                await asyncio.sleep(0.4)
                board.random_presses(0)
                board.random_sensors(0)
                await asyncio.sleep(0.1)
                events = link.pop_events()
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        clicks = [e for e in events if isinstance(e, ButtonEvent)]
        readings = [e for e in events if isinstance(e, SensorReading)]
        assert len(clicks) > 40 and len(readings) > 20
        assert [e.pressed for e in clicks] == [True, False] * (len(clicks) // 2)
        assert {r.kind for r in readings} <= {SensorKind.PRESENCE, SensorKind.WEIGHT}

    run(scenario)


def test_a_board_that_only_sends_garbage_is_declared_down_and_recovered(
    link_path: Path,
) -> None:
    settings = LinkSettings(heartbeat_timeout_s=0.3)

    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            async with BoardLink(board.path, settings=settings) as link:
                await link.wait_up(timeout=5)
                board.faults = Faults(bit_flip=1.0, to_board=False)  # every frame garbled
                board.inject(bytes(range(1, 256)) * 40)  # and noise without delimiters
                await link.wait_state(LinkState.DOWN, timeout=2)
                assert link.status().corrupt_frames >= 2
                board.faults = Faults()
                await link.wait_up(timeout=5)
                board.click(1, 1)
                assert isinstance(await link.next_event(timeout=2), ButtonEvent)

    run(scenario)


@pytest.mark.slow
def test_soak_a_hundred_thousand_events_through_faults_and_repeated_unplugs(
    link_path: Path,
) -> None:
    faults = Faults(bit_flip=0.01, drop_frame=0.01, garbage=0.005, truncate=0.005)
    info = BoardSpec()

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path, faults=faults, seed=99) as board:
            async with BoardLink(board.path) as link:
                await link.wait_up(timeout=5)
                board.burst(100_000, rate_per_s=5000)  # 20 s
                collecting = asyncio.create_task(collect_buttons(link, 100_000, timeout=120))
                for _ in range(5):
                    await asyncio.sleep(3)
                    board.unplug()
                    await asyncio.sleep(0.5)
                    board.replug()
                assert_burst(await collecting, 100_000, info)
                assert link.status().reconnects >= 5

    run(scenario, timeout=180)


def test_an_emulated_board_can_be_stopped_and_started_again(link_path: Path) -> None:
    board = EmulatedBoard(link_path=link_path)

    async def once() -> None:
        async with BoardLink(board.path) as link:
            await link.wait_up(timeout=5)
            board.click(0, 0)
            assert isinstance(await link.next_event(timeout=2), ButtonEvent)

    for _ in range(2):
        board.start()
        try:
            run(once)
        finally:
            board.stop()
    assert not link_path.exists()


def test_commands_wait_for_room_when_the_board_does_not_acknowledge(link_path: Path) -> None:
    settings = LinkSettings(max_pending_commands=5, heartbeat_timeout_s=5.0)

    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            async with BoardLink(board.path, settings=settings) as link:
                await link.wait_up(timeout=5)
                board.stall()
                for i in range(5):
                    await link.fill(0, (i, i, i))  # queued at once
                sixth = asyncio.create_task(link.fill(0, (9, 9, 9)))
                await asyncio.sleep(0.3)
                assert not sixth.done()  # backpressure: no sixth command in memory
                assert link.status().commands_pending == 5
                board.resume()
                await asyncio.wait_for(sixth, timeout=5)
                await link.drain(timeout=5)
                assert board.leds(0)[0] == (9, 9, 9)

    run(scenario)


def test_a_board_behind_a_tcp_serial_server_is_reached_with_a_socket_url(
    link_path: Path,
) -> None:
    """`socket://host:port`, as for a board behind ser2net: a relay between TCP and the pty."""
    import serial

    async def scenario() -> None:
        with EmulatedBoard(link_path=link_path) as board:
            port = serial.Serial(board.path, timeout=0)
            loop = asyncio.get_running_loop()

            async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                loop.add_reader(port.fileno(), lambda: writer.write(port.read(4096)))
                try:
                    while data := await reader.read(4096):
                        port.write(data)
                finally:
                    loop.remove_reader(port.fileno())
                    writer.close()

            server = await asyncio.start_server(relay, "127.0.0.1", 0)
            tcp_port = server.sockets[0].getsockname()[1]
            try:
                async with BoardLink(f"socket://127.0.0.1:{tcp_port}") as link:
                    await link.wait_up(timeout=5)
                    board.click(2, 0)
                    event = await link.next_event(timeout=2)
                    assert isinstance(event, ButtonEvent) and event.seat == 2
            finally:
                server.close()
                port.close()

    run(scenario)


def test_ack_after_apply_keeps_unconfirmed_events_on_the_board_through_an_unplug(
    link_path: Path,
) -> None:
    info = BoardSpec()
    settings = LinkSettings(ack_after_apply=True)
    faults = Faults(bit_flip=0.01, drop_frame=0.01)

    async def scenario() -> None:
        with EmulatedBoard(spec=info, link_path=link_path, faults=faults, seed=12) as board:
            async with BoardLink(board.path, settings=settings) as link:
                await link.wait_up(timeout=5)
                for seat in range(3):
                    board.click(seat, 1)
                taken = []
                async with asyncio.timeout(5):
                    async for key, event in link.keyed_events():
                        taken.append((key, event))
                        if len(taken) == 6:
                            break
                await asyncio.sleep(0.2)  # arrived, not confirmed: the board keeps all six
                assert board.protocol.ring_used() == 6
                board.unplug()
                await asyncio.sleep(0.2)
                board.replug()
                await link.wait_state(LinkState.UP, timeout=5)
                await asyncio.sleep(0.2)  # resent in the handshake, not delivered twice
                assert link.pop_events() == [] and board.protocol.ring_used() == 6
                for key, _event in taken[1:]:  # out of order: the first one holds them all
                    link.confirm(key)
                await asyncio.sleep(0.2)
                assert board.protocol.ring_used() == 6
                link.confirm(taken[0][0])
                deadline = time.monotonic() + 3
                while board.protocol.ring_used() and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
                assert board.protocol.ring_used() == 0
                # Then a burst, each event confirmed as it is taken: all once, in order.
                board.burst(2000, rate_per_s=2500)
                got: list[ButtonEvent] = []
                async with asyncio.timeout(20):
                    async for key, event in link.keyed_events():
                        link.confirm(key)
                        if isinstance(event, ButtonEvent):
                            got.append(event)
                            if len(got) == 2000:
                                break
                assert_burst(got, 2000, info)
                assert [e.seq for e in got] == list(range(7, 2007))

    run(scenario)
