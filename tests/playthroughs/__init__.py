"""Readable playthroughs of every rule preset (issue 30): the ``*.txt`` files here and their generator."""
