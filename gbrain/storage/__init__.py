"""Storage: the SQLite schema and its migrations (``db``), the writer of a page's derived rows
(``derive``) and the origin of a write recorded with each version (``origin``)."""
