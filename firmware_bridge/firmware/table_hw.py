# The table board's hardware on the RP2040: WS2812 strips through PIO, call buttons with
# debouncing and edge timestamps, presence sensors, LED dice. MicroPython only.
import array
import random

import rp2
from machine import Pin

from firmware_bridge import wire
from firmware_bridge.board import Hardware, render


# WS2812 at 800 kHz: a bit is 10 cycles of an 8 MHz state machine. Every bit starts high for
# 2 cycles; a one stays high 5 more, a zero goes low; then 3 cycles low. Colours are pulled
# 24 bits at a time, most significant first, in the strip's G R B order.
@rp2.asm_pio(
    sideset_init=rp2.PIO.OUT_LOW,
    out_shiftdir=rp2.PIO.SHIFT_LEFT,
    autopull=True,
    pull_thresh=24,
)
def ws2812():
    wrap_target()
    label("bit")
    out(x, 1).side(0)[2]
    jmp(not_x, "zero").side(1)[1]
    jmp("bit").side(1)[4]
    label("zero")
    nop().side(0)[4]
    wrap()


class Strip:
    def __init__(self, sm_id, pin, count):
        self.count = count
        self.words = array.array("I", [0] * count)
        self.sm = rp2.StateMachine(sm_id, ws2812, freq=8_000_000, sideset_base=Pin(pin))
        self.sm.active(1)
        self.dirty = True

    def set(self, first, rgb, level):
        # rgb: bytes R G B per LED; level: brightness 0..256
        words = self.words
        for i in range(len(rgb) // 3):
            r = rgb[3 * i] * level >> 8
            g = rgb[3 * i + 1] * level >> 8
            b = rgb[3 * i + 2] * level >> 8
            w = (g << 16) | (r << 8) | b
            if words[first + i] != w:
                words[first + i] = w
                self.dirty = True

    def show(self):
        if self.dirty:
            self.sm.put(self.words, 8)  # shift each word left 8: the colour's 24 bits go first
            self.dirty = False


# Which of a die's 7 LEDs are lit for each face. LEDs: 0 top-left, 1 top-right, 2 middle-left,
# 3 centre, 4 middle-right, 5 bottom-left, 6 bottom-right.
PIP_LAYOUT = {
    1: (3,),
    2: (0, 6),
    3: (0, 3, 6),
    4: (0, 1, 5, 6),
    5: (0, 1, 3, 5, 6),
    6: (0, 1, 2, 4, 5, 6),
}
DICE_COLOUR = (255, 255, 255)
ROLL_US = 700000  # LED dice tumble this long before showing the result
LOST_SEGMENT = 4  # the centre ring blinks red while the host is away


class Debouncer:
    """Digital inputs, active low. A change is accepted once the input has been steady for
    the debounce time, and is stamped with the time of its first edge, taken in a pin
    interrupt, so two calls are ordered by the fingers, to the microsecond -- not by the
    bounce, nor by where the main loop happened to be (an LED refresh takes milliseconds)."""

    def __init__(self, gpios, debounce_us, clock):
        self.pins = [Pin(g, Pin.IN, Pin.PULL_UP) for g in gpios]
        n = len(gpios)
        self.debounce_us = debounce_us
        self.clock = clock
        self.state = [False] * n  # accepted: True = active (pressed, present)
        self.raw = [False] * n
        self.steady_since = [0] * n
        self.edge = [-1] * n  # first departure from the accepted state, -1 if none
        self.irq_ticks = [-1] * n  # raw ticks of the first edge the interrupt saw, -1 if none
        edges = Pin.IRQ_FALLING | Pin.IRQ_RISING
        for i in range(n):
            # A hard interrupt runs even during garbage collection, so the stamp is exact.
            self.pins[i].irq(handler=self._irq(i), trigger=edges, hard=True)

    def _irq(self, i):
        # Runs as a hard interrupt: must not allocate (a small int into a list does not).
        stamps = self.irq_ticks
        ticks_us = self.clock.ticks_us

        def handler(pin):
            if stamps[i] < 0:
                stamps[i] = ticks_us()

        return handler

    def scan(self, now_us, changed):
        for i in range(len(self.pins)):
            raw = self.pins[i].value() == 0
            if raw != self.raw[i]:
                self.raw[i] = raw
                self.steady_since[i] = now_us
                if raw != self.state[i] and self.edge[i] < 0:
                    ticks = self.irq_ticks[i]
                    self.edge[i] = self.clock.at(ticks) if ticks >= 0 else now_us
            elif now_us - self.steady_since[i] >= self.debounce_us:
                if raw != self.state[i]:
                    self.state[i] = raw
                    changed(i, raw, self.edge[i] if self.edge[i] >= 0 else now_us)
                self.edge[i] = -1
                self.irq_ticks[i] = -1


class HX711:
    """A load-cell amplifier, read only when it says a conversion is ready (never waits)."""

    def __init__(self, dout, sck, grams_per_count):
        self.dout = Pin(dout, Pin.IN)
        self.sck = Pin(sck, Pin.OUT)
        self.sck.value(0)
        self.grams_per_count = grams_per_count
        self.tare = None

    def ready(self):
        return self.dout.value() == 0

    def read(self):
        """24 bits, most significant first, then one more pulse: channel A, gain 128 next."""
        raw = 0
        for _ in range(24):
            self.sck.value(1)
            self.sck.value(0)
            raw = (raw << 1) | self.dout.value()
        self.sck.value(1)
        self.sck.value(0)
        if raw & 0x800000:
            raw -= 0x1000000
        return raw

    def grams(self):
        raw = self.read()
        if self.tare is None:
            self.tare = raw  # the empty table at power-up
        return int((raw - self.tare) * self.grams_per_count)


class PicoHardware(Hardware):
    def __init__(self, pins, clock):
        self.pins = pins
        self.board = None  # the BoardProtocol, set by the firmware
        self.strips = [Strip(i, gpio, n) for i, (gpio, n) in enumerate(pins.STRIPS)]
        self.segments = pins.SEGMENTS
        self.pixels = [bytearray(3 * n) for (_, _, n) in pins.SEGMENTS]
        self.animations = [None] * len(pins.SEGMENTS)
        self.saved_centre = None
        self.level = 128
        self.dice_values = ()
        self.rolling_until = 0
        flat = []
        for seat in pins.BUTTONS:
            flat.extend(seat)
        self.per_seat = len(pins.BUTTONS[0])
        self.buttons = Debouncer(flat, 15000, clock)
        self.presence = Debouncer(pins.PRESENCE, 200000, clock)
        self.racks = Debouncer(pins.RACKS, 100000, clock)
        self.cells = [HX711(d, c, g) for (d, c, g, _) in pins.LOAD_CELLS]
        self.cell_zones = [zone for (_, _, _, zone) in pins.LOAD_CELLS]
        self.cell_reported = [None] * len(self.cells)
        self.sensor_interval_us = 500000
        self.next_weigh = 0
        self.dirty = True

    # -- commands from the host (Hardware interface) --------------------------------------
    def set_pixels(self, segment, start, rgb, now_us):
        seg = self.pixels[segment]
        end = min(len(seg), 3 * start + len(rgb))
        if 3 * start < end:
            seg[3 * start : end] = rgb[: end - 3 * start]
        self.animations[segment] = None
        self.dirty = True

    def set_animation(self, segment, anim, now_us):
        self.animations[segment] = (anim, now_us)
        self.dirty = True

    def dice(self, action, count, values, now_us):
        if action == wire.DICE_ROLL:
            rolled = [random.randint(1, 6) for _ in range(min(count, len(self.pins.DICE)))]
            self.dice_values = tuple(rolled)
            self.rolling_until = now_us + ROLL_US
            if self.board is not None:
                self.board.record_dice(wire.DICE_LED, rolled, now_us)
        elif action == wire.DICE_SHOW:
            self.dice_values = tuple(values)
            self.rolling_until = 0
        elif action == wire.DICE_CLEAR:
            self.dice_values = ()
            self.rolling_until = 0
        self.dirty = True

    def configure(self, key, value):
        if key == wire.CFG_DEBOUNCE_MS:
            self.buttons.debounce_us = value * 1000
        elif key == wire.CFG_SENSOR_INTERVAL_MS:
            self.sensor_interval_us = value * 1000
        elif key == wire.CFG_BRIGHTNESS:
            self.level = min(value, 255) + 1
            self.dirty = True

    def host_lost(self, now_us):
        # Slow red blink on the centre ring until the host speaks again.
        self.saved_centre = self.animations[LOST_SEGMENT]
        self.set_animation(LOST_SEGMENT, (wire.ANIM_BLINK, 255, 0, 0, 1000, 0, 0, 0), now_us)

    def host_back(self, now_us):
        self.animations[LOST_SEGMENT] = self.saved_centre
        self.dirty = True

    # -- inputs -----------------------------------------------------------------------------
    def scan(self, now_us, board):
        per_seat = self.per_seat

        def button(i, pressed, t):
            board.record_button(i // per_seat, i % per_seat, pressed, t)

        def present(i, active, t):
            board.record_sensor(wire.SENSOR_PRESENCE, i, 1 if active else 0, t)

        def racked(i, active, t):
            board.record_sensor(wire.SENSOR_RACK, i, 1 if active else 0, t)

        self.buttons.scan(now_us, button)
        self.presence.scan(now_us, present)
        self.racks.scan(now_us, racked)
        if self.cells and now_us >= self.next_weigh:
            self.next_weigh = now_us + self.sensor_interval_us
            for i in range(len(self.cells)):
                if self.cells[i].ready():
                    grams = self.cells[i].grams()
                    last = self.cell_reported[i]
                    if last is None or abs(grams - last) >= 2:  # 2 g: below a tile's weight
                        self.cell_reported[i] = grams
                        board.record_sensor(wire.SENSOR_WEIGHT, self.cell_zones[i], grams, now_us)

    # -- output -----------------------------------------------------------------------------
    def refresh(self, now_us):
        """Render every segment and the dice into the strips and send what changed."""
        for s in range(len(self.segments)):
            strip, first, count = self.segments[s]
            running = self.animations[s]
            if running is None:
                rgb = self.pixels[s]
            else:
                rgb = render(running[0], running[1], now_us, count)
            self.strips[strip].set(first, rgb, self.level)
        faces = self.dice_values
        if self.rolling_until and now_us < self.rolling_until:
            faces = tuple(random.randint(1, 6) for _ in faces)
        for d in range(len(self.pins.DICE)):
            strip, first = self.pins.DICE[d]
            rgb = bytearray(21)
            if d < len(faces):
                for pip in PIP_LAYOUT.get(faces[d], ()):
                    rgb[3 * pip : 3 * pip + 3] = bytes(DICE_COLOUR)
            self.strips[strip].set(first, rgb, self.level)
        for strip in self.strips:
            strip.show()
        self.dirty = False

    def animating(self, now_us):
        if self.rolling_until and now_us < self.rolling_until + 50000:
            return True
        for a in self.animations:
            if a is not None and a[0][0] not in (wire.ANIM_OFF, wire.ANIM_SOLID):
                return True
        return False
