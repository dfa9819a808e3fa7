"""The club hub: many tables on one club broker, one club database, standings.

``mjtable hub`` subscribes to every table's events on the club's broker, keeps each game as
the table's own scoresheet does (:mod:`hub.ingest`), and answers standings from the club
database (:mod:`hub.db`). docs/club.md has the whole picture.
"""
