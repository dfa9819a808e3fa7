"""Typed settings schema for a table, and the bundled defaults."""
