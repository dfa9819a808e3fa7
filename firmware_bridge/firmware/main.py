# Runs at power-up on the Pico: start the table firmware (see README.md).
import table_firmware

table_firmware.run()
