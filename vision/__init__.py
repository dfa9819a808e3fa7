"""Camera capture, table calibration, tile and dice recognition (the live pipeline), and, in
``vision.synth``, the table renderer and its artwork. Vision depends on the engine's tile
names, never on the table service (controller/) or the firmware bridge."""
