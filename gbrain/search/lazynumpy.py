"""``numpy``, imported when first used: ``from .lazynumpy import np`` in a module whose import
must not cost numpy's (~0.1 CPU-s of a process's start): ``embeddings`` and ``vectors``, which
``stats``, ``lint`` and ``embed``'s planning import for their model and counts, reading no vector,
and ``hybrid``, whose ``query`` on a brain with no vectors is keyword search.
The first ``np.NAME`` imports numpy and keeps ``NAME`` on this object (later lookups are plain
attribute reads). ``tests/test_startup.py`` checks ``stats`` and ``query`` with no vectors load no numpy."""
from __future__ import annotations

from typing import TYPE_CHECKING


class _Numpy:
    def __getattr__(self, name: str):
        import numpy

        value = getattr(numpy, name)
        setattr(self, name, value)
        return value


if TYPE_CHECKING:
    import numpy as np
else:
    np = _Numpy()
