"""Progress of a long run: done/total in bytes of text, the rate and the time left.

A run calls `Progress.advance(n)` as rows finish; `Progress.line()` is what a user reads
("3.2 of 7.9 MB · 1.6 MB/s · 3 s left"). `cancel`, a threading.Event, is checked between rows:
set, the run raises `Cancelled` (the window's Cancel button sets it).

Does not: print or paint (the CLI writes the line to stderr, the window shows it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


class Cancelled(Exception):
    """The run was cancelled between rows."""


@dataclass
class Progress:
    total: int                                   # bytes of text to count
    report: Callable[[Progress], None] | None = None
    cancel: threading.Event | None = None
    done: int = 0
    started: float = field(default_factory=time.monotonic)

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def advance(self, n: int) -> None:
        self.done += n
        if self.report is not None:
            self.report(self)
        self.check()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float:
        """Bytes per second so far (0 before the first row)."""
        return self.done / self.elapsed if self.elapsed > 0 and self.done else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far (None before the first row)."""
        return (self.total - self.done) / self.rate if self.rate else None

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 1.0

    def line(self) -> str:
        mb = 1e6
        eta = "" if self.eta is None else f" · {self.eta:.0f} s left"
        return f"{self.done / mb:.1f} of {self.total / mb:.1f} MB · {self.rate / mb:.2f} MB/s{eta}"
