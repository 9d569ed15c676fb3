"""gbrain: a personal knowledge brain in one SQLite file, with a byte-exact markdown twin."""

__version__ = "0.1.0"
