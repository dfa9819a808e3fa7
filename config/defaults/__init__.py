"""Bundled table files: `table.toml` (a Pi at a club, commented) and `simulate.toml`."""
