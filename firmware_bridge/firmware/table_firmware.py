# The table board's main loop: USB serial in and out, the shared protocol, the hardware.
# MicroPython on the RP2040. Nothing here may print: stdout is the link.
import os
import select
import sys
import time

import micropython
from machine import WDT, Pin, unique_id

import table_pins
from firmware_bridge import wire
from firmware_bridge.board import BoardSpec, BoardProtocol
from table_hw import PicoHardware

FIRMWARE = "mjfw-1.0.0"
RENDER_US = 20000  # animations at 50 frames per second


class Clock:
    """Microseconds since boot as an unbounded int (MicroPython ticks wrap at 2**30)."""

    def __init__(self, ticks_us=None, ticks_diff=None):
        self.ticks_us = ticks_us or time.ticks_us
        self.ticks_diff = ticks_diff or time.ticks_diff
        self.last = self.ticks_us()
        self.us = 0

    def now(self):
        t = self.ticks_us()
        self.us += self.ticks_diff(t, self.last)
        self.last = t
        return self.us

    def at(self, ticks):
        """The clock at raw ``ticks`` taken shortly before the last now() (an interrupt)."""
        return self.us - self.ticks_diff(self.last, ticks)


class UsbPort:
    """The USB CDC serial port, read without blocking."""

    def __init__(self):
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        while len(data) < 512 and self.poller.poll(0):
            data += self.inp.read(1)
        return data

    def write(self, data):
        self.out.write(data)


def board_id():
    uid = unique_id()
    return "pico-" + "".join("%02x" % b for b in uid[-4:])


def board_spec(pins):
    return BoardSpec(
        seats=len(pins.BUTTONS),
        buttons_per_seat=len(pins.BUTTONS[0]),
        segments=[n for (_, _, n) in pins.SEGMENTS],
        dice_kind=wire.DICE_LED if pins.DICE else wire.DICE_NONE,
        sensors=(wire.SENSE_PRESENCE if pins.PRESENCE else 0)
        | (wire.SENSE_RACK if pins.RACKS else 0)
        | (wire.SENSE_WEIGHT if pins.LOAD_CELLS else 0),
        firmware=FIRMWARE,
        board_id=board_id(),
        ring_capacity=1024,
    )


class Firmware:
    def __init__(self, port, hardware, clock, boot_id, info, watchdog=None):
        self.port = port
        self.hw = hardware
        self.clock = clock
        self.watchdog = watchdog
        self.protocol = BoardProtocol(info, hardware, boot_id)
        hardware.board = self.protocol
        self.last_render = -RENDER_US

    def step(self):
        now = self.clock.now()
        data = self.port.read()
        if data:
            self.protocol.receive(data, now)
        self.hw.scan(now, self.protocol)
        if self.hw.dirty or (
            now - self.last_render >= RENDER_US and self.hw.animating(now)
        ):
            self.hw.refresh(now)
            self.last_render = now
        out = self.protocol.poll(now)
        if out:
            self.port.write(out)
        if self.watchdog is not None:
            self.watchdog.feed()


def run():
    if Pin(table_pins.SAFE_MODE, Pin.IN, Pin.PULL_UP).value() == 0:
        return  # safe mode: keep the REPL for maintenance
    micropython.kbd_intr(-1)  # 0x03 is data on this link, not Ctrl-C
    boot_id = int.from_bytes(os.urandom(4), "little")
    clock = Clock()
    hw = PicoHardware(table_pins, clock)
    port = UsbPort()
    # A hung loop reboots the board; the host sees a new boot id and resends LED state.
    fw = Firmware(port, hw, clock, boot_id, board_spec(table_pins), WDT(timeout=2000))
    port.write(b"\x00")  # end whatever half frame the host may hold
    while True:
        fw.step()
