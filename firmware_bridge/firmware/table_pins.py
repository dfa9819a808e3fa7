# The reference wiring of the table board (Raspberry Pi Pico / RP2040). See README.md.
# Change this file, not the code, for another build; the HELLO reports what is here.

# Call buttons: BUTTONS[seat][button] = GPIO. Seats 0-3 = East, South, West, North in wiring
# order; buttons 0-3 = chow, pung, kong, mah-jongg. Momentary switch to GND, internal pull-up.
BUTTONS = (
    (6, 7, 8, 9),
    (10, 11, 12, 13),
    (14, 15, 16, 17),
    (18, 19, 20, 21),
)

# WS2812 strips: (data GPIO, LED count). Each strip gets a PIO state machine.
STRIPS = (
    (2, 72),  # the four seat strips, chained: E, S, W, N, 18 LEDs each
    (3, 24),  # the centre ring
    (4, 72),  # the wall ring (under the wall, one LED per stack of two tiles in 4 x 18)
    (5, 14),  # LED dice: two dice of 7 pips each
)

# LED segments as the protocol numbers them: (strip index, first LED, count).
SEGMENTS = (
    (0, 0, 18),  # 0 seat E: turn indicator
    (0, 18, 18),  # 1 seat S
    (0, 36, 18),  # 2 seat W
    (0, 54, 18),  # 3 seat N
    (1, 0, 24),  # 4 centre: call-window countdown, claim winner, error flash
    (2, 0, 72),  # 5 wall: wall-break position, dead-wall boundary
)

# LED dice: (strip index, first LED) of each die; pips in the order of PIP_LAYOUT in hw.py.
DICE = ((3, 0), (3, 7))

# Presence sensors (IR proximity modules, output low when someone sits): one per seat.
PRESENCE = (26, 27, 28, 1)

# Rack switches (a microswitch under each rack, closed = rack in place), one per seat; () if
# the table has none.
RACKS = ()

# Load cells through HX711 amplifiers (e.g. under the discard area, to count tiles by weight):
# (DOUT GPIO, SCK GPIO, grams per count, zone). () if none. Tared at power-up.
LOAD_CELLS = ()

# Hold this pin to GND at power-up to keep the REPL (the link does not start).
SAFE_MODE = 22
