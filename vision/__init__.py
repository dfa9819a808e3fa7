"""Camera capture, table calibration, tile and dice recognition, and the table renderer."""
