"""Parse many pages on all cores.

Parsing (mistune + YAML) is the CPU-bound part of import and verify; SQLite writes stay in the
main process. Small batches are parsed in-process (a worker pool costs ~0.3 s to start).
"""
from __future__ import annotations

import multiprocessing as mp
import os
from typing import Iterable, Iterator

from ..page.markdown import Page, parse_page

PARALLEL_MIN = 200  # use worker processes from this many pages


def _parse_job(job: tuple[str, str, str]) -> Page:
    path, text, split = job
    return parse_page(text, path, timeline_split=split)


class PageParser:
    """``with PageParser() as pp: for page in pp.parse(jobs)`` — jobs are ``(path, text, split)``;
    pages come back in job order. The pool starts on first need and ends with the ``with``."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or min(4, os.cpu_count() or 1)
        self.pool = None

    def parse(self, jobs: list[tuple[str, str, str]]) -> Iterator[Page]:
        if len(jobs) < PARALLEL_MIN or self.workers < 2:
            return map(_parse_job, jobs)
        if self.pool is None:
            methods = mp.get_all_start_methods()
            ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
            self.pool = ctx.Pool(self.workers)
        return self.pool.imap(_parse_job, jobs, chunksize=16)

    def __enter__(self) -> "PageParser":
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None


def parse_all(jobs: Iterable[tuple[str, str, str]]) -> list[Page]:
    """Parse every job (in parallel when there are many); pages in job order."""
    jobs = list(jobs)
    with PageParser() as pp:
        return list(pp.parse(jobs))
