"""Export brain.db to a markdown tree, byte for byte (the git escape hatch).

Writes every page (its exact rendered bytes) and every other stored file (sidecars, special
files, blobs) to ``OUT/<path>``. Only files whose bytes differ are written; each write is
atomic (a temp file in the same folder, then ``os.replace``), so a crash never leaves a torn
file. Files in OUT that the DB does not know are left alone (and reported by the verification).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from ..core.brain import Brain, render_row, sha256
from ..errors import GBrainError
from . import verify
from .scan import TMP_PREFIX, db_excludes, scan_tree


def safe_join(root: Path, rel: str) -> Path:
    """``root/rel``, refusing absolute paths and ``..`` segments (a corrupt or hostile DB)."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
        raise GBrainError(f"refusing to write outside the export folder: {rel!r}")
    return root.joinpath(*parts)


def atomic_write(target: Path, data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to ``target`` via a temp file + rename; keeps an existing file's mode.

    Readers see the old or the new bytes, never a torn file. ``fsync`` also forces the data to
    disk before the rename (slow; export leaves it off since the DB stays the source of truth)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    # a short temp name: a 250-byte file name plus a prefix would exceed the 255-byte limit
    tmp = target.parent / f"{TMP_PREFIX}{os.getpid()}-{abs(hash(target.name)) % 10**10}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def same_bytes(target: Path, data: bytes) -> bool:
    try:
        st = target.stat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    if st.st_size != len(data):
        return False
    with open(target, "rb") as f:
        return f.read() == data


def export_tree(brain: Brain, out: str | os.PathLike, *, on_progress: Callable[[int, int], None] | None = None, check: bool = True) -> dict:
    """Write the brain to ``out``; return the verification report of ``out`` against the DB."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    total = brain.conn.execute("SELECT (SELECT COUNT(*) FROM pages) + (SELECT COUNT(*) FROM files)").fetchone()[0]
    written = unchanged = 0
    hashes: dict[str, str] = {}
    i = 0

    failed: list[dict] = []

    def put(rel: str, data: bytes) -> None:
        nonlocal written, unchanged, i
        try:
            target = safe_join(root, rel)
            if same_bytes(target, data):
                unchanged += 1
            else:
                atomic_write(target, data)
                written += 1
            hashes[rel] = sha256(data)
        except (OSError, GBrainError) as e:  # one unwritable path must not stop the rest
            failed.append({"path": rel, "error": getattr(e, "strerror", None) or str(e)})
        i += 1
        if on_progress and (i % 100 == 0 or i == total):
            on_progress(i, total)

    for r in brain.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages ORDER BY path"):
        put(r["path"], render_row(r).encode("utf-8"))
    for r in brain.conn.execute("SELECT path, data FROM files ORDER BY path"):
        put(r["path"], bytes(r["data"]))
    counts = {"written": written, "unchanged": unchanged, "failed": len(failed)}
    if not check:
        return {"ok": True, "counts": counts, "root": str(root)}
    scan = scan_tree(root, exclude_abs=db_excludes(brain.path))
    disk, errors = verify.hash_tree(scan)
    rep = verify.report(brain, scan, disk, deep=False, extra={"counts": counts})
    if failed:
        rep["ok"] = False
        rep["write_errors"] = failed[: verify.MAX_LISTED]
        rep["problems"].append(f"{len(failed)} file(s) could not be written: " + "; ".join(f"{f['path']}: {f['error']}" for f in failed[:3]))
    if errors:
        rep["ok"] = False
        rep["problems"].append(f"{len(errors)} file(s) could not be read back")
    return rep
