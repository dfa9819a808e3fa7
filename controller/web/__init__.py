"""The table's face: the table view, the scoreboard and the referee's console, served by the
table itself (docs/face.md)."""
