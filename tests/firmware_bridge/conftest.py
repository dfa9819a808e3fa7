"""Shared set-up of the firmware bridge tests."""
