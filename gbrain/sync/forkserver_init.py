"""Imported by the parse pool's forkserver alone, first of its preloads (:func:`parallel._preload`):
SIGINT ignored in the forkserver from then on, and so in every worker from its fork.

CPython's forkserver (3.11) saves the signal handlers it finds once its preloads are imported, ignores
SIGINT itself, and gives each worker it forks the saved handlers back (``forkserver._serve_one``): a
worker took a Ctrl-C to the process group with Python's own handler from its fork until its
initializer (:func:`parallel._worker_start`) ignored it, printed a ``KeyboardInterrupt`` traceback,
and the pool started another in its place. Never import it elsewhere."""
import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
