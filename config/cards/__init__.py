"""American cards shipped with the table (data files: *.card, see docs/cards.md)."""
