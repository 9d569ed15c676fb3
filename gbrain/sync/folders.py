"""Folders made for output (``export --dir``, ``get --output``): light, no scan or brain imports."""
from __future__ import annotations

from pathlib import Path


def make_folders(folder: Path, writing: Path | None = None) -> list[str]:
    """Create ``folder`` and its missing parents (``mkdir -p``); return the folders created,
    outermost first ([] when it was there), so the caller can say so (``export --dir``,
    ``get --output``: a mistyped path must not make folders without a word). A file where a
    folder should be is :class:`BadInput`, naming it and ``writing`` (what was to be written)."""
    from ..errors import BadInput

    missing: list[Path] = []
    p = folder
    while not p.is_dir():
        if p.exists() or p.is_symlink():
            raise BadInput(f"{p} is a file, not a folder: cannot write {writing or folder}; nothing was written")
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as e:  # made a file meanwhile
        raise BadInput(f"cannot create the folder {folder} ({e.strerror}); nothing was written") from None
    return [str(x) for x in reversed(missing)]
