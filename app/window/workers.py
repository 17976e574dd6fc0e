"""Worker threads for the window: encoding as you type, loading files.

Every job carries a generation number; the owner bumps its generation on
each new request or cancel, and drops results whose generation is not the
current one (stale results from a slower, older job never repaint the
window). The engine releases the GIL, so jobs run truly in parallel with
the UI thread.

Cancel is cooperative: a job checks its event between phases (encode,
derived arrays, trace); a native call already running finishes in the
background and its result is dropped.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from ..analysis.text import Cancelled
from . import collector


class _Signals(QObject):
    done = Signal(int, object)     # generation, result
    failed = Signal(int, str)      # generation, message
    ended = Signal()               # always, last: the owner may drop the job


class Job(QRunnable):
    """Runs fn(cancel_event) in the pool and reports through queued signals.

    subtle: autoDelete is off and the owner drops its reference on `ended`, in
    the UI thread. With autoDelete on, the pool deletes the Python wrapper in
    the worker thread; under PySide6 6.12 that corrupted refcounts (a fatal
    "deallocating None" within seconds under a busy event loop).
    """

    def __init__(self, generation: int, fn: Callable[[threading.Event], object],
                 expected: tuple[type[Exception], ...] = ()) -> None:
        super().__init__()
        self.generation = generation
        self.fn = fn
        self.expected = expected
        self.cancel = threading.Event()
        self.signals = _Signals()
        self.setAutoDelete(False)

    def run(self) -> None:
        try:
            self._run()
        finally:
            try:
                self.signals.ended.emit()
            except RuntimeError:  # the owner is gone (window closed mid-job)
                pass

    def _run(self) -> None:
        try:
            result = self.fn(self.cancel)
        except Cancelled:
            return
        except Exception as exc:  # reported to the UI thread, which shows it
            msg = str(exc) or type(exc).__name__
            # an expected failure is its reason alone; anything else carries where it came from
            if not isinstance(exc, (OSError, ValueError, *self.expected)) and type(exc).__name__ != "TokenizerError":
                msg = f"{type(exc).__name__}: {msg}\n\n{traceback.format_exc(limit=3)}"
            self._emit(self.signals.failed, msg)
            return
        if not self.cancel.is_set():
            self._emit(self.signals.done, result)

    def _emit(self, signal: Any, payload: object) -> None:
        try:
            signal.emit(self.generation, payload)
        except RuntimeError:  # the owner is gone (window closed mid-job)
            pass


class Runner(QObject):
    """One lane of work: at most one current job; newer requests supersede older ones.

    finished(result) and failed(message) fire only for the current generation.
    busy(bool) turns on when a job starts and off when the current one ends. `expected`: the
    exception types whose message is the whole report (a reason for the user, no traceback).
    """

    finished = Signal(object)
    failed = Signal(str)
    busy = Signal(bool)

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None,
                 expected: tuple[type[Exception], ...] = ()) -> None:
        super().__init__(parent)
        collector.install()   # cycles (closed windows among them) are collected on the UI thread only
        self.pool = pool or QThreadPool.globalInstance()
        self.expected = expected
        self.generation = 0
        self._job: Job | None = None
        self._alive: set[Job] = set()   # jobs the pool runs; dropped on `ended`, in this thread

    @property
    def running(self) -> bool:
        return self._job is not None

    def submit(self, fn: Callable[[threading.Event, int], object]) -> int:
        """Starts fn(cancel, generation) in the pool; cancels the previous job."""
        self._cancel_current()
        self.generation += 1
        gen = self.generation
        job = Job(gen, lambda ev: fn(ev, gen), self.expected)
        job.signals.done.connect(self._on_done)
        job.signals.failed.connect(self._on_failed)
        job.signals.ended.connect(lambda: self._alive.discard(job))
        self._alive.add(job)
        self._job = job
        self.busy.emit(True)
        self.pool.start(job)
        return gen

    def cancel(self) -> None:
        """Drops the current job's result; the UI keeps what it shows."""
        if self._job is None:
            return
        self._cancel_current()
        self.generation += 1
        self.busy.emit(False)

    def _cancel_current(self) -> None:
        if self._job is not None:
            self._job.cancel.set()
            self._job = None

    def _on_done(self, gen: int, result: object) -> None:
        if gen != self.generation:
            return
        self._job = None
        self.busy.emit(False)
        self.finished.emit(result)

    def _on_failed(self, gen: int, msg: str) -> None:
        if gen != self.generation:
            return
        self._job = None
        self.busy.emit(False)
        self.failed.emit(msg)


class Coalescer(QObject):
    """One lane of work for a control being dragged: at most one job runs; requests made while it
    runs collapse into one (the newest) that starts as soon as it ends. Unlike Runner, whose newer
    requests cancel older ones, every job that starts reports, so a dragged slider shows frames
    all along instead of only where it stops.
    """

    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = Runner(parent=self)
        self._runner.finished.connect(self._on_done)
        self._runner.failed.connect(self._on_failed)
        self._pending: Callable[[threading.Event, int], object] | None = None

    @property
    def running(self) -> bool:
        return self._runner.running or self._pending is not None

    def request(self, fn: Callable[[threading.Event, int], object]) -> None:
        if self._runner.running:
            self._pending = fn
        else:
            self._runner.submit(fn)

    def _next(self) -> None:
        fn, self._pending = self._pending, None
        if fn is not None:
            self._runner.submit(fn)     # the next frame computes while this one is shown

    def _on_done(self, result: object) -> None:
        self._next()
        self.finished.emit(result)

    def _on_failed(self, msg: str) -> None:
        self._next()
        self.failed.emit(msg)


def read_text_file(path: Path) -> str:
    """A text file as str (UTF-8; invalid bytes kept as surrogate escapes)."""
    return path.read_bytes().decode("utf-8", errors="surrogateescape")
