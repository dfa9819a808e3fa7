"""Host side of the serial link to the table's microcontroller, its emulator and codec."""
