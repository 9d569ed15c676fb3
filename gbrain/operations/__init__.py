"""The one registry of operations (see :mod:`gbrain.operations.registry`).

Importing this package registers every operation: the core ones (``core``) first, then each
area's module. Area modules import :mod:`.registry` only, never this package, so there is no
import cycle. Surfaces use ``from gbrain import operations as ops`` and ``ops.run``,
``ops.REGISTRY``, ``ops.find`` …
"""
from .registry import *  # noqa: F401,F403
from .registry import HIT_STYLE, PAGE_CHARS, REGISTRY, _since, dumps  # noqa: F401
from . import core  # noqa: E402,F401
from . import lint  # noqa: E402,F401
from . import agents  # noqa: E402,F401
from . import sync  # noqa: E402,F401
from . import search  # noqa: E402,F401
from . import graph  # noqa: E402,F401
from . import skills  # noqa: E402,F401
from . import history  # noqa: E402,F401
