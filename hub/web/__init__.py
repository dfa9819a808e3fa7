"""The club page: every table live, standings, the next round's seating, players' pages."""
